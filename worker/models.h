// SPDX-License-Identifier: GPL-3.0-or-later
// The models a job can train, in torch::nn: mlp, cnn (a small conv net for 28x28), resnet18 and resnet50 with
// torchvision's topology (BatchNorm, basic blocks / bottlenecks, its initialisation). Parameter names follow
// torchvision's ("layer1.0.conv1.weight"), so the Horovod engine's tensor names read like a PyTorch user's.
#pragma once

#include <torch/torch.h>

#include <memory>

#include "common/job_spec.h"

namespace ringmaster::worker {

// What one sample looks like and how many classes there are.
struct InputShape {
  int64_t channels = 1;
  int64_t height = 28;
  int64_t width = 28;
  int64_t classes = 10;
};

// A model that maps a batch (N x C x H x W) to class logits (N x classes).
class Classifier : public torch::nn::Module {
 public:
  virtual torch::Tensor forward(torch::Tensor images) = 0;
};

// Builds `model` for `input`, initialised from torch's global generator (seed it first).
// ResNets use the CIFAR stem (3x3 conv, stride 1, no max-pool) for inputs up to 64 pixels a side and
// torchvision's ImageNet stem (7x7 conv, stride 2, max-pool) for larger ones.
std::shared_ptr<Classifier> makeModel(v1::Model model, const InputShape& input);

}  // namespace ringmaster::worker
