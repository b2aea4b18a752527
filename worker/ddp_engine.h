// SPDX-License-Identifier: GPL-3.0-or-later
// The DDP engine: what torch.nn.parallel.DistributedDataParallel's reducer does, in our own code.
//
//  - Gradients live in flat per-bucket buffers: each parameter's .grad is a view into its bucket
//    (gradient_as_bucket_view), so the all-reduce result needs no copy back.
//  - Buckets are filled in reverse parameter order (the order backward usually produces gradients): a first
//    bucket of 1 MiB so communication starts early, then buckets of bucket_cap_mb.
//  - A post-hook on each parameter's gradient accumulator divides the fresh gradient by the world size and,
//    when its bucket is complete, starts that bucket's asynchronous all-reduce - strictly in bucket order, so
//    every rank issues the same collectives in the same order.
//  - After the first synchronised step the buckets are rebuilt from the order in which gradients actually
//    became ready (rank 0's order, broadcast, so all ranks agree).
#pragma once

#include <cstddef>
#include <vector>

#include "worker/gradient_engine.h"

namespace ringmaster::worker {

// Splits parameters into buckets. `order` lists parameter indices in the order they should fill buckets; the
// first bucket closes once it holds `firstBucketBytes`, every later one once it holds `capBytes` (a bucket
// may overshoot by its last parameter, as PyTorch's do). A bucket holds one dtype only. Returns parameter
// indices per bucket, in launch order.
std::vector<std::vector<size_t>> assignBuckets(const std::vector<torch::Tensor>& parameters,
                                               const std::vector<size_t>& order, size_t firstBucketBytes,
                                               size_t capBytes);

// The 1 MiB first bucket of PyTorch's reducer (dist._DEFAULT_FIRST_BUCKET_BYTES).
constexpr size_t kFirstBucketBytes = size_t{1} << 20;

class DdpEngine final : public GradientEngine {
 public:
  DdpEngine(EngineContext context, std::vector<torch::Tensor> parameters);
  ~DdpEngine() override;

  DdpEngine(const DdpEngine&) = delete;
  DdpEngine& operator=(const DdpEngine&) = delete;

  std::string name() const override { return "ddp"; }
  void broadcastInitialState(torch::nn::Module& model, torch::optim::Optimizer& optimizer) override;
  void beforeBackward(uint64_t step, bool sync) override;
  int64_t finishBackward() override;
  EngineStats stats() const override;

  // The current bucket assignment (parameter indices per bucket), for tests and the summary.
  std::vector<std::vector<size_t>> bucketLayout() const;

 private:
  class Reducer;
  c10::intrusive_ptr<c10d::ProcessGroup> group_;
  std::unique_ptr<Reducer> reducer_;
};

// Broadcasts `tensors` from rank 0 in few large messages (flattened per dtype, up to 256 MiB each), as DDP's
// _sync_module_states does. Used by both engines.
void broadcastCoalesced(c10d::ProcessGroup& group, std::vector<torch::Tensor> tensors);

}  // namespace ringmaster::worker
