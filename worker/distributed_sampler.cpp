// SPDX-License-Identifier: GPL-3.0-or-later
#include "worker/distributed_sampler.h"

#include <ATen/CPUGeneratorImpl.h>

#include <stdexcept>

namespace ringmaster::worker {

DistributedSampler::DistributedSampler(int64_t datasetSize, int worldSize, int rank, bool shuffle,
                                       uint64_t seed)
    : datasetSize_(datasetSize),
      worldSize_(worldSize),
      rank_(rank),
      shuffle_(shuffle),
      seed_(seed),
      numSamples_((datasetSize + worldSize - 1) / worldSize) {
  if (datasetSize < 1) throw std::invalid_argument("DistributedSampler: empty dataset");
  if (worldSize < 1 || rank < 0 || rank >= worldSize)
    throw std::invalid_argument("DistributedSampler: bad rank");
}

torch::Tensor DistributedSampler::indices() const {
  torch::Tensor order;
  if (shuffle_) {
    at::Generator generator = at::detail::createCPUGenerator(seed_ + epoch_);
    order = torch::randperm(datasetSize_, generator, torch::kLong);
  } else {
    order = torch::arange(datasetSize_, torch::kLong);
  }
  const int64_t totalSize = numSamples_ * worldSize_;
  if (totalSize > datasetSize_) {
    // Wrap around as often as needed (PyTorch repeats the whole list when the padding is longer than it).
    const int64_t copies = (totalSize + datasetSize_ - 1) / datasetSize_;
    order = order.repeat({copies}).slice(0, 0, totalSize);
  }
  return order.slice(0, rank_, totalSize, worldSize_).contiguous();
}

torch::Tensor evaluationShard(int64_t datasetSize, int worldSize, int rank) {
  return torch::arange(rank, datasetSize, worldSize, torch::kLong);
}

}  // namespace ringmaster::worker
