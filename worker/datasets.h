// SPDX-License-Identifier: GPL-3.0-or-later
// Training and test data, decoded once into tensors so that a batch is one index_select.
#pragma once

#include <torch/torch.h>

#include <string>

#include "common/allowed_folders.h"
#include "common/job_spec.h"
#include "worker/models.h"

namespace ringmaster::worker {

// Where Debian's dataset-fashion-mnist package installs the files.
inline constexpr const char* kDefaultFashionMnistDir = "/usr/share/datasets/fashion-mnist";

// Inputs (N x ...: normalised float images N x C x H x W for the built-in sets; float32 or uint8 for npy
// data, then memory-mapped) and targets (int64 labels N, or float32 targets N x ... for --loss mse).
struct TensorDataset {
  torch::Tensor images;
  torch::Tensor labels;
  int64_t size() const { return labels.defined() ? labels.size(0) : 0; }
  // The samples at `indices` (int64), as a contiguous batch; uint8 inputs become floats in [0, 1].
  std::pair<torch::Tensor, torch::Tensor> batch(const torch::Tensor& indices) const {
    torch::Tensor inputs = images.index_select(0, indices);
    if (inputs.scalar_type() == torch::kByte) inputs = inputs.to(torch::kFloat).div_(255);
    return {std::move(inputs), labels.index_select(0, indices)};
  }
};

struct TrainingData {
  TensorDataset train;
  TensorDataset test;           // empty when npy data has no test_x.npy / test_y.npy
  InputShape shape;             // for the built-in models; a TorchScript model takes the inputs as they are
  std::string trainInputsFile;  // where the training inputs came from, for messages ("" for synthetic)
};

// Samples in the synthetic sets (a fixed random set per seed, like Horovod's synthetic benchmark: pure
// throughput).
inline constexpr int64_t kSyntheticTrainSize = 2048;
inline constexpr int64_t kSyntheticTestSize = 512;

// Loads the spec's dataset: fashion-mnist from data_dir (default kDefaultFashionMnistDir), cifar10 from
// data_dir, synthetic drawn from the seed (1 x 28 x 28 for mlp, cnn and TorchScript models, 3 x 32 x 32 for
// the ResNets), npy from data_dir (memory-mapped; the built-in models need N x C x H x W inputs and int64
// labels, classes = largest label + 1). The files of a data_dir the spec names are opened beneath `folders`.
// Throws InputError naming the file when one is missing, corrupt, does not fit or is outside `folders`.
TrainingData loadTrainingData(const v1::JobSpec& spec, const AllowedFolders& folders);

}  // namespace ringmaster::worker
