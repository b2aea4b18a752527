// SPDX-License-Identifier: GPL-3.0-or-later
// Tensor fusion, as Horovod does it: many small gradients are packed into one flat buffer so that a single
// all-reduce carries them, then unpacked.
#pragma once

#include <torch/torch.h>

#include <cstddef>
#include <mutex>
#include <vector>

namespace ringmaster::worker {

// Groups `tensors` (already in reduction order) into fusion buffers. A buffer holds one dtype and at most
// `thresholdBytes` of payload counted at `wireElementSize` bytes per element (0: each tensor's own size); a
// tensor that does not fit is left for a later buffer while smaller ones behind it may still join (Horovod's
// look-ahead). A tensor larger than the threshold travels alone; thresholdBytes 0 disables fusion.
std::vector<std::vector<size_t>> planFusion(const std::vector<torch::Tensor>& tensors, size_t thresholdBytes,
                                            size_t wireElementSize = 0);

// Copies `sources` one after another into the front of `buffer` (casting to its dtype).
void packFusionBuffer(const std::vector<torch::Tensor>& sources, torch::Tensor& buffer);
// Copies the front of `buffer` back into `targets` (casting to theirs), dividing by `divisor` unless it is 1.
void unpackFusionBuffer(const torch::Tensor& buffer, std::vector<torch::Tensor>& targets, int64_t divisor);

// Fusion buffers are reused: allocating (and first touching) a large buffer every cycle costs more than the
// copies themselves.
class FusionBufferPool {
 public:
  explicit FusionBufferPool(size_t keep = 4) : keep_(keep) {}
  // A 1-D buffer of exactly `elements` (a view of a pooled allocation).
  torch::Tensor acquire(c10::ScalarType type, int64_t elements);
  void release(const torch::Tensor& buffer);

 private:
  std::mutex mutex_;
  size_t keep_;
  std::vector<torch::Tensor> free_;   // whole allocations ready for reuse
  std::vector<torch::Tensor> inUse_;  // whole allocations handed out
};

}  // namespace ringmaster::worker
