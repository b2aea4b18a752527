// SPDX-License-Identifier: GPL-3.0-or-later
#include "worker/models.h"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>
#include <vector>

namespace ringmaster::worker {
namespace {

namespace nn = torch::nn;
namespace F = torch::nn::functional;

class Mlp : public Classifier {
 public:
  explicit Mlp(const InputShape& in)
      : fc1_(register_module("fc1", nn::Linear(in.channels * in.height * in.width, 256))),
        fc2_(register_module("fc2", nn::Linear(256, 128))),
        fc3_(register_module("fc3", nn::Linear(128, in.classes))) {}

  torch::Tensor forward(torch::Tensor x) override {
    x = x.flatten(1);
    x = torch::relu(fc1_->forward(x));
    x = torch::relu(fc2_->forward(x));
    return fc3_->forward(x);
  }

 private:
  nn::Linear fc1_, fc2_, fc3_;
};

// Two 3x3 conv + max-pool stages and two fully connected layers: ~90% on Fashion-MNIST in a few epochs and
// cheap enough to train an epoch on two CPU cores in well under a minute.
class Cnn : public Classifier {
 public:
  explicit Cnn(const InputShape& in)
      : conv1_(register_module("conv1", nn::Conv2d(nn::Conv2dOptions(in.channels, 16, 3).padding(1)))),
        conv2_(register_module("conv2", nn::Conv2d(nn::Conv2dOptions(16, 32, 3).padding(1)))),
        fc1_(register_module("fc1", nn::Linear(32 * (in.height / 4) * (in.width / 4), 128))),
        fc2_(register_module("fc2", nn::Linear(128, in.classes))) {}

  torch::Tensor forward(torch::Tensor x) override {
    x = F::max_pool2d(torch::relu(conv1_->forward(x)), F::MaxPool2dFuncOptions(2));
    x = F::max_pool2d(torch::relu(conv2_->forward(x)), F::MaxPool2dFuncOptions(2));
    x = torch::relu(fc1_->forward(x.flatten(1)));
    return fc2_->forward(x);
  }

 private:
  nn::Conv2d conv1_, conv2_;
  nn::Linear fc1_, fc2_;
};

nn::Conv2d conv3x3(int64_t in, int64_t out, int64_t stride = 1) {
  return nn::Conv2d(nn::Conv2dOptions(in, out, 3).stride(stride).padding(1).bias(false));
}

nn::Conv2d conv1x1(int64_t in, int64_t out, int64_t stride = 1) {
  return nn::Conv2d(nn::Conv2dOptions(in, out, 1).stride(stride).bias(false));
}

// torchvision's projection shortcut: 1x1 conv + BatchNorm, as a Sequential named "downsample"
// ("downsample.0").
nn::Sequential downsample(int64_t in, int64_t out, int64_t stride) {
  return nn::Sequential(conv1x1(in, out, stride), nn::BatchNorm2d(out));
}

class ResidualBlock : public nn::Module {
 public:
  virtual torch::Tensor forward(torch::Tensor x) = 0;
};

class BasicBlock : public ResidualBlock {
 public:
  static constexpr int64_t kExpansion = 1;

  BasicBlock(int64_t in, int64_t planes, int64_t stride)
      : conv1_(register_module("conv1", conv3x3(in, planes, stride))),
        bn1_(register_module("bn1", nn::BatchNorm2d(planes))),
        conv2_(register_module("conv2", conv3x3(planes, planes))),
        bn2_(register_module("bn2", nn::BatchNorm2d(planes))) {
    if (stride != 1 || in != planes * kExpansion) {
      downsample_ = register_module("downsample", downsample(in, planes * kExpansion, stride));
    }
  }

  torch::Tensor forward(torch::Tensor x) override {
    torch::Tensor identity = downsample_ ? downsample_->forward(x) : x;
    torch::Tensor out = torch::relu(bn1_->forward(conv1_->forward(x)));
    out = bn2_->forward(conv2_->forward(out));
    return torch::relu(out + identity);
  }

 private:
  nn::Conv2d conv1_;
  nn::BatchNorm2d bn1_;
  nn::Conv2d conv2_;
  nn::BatchNorm2d bn2_;
  nn::Sequential downsample_{nullptr};
};

// ResNet v1.5 bottleneck (stride on the 3x3 conv), as torchvision.
class Bottleneck : public ResidualBlock {
 public:
  static constexpr int64_t kExpansion = 4;

  Bottleneck(int64_t in, int64_t planes, int64_t stride)
      : conv1_(register_module("conv1", conv1x1(in, planes))),
        bn1_(register_module("bn1", nn::BatchNorm2d(planes))),
        conv2_(register_module("conv2", conv3x3(planes, planes, stride))),
        bn2_(register_module("bn2", nn::BatchNorm2d(planes))),
        conv3_(register_module("conv3", conv1x1(planes, planes * kExpansion))),
        bn3_(register_module("bn3", nn::BatchNorm2d(planes * kExpansion))) {
    if (stride != 1 || in != planes * kExpansion) {
      downsample_ = register_module("downsample", downsample(in, planes * kExpansion, stride));
    }
  }

  torch::Tensor forward(torch::Tensor x) override {
    torch::Tensor identity = downsample_ ? downsample_->forward(x) : x;
    torch::Tensor out = torch::relu(bn1_->forward(conv1_->forward(x)));
    out = torch::relu(bn2_->forward(conv2_->forward(out)));
    out = bn3_->forward(conv3_->forward(out));
    return torch::relu(out + identity);
  }

 private:
  nn::Conv2d conv1_;
  nn::BatchNorm2d bn1_;
  nn::Conv2d conv2_;
  nn::BatchNorm2d bn2_;
  nn::Conv2d conv3_;
  nn::BatchNorm2d bn3_;
  nn::Sequential downsample_{nullptr};
};

// A stage of residual blocks; a module list so that names read "layer1.0.conv1".
class Stage : public nn::Module {
 public:
  void add(std::shared_ptr<ResidualBlock> block) {
    blocks_.push_back(register_module(std::to_string(blocks_.size()), std::move(block)));
  }
  torch::Tensor forward(torch::Tensor x) {
    for (auto& block : blocks_) x = block->forward(x);
    return x;
  }

 private:
  std::vector<std::shared_ptr<ResidualBlock>> blocks_;
};

template <typename Block>
class ResNet : public Classifier {
 public:
  ResNet(const InputShape& in, const std::array<int, 4>& depths)
      : smallInput_(std::max(in.height, in.width) <= 64) {
    conv1_ = register_module(
        "conv1", smallInput_
                     ? conv3x3(in.channels, 64)
                     : nn::Conv2d(nn::Conv2dOptions(in.channels, 64, 7).stride(2).padding(3).bias(false)));
    bn1_ = register_module("bn1", nn::BatchNorm2d(64));
    const std::array<int64_t, 4> planes = {64, 128, 256, 512};
    for (size_t i = 0; i < planes.size(); ++i) {
      auto stage = std::make_shared<Stage>();
      for (int b = 0; b < depths[i]; ++b) {
        int64_t stride = (i > 0 && b == 0) ? 2 : 1;
        stage->add(std::make_shared<Block>(inPlanes_, planes[i], stride));
        inPlanes_ = planes[i] * Block::kExpansion;
      }
      stages_.push_back(register_module("layer" + std::to_string(i + 1), stage));
    }
    fc_ = register_module("fc", nn::Linear(512 * Block::kExpansion, in.classes));
    initialise();
  }

  torch::Tensor forward(torch::Tensor x) override {
    x = torch::relu(bn1_->forward(conv1_->forward(x)));
    if (!smallInput_) x = F::max_pool2d(x, F::MaxPool2dFuncOptions(3).stride(2).padding(1));
    for (auto& stage : stages_) x = stage->forward(x);
    x = F::adaptive_avg_pool2d(x, F::AdaptiveAvgPool2dFuncOptions(1)).flatten(1);
    return fc_->forward(x);
  }

 private:
  // torchvision: Kaiming-normal (fan_out, relu) convolutions, BatchNorm weight 1 and bias 0.
  void initialise() {
    torch::NoGradGuard noGrad;
    for (auto& module : modules(/*include_self=*/false)) {
      if (auto* conv = module->as<nn::Conv2d>()) {
        nn::init::kaiming_normal_(conv->weight, 0.0, torch::kFanOut, torch::kReLU);
      } else if (auto* bn = module->as<nn::BatchNorm2d>()) {
        nn::init::ones_(bn->weight);
        nn::init::zeros_(bn->bias);
      }
    }
  }

  bool smallInput_;
  int64_t inPlanes_ = 64;
  nn::Conv2d conv1_{nullptr};
  nn::BatchNorm2d bn1_{nullptr};
  std::vector<std::shared_ptr<Stage>> stages_;
  nn::Linear fc_{nullptr};
};

}  // namespace

std::shared_ptr<Classifier> makeModel(v1::Model model, const InputShape& input) {
  switch (model) {
    case v1::MODEL_MLP:
      return std::make_shared<Mlp>(input);
    case v1::MODEL_CNN:
      if (input.height < 4 || input.width < 4)
        throw std::invalid_argument("cnn needs inputs of at least 4x4");
      return std::make_shared<Cnn>(input);
    case v1::MODEL_RESNET18:
      return std::make_shared<ResNet<BasicBlock>>(input, std::array<int, 4>{2, 2, 2, 2});
    case v1::MODEL_RESNET50:
      return std::make_shared<ResNet<Bottleneck>>(input, std::array<int, 4>{3, 4, 6, 3});
    default:
      throw std::invalid_argument("unknown model " + std::string(modelName(model)));
  }
}

}  // namespace ringmaster::worker
