// SPDX-License-Identifier: GPL-3.0-or-later
// torch.utils.data.distributed.DistributedSampler, exactly: each epoch the dataset's indices are shuffled by
// torch.randperm with a generator seeded by seed + epoch (the same permutation PyTorch draws), padded by
// wrapping around to a multiple of the world size, and rank r takes indices[r : total : world].
#pragma once

#include <torch/torch.h>

#include <cstdint>

namespace ringmaster::worker {

class DistributedSampler {
 public:
  DistributedSampler(int64_t datasetSize, int worldSize, int rank, bool shuffle, uint64_t seed);

  // Re-seeds the shuffle for `epoch` (call it before each epoch, as with PyTorch's set_epoch).
  void setEpoch(uint64_t epoch) { epoch_ = epoch; }
  // Samples this rank draws per epoch: ceil(datasetSize / worldSize).
  int64_t numSamples() const { return numSamples_; }
  // This rank's indices for the current epoch (int64, numSamples() long).
  torch::Tensor indices() const;

 private:
  int64_t datasetSize_;
  int worldSize_;
  int rank_;
  bool shuffle_;
  uint64_t seed_;
  uint64_t epoch_ = 0;
  int64_t numSamples_;
};

// Rank `rank`'s share of an evaluation set: indices rank, rank + world, ... without padding, so that the
// shares add up to every sample exactly once.
torch::Tensor evaluationShard(int64_t datasetSize, int worldSize, int rank);

}  // namespace ringmaster::worker
