// SPDX-License-Identifier: GPL-3.0-or-later
#include "worker/datasets.h"

#include <ATen/CPUGeneratorImpl.h>

#include <array>

#include "common/error.h"
#include "worker/dataset_files.h"

namespace ringmaster::worker {
namespace {

// Bytes to normalised floats, per channel: (x / 255 - mean) / std, through a 256-entry table per channel so
// that the whole set is converted in one pass with one allocation (Fashion-MNIST's training set is 188 MB as
// floats).
TensorDataset toTensors(LabelledImages&& split, const std::vector<double>& mean,
                        const std::vector<double>& std) {
  const int64_t n = split.count;
  const int64_t channels = split.channels;
  const int64_t pixelsPerChannel = int64_t{split.height} * split.width;
  std::vector<std::array<float, 256>> table(static_cast<size_t>(channels));
  for (int64_t c = 0; c < channels; ++c) {
    for (int v = 0; v < 256; ++v) {
      table[c][v] = static_cast<float>((v / 255.0 - mean[c]) / std[c]);
    }
  }
  TensorDataset data;
  data.images = torch::empty({n, channels, int64_t{split.height}, int64_t{split.width}}, torch::kFloat);
  float* out = data.images.data_ptr<float>();
  const uint8_t* in = split.pixels.data();
  for (int64_t image = 0; image < n; ++image) {
    for (int64_t c = 0; c < channels; ++c) {
      const auto& lookup = table[c];
      for (int64_t p = 0; p < pixelsPerChannel; ++p) *out++ = lookup[*in++];
    }
  }
  data.labels = torch::from_blob(split.labels.data(), {n}, torch::kUInt8).to(torch::kLong);
  return data;
}

TensorDataset synthetic(int64_t size, const InputShape& shape, at::Generator& generator) {
  TensorDataset data;
  data.images = torch::randn({size, shape.channels, shape.height, shape.width}, generator);
  data.labels = torch::randint(0, shape.classes, {size}, generator, torch::kLong);
  return data;
}

}  // namespace

TrainingData loadTrainingData(const v1::JobSpec& spec) {
  TrainingData data;
  switch (spec.dataset()) {
    case v1::DATASET_SYNTHETIC: {
      bool resnet = spec.model() == v1::MODEL_RESNET18 || spec.model() == v1::MODEL_RESNET50;
      data.shape = resnet ? InputShape{3, 32, 32, 10} : InputShape{1, 28, 28, 10};
      at::Generator generator = at::detail::createCPUGenerator(spec.hyper().seed());
      data.train = synthetic(kSyntheticTrainSize, data.shape, generator);
      data.test = synthetic(kSyntheticTestSize, data.shape, generator);
      break;
    }
    case v1::DATASET_FASHION_MNIST: {
      std::string dir = spec.data_dir().empty() ? kDefaultFashionMnistDir : spec.data_dir();
      const std::vector<double> mean = {0.2860}, std = {0.3530};
      data.train = toTensors(
          readIdxSplit(fashionMnistFile(dir, "train", "images"), fashionMnistFile(dir, "train", "labels")),
          mean, std);
      data.test = toTensors(
          readIdxSplit(fashionMnistFile(dir, "t10k", "images"), fashionMnistFile(dir, "t10k", "labels")),
          mean, std);
      data.shape = InputShape{1, data.train.images.size(2), data.train.images.size(3), 10};
      if (data.test.images.sizes() !=
          torch::IntArrayRef({data.test.size(), 1, data.shape.height, data.shape.width})) {
        throw InputError(fashionMnistFile(dir, "t10k", "images") +
                         ": image size differs from the training set's");
      }
      break;
    }
    case v1::DATASET_CIFAR10: {
      if (spec.data_dir().empty()) {
        throw InputError(
            "--data cifar10 needs --data-dir with the CIFAR-10 binary batches (data_batch_1.bin, ...)");
      }
      const std::vector<double> mean = {0.4914, 0.4822, 0.4465}, std = {0.2470, 0.2435, 0.2616};
      data.train = toTensors(readCifarBatches(cifarTrainFiles(spec.data_dir())), mean, std);
      data.test = toTensors(readCifarBatches({cifarTestFile(spec.data_dir())}), mean, std);
      data.shape = InputShape{3, 32, 32, 10};
      break;
    }
    default:
      throw InputError("unknown dataset " + std::string(datasetName(spec.dataset())));
  }
  return data;
}

}  // namespace ringmaster::worker
