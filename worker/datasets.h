// SPDX-License-Identifier: GPL-3.0-or-later
// Training and test data, decoded once into tensors so that a batch is one index_select.
#pragma once

#include <torch/torch.h>

#include <string>

#include "common/job_spec.h"
#include "worker/models.h"

namespace ringmaster::worker {

// Where Debian's dataset-fashion-mnist package installs the files.
inline constexpr const char* kDefaultFashionMnistDir = "/usr/share/datasets/fashion-mnist";

// Normalised float images (N x C x H x W) and int64 labels (N).
struct TensorDataset {
  torch::Tensor images;
  torch::Tensor labels;
  int64_t size() const { return labels.size(0); }
  // The samples at `indices` (int64), as a contiguous batch.
  std::pair<torch::Tensor, torch::Tensor> batch(const torch::Tensor& indices) const {
    return {images.index_select(0, indices), labels.index_select(0, indices)};
  }
};

struct TrainingData {
  TensorDataset train;
  TensorDataset test;
  InputShape shape;
};

// Samples in the synthetic sets (a fixed random set per seed, like Horovod's synthetic benchmark: pure
// throughput).
inline constexpr int64_t kSyntheticTrainSize = 2048;
inline constexpr int64_t kSyntheticTestSize = 512;

// Loads the spec's dataset: fashion-mnist from data_dir (default kDefaultFashionMnistDir), cifar10 from
// data_dir, synthetic drawn from the seed (1 x 28 x 28 for mlp and cnn, 3 x 32 x 32 for the ResNets). Throws
// InputError naming the file when one is missing or corrupt.
TrainingData loadTrainingData(const v1::JobSpec& spec);

}  // namespace ringmaster::worker
