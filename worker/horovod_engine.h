// SPDX-License-Identifier: GPL-3.0-or-later
// The Horovod engine: what horovod.torch.DistributedOptimizer and Horovod's background controller do, in our
// own code.
//
//  - A post-hook on each parameter's gradient accumulator submits a named all-reduce request.
//  - A background thread runs a cycle every cycle_time_ms: the ranks tell rank 0 (the coordinator) which
//    tensors they have ready, over a Gloo group of their own; rank 0 answers with the tensors every rank has,
//    in one order for all (worker/negotiation.h).
//  - With the response cache (on unless --no-response-cache), a tensor every rank agreed on once is answered
//    from each rank's cache afterwards: a cycle is one small bitwise-AND all-reduce of which cached tensors
//    each rank has ready, and goes through rank 0 only for new or changed tensors, or when rank 0's stall
//    inspector needs every rank's ready times (worker/response_cache.h).
//  - With the cache, a synchronised step plans the next: its gradients in their ready order, grouped into
//    fusion buffers. Inside a planned backward a rank starts a cycle when the next planned buffer is complete
//    instead of every cycle_time_ms, so a model whose gradients fit one buffer costs one cycle and one
//    all-reduce a step; a rank still cycles now and then while it holds back, for the stall inspector.
//  - Answered tensors of one dtype are packed into fusion buffers up to fusion_threshold_mb and each buffer
//    is reduced with one all-reduce on the job's group; a completion thread unpacks (average or sum).
//  - finishBackward() is synchronize(): it waits for every handle of the step.
//  - Rank 0's stall inspector warns when some ranks submitted a tensor and others have not for stall_check_s.
//
// While a step is in flight the background thread issues collectives on the job's group, so the training
// loop must not use that group between beforeBackward(sync=true) and the end of finishBackward().
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "worker/gradient_engine.h"

namespace ringmaster::worker {

class HorovodEngine final : public GradientEngine {
 public:
  HorovodEngine(EngineContext context, std::vector<std::pair<std::string, torch::Tensor>> parameters);
  // Stops the background cycle on every rank (a shutdown travels with the next negotiation).
  ~HorovodEngine() override;

  HorovodEngine(const HorovodEngine&) = delete;
  HorovodEngine& operator=(const HorovodEngine&) = delete;

  std::string name() const override { return "horovod"; }
  // broadcast_parameters (parameters and buffers) and broadcast_optimizer_state from rank 0.
  void broadcastInitialState(torch::nn::Module& model, torch::optim::Optimizer& optimizer) override;
  void beforeBackward(uint64_t step, bool sync) override;
  int64_t finishBackward() override;
  EngineStats stats() const override;

  // The tensors (parameter indices) in the order this rank reduced them in its last synchronised step, and
  // how they were grouped into fusion buffers (tests and diagnostics).
  std::vector<std::vector<size_t>> lastStepFusion() const;

 private:
  class Controller;
  c10::intrusive_ptr<c10d::ProcessGroup> group_;
  std::unique_ptr<Controller> controller_;
};

// Broadcasts an optimizer's whole state (its serialized form) from rank 0.
void broadcastOptimizerState(c10d::ProcessGroup& group, torch::optim::Optimizer& optimizer);

}  // namespace ringmaster::worker
