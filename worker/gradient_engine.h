// SPDX-License-Identifier: GPL-3.0-or-later
// The seam between the training loop and the two ways of synchronising gradients.
//
// One training step with accumulation N looks like this for every engine:
//   for micro-batch i in 0..N-1:
//     engine.beforeBackward(/*sync=*/ i == N-1);   // DDP: no_sync() on the first N-1
//     loss.backward();                             // hooks fire here; communication starts and overlaps
//   commWaitNs = engine.finishBackward();          // waits for what is outstanding, writes averaged grads to
//   .grad optimizer.step();
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <memory>
#include <string>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <torch/csrc/distributed/c10d/Store.hpp>
#include <vector>

#include "common/job_spec.h"
#include "worker/probe.h"

namespace ringmaster::worker {

struct EngineContext {
  c10::intrusive_ptr<c10d::ProcessGroup> group;  // gloo, or nccl in CUDA builds
  c10::intrusive_ptr<c10d::Store> store;         // the job's TCPStore (prefix it before use)
  int rank = 0;
  int worldSize = 1;
  v1::HyperParameters hyper;  // bucket cap, fusion threshold, cycle time, compression, ...
  v1::FaultInjection faults;  // --inject-hang is the engines' business
  Probe* probe = nullptr;     // never null while training
};

// Counters the tests and the summary read.
struct EngineStats {
  uint64_t collectives = 0;     // all-reduce calls issued for gradients
  uint64_t bytesReduced = 0;    // payload bytes of those calls
  uint64_t bucketRebuilds = 0;  // DDP: times the buckets were rebuilt from the observed ready order
  uint64_t negotiations = 0;    // Horovod: cycles that answered tensors through the coordinator (rank 0)
  uint64_t cachedCycles = 0;    // Horovod: cycles that answered tensors from the response cache alone
};

class GradientEngine {
 public:
  virtual ~GradientEngine() = default;

  virtual std::string name() const = 0;
  // Makes every rank start from rank 0's parameters and buffers (and, for horovod, optimizer state).
  virtual void broadcastInitialState(torch::nn::Module& model, torch::optim::Optimizer& optimizer) = 0;
  // Called before each micro-batch's backward. `sync` is false on the micro-batches that only accumulate.
  virtual void beforeBackward(uint64_t step, bool sync) = 0;
  // After the last backward of the step: waits for outstanding communication, leaves averaged gradients in
  // each parameter's .grad. Returns the exposed communication wait (ns).
  virtual int64_t finishBackward() = 0;
  virtual EngineStats stats() const = 0;
};

// The DDP engine: reverse-order buckets (1 MiB first, then bucket_cap_mb), per-parameter hooks, asynchronous
// all-reduce per completed bucket in bucket order, rebuilt after the first step from the observed ready
// order.
std::unique_ptr<GradientEngine> makeDdpEngine(EngineContext context, std::vector<torch::Tensor> parameters);

// The Horovod engine: named requests to a background thread, negotiation through rank 0 every cycle,
// fusion buffers up to fusion_threshold_mb, synchronize before optimizer.step(), stall inspector.
std::unique_ptr<GradientEngine> makeHorovodEngine(
    EngineContext context, std::vector<std::pair<std::string, torch::Tensor>> parameters);

}  // namespace ringmaster::worker
