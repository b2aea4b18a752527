// SPDX-License-Identifier: GPL-3.0-or-later
#include "worker/datasets.h"

#include <ATen/CPUGeneratorImpl.h>
#include <fcntl.h>

#include <array>
#include <cerrno>
#include <filesystem>

#include "common/error.h"
#include "common/npy_array.h"
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

// A .npy file's values as a tensor over the mapped file, without a copy; the mapping lives as long as the
// tensor.
torch::Tensor mappedTensor(const std::string& path, const AllowedFolders& folders) {
  auto array = std::make_shared<NpyArray>(path, folders);
  if (array->shape()[0] == 0)
    throw InputError(path + ": holds no samples (its shape is " + formatShape(array->shape()) + ")");
  const torch::ScalarType type = array->type() == NpyType::Float32 ? torch::kFloat
                                 : array->type() == NpyType::UInt8 ? torch::kByte
                                                                   : torch::kLong;
  return torch::from_blob(
      array->data(), array->shape(), [array](void*) {}, torch::TensorOptions().dtype(type));
}

// DIR/<split>_x.npy and DIR/<split>_y.npy, checked against each other.
TensorDataset npySplit(const std::string& dir, const std::string& split, const AllowedFolders& folders) {
  const std::string xPath = (std::filesystem::path(dir) / (split + "_x.npy")).string();
  const std::string yPath = (std::filesystem::path(dir) / (split + "_y.npy")).string();
  TensorDataset data;
  data.images = mappedTensor(xPath, folders);
  data.labels = mappedTensor(yPath, folders);
  if (data.images.scalar_type() == torch::kLong) {
    throw InputError(xPath +
                     ": holds int64 values; inputs must be float32 or uint8 (save x.astype(numpy.float32))");
  }
  if (data.labels.scalar_type() == torch::kByte) {
    throw InputError(yPath +
                     ": holds uint8 values; save class labels as int64 (y.astype(numpy.int64)) or "
                     "regression targets as float32");
  }
  if (data.labels.size(0) != data.images.size(0)) {
    throw InputError(yPath + ": holds " + std::to_string(data.labels.size(0)) + " rows but " + xPath +
                     " holds " + std::to_string(data.images.size(0)) +
                     " samples; both need one row per sample");
  }
  if (data.labels.scalar_type() == torch::kLong) {
    if (data.labels.dim() != 1) {
      throw InputError(yPath + ": int64 labels must have shape (N,), not " +
                       formatShape(data.labels.sizes().vec()));
    }
    if (const int64_t lowest = data.labels.min().item<int64_t>(); lowest < 0) {
      throw InputError(yPath + ": holds label " + std::to_string(lowest) + "; class labels count from 0");
    }
  }
  return data;
}

// Whether `path` is there, asked beneath `folders` (a link out of them is refused, not taken for absent).
bool present(const std::string& path, const AllowedFolders& folders) {
  FileDescriptor fd = folders.open(path, O_PATH);
  return fd || errno != ENOENT;
}

TrainingData loadNpy(const v1::JobSpec& spec, const AllowedFolders& folders) {
  namespace fs = std::filesystem;
  const std::string& dir = spec.data_dir();
  TrainingData data;
  data.train = npySplit(dir, "train", folders);
  data.trainInputsFile = (fs::path(dir) / "train_x.npy").string();
  const bool testX = present((fs::path(dir) / "test_x.npy").string(), folders),
             testY = present((fs::path(dir) / "test_y.npy").string(), folders);
  if (testX != testY) {
    throw InputError((fs::path(dir) / (testX ? "test_y.npy" : "test_x.npy")).string() +
                     ": missing; give both test_x.npy and test_y.npy, or neither");
  }
  if (testX) {
    data.test = npySplit(dir, "test", folders);
    const auto trainSample = data.train.images.sizes().slice(1),
               testSample = data.test.images.sizes().slice(1);
    if (trainSample != testSample || data.test.images.scalar_type() != data.train.images.scalar_type() ||
        data.test.labels.scalar_type() != data.train.labels.scalar_type()) {
      throw InputError((fs::path(dir) / "test_x.npy").string() + ": its samples (" +
                       formatShape(data.test.images.sizes().vec()) +
                       ") or types differ from the training set's (" +
                       formatShape(data.train.images.sizes().vec()) + ")");
    }
  }
  if (spec.model() != v1::MODEL_TORCHSCRIPT) {
    if (data.train.images.dim() != 4 || data.train.labels.scalar_type() != torch::kLong) {
      throw InputError(data.trainInputsFile + ": the built-in " + std::string(modelName(spec.model())) +
                       " needs images (N, C, H, W) with int64 labels; it holds " +
                       formatShape(data.train.images.sizes().vec()) +
                       " (use --model FILE.pt for a model of your own)");
    }
    int64_t classes = data.train.labels.max().item<int64_t>() + 1;
    if (data.test.size() > 0) classes = std::max(classes, data.test.labels.max().item<int64_t>() + 1);
    data.shape = InputShape{data.train.images.size(1), data.train.images.size(2), data.train.images.size(3),
                            std::max<int64_t>(classes, 2)};
  }
  return data;
}

}  // namespace

TrainingData loadTrainingData(const v1::JobSpec& spec, const AllowedFolders& folders) {
  TrainingData data;
  switch (spec.dataset()) {
    case v1::DATASET_SYNTHETIC: {
      bool resnet = spec.model() == v1::MODEL_RESNET18 || spec.model() == v1::MODEL_RESNET50;
      data.shape = resnet ? InputShape{3, 32, 32, 10} : InputShape{1, 28, 28, 10};
      // --data synthetic:CxHxW: the shape the user's model takes (a 3-channel TorchScript model).
      if (spec.synthetic_shape_size() == 3)
        data.shape =
            InputShape{spec.synthetic_shape(0), spec.synthetic_shape(1), spec.synthetic_shape(2), 10};
      at::Generator generator = at::detail::createCPUGenerator(spec.hyper().seed());
      data.train = synthetic(kSyntheticTrainSize, data.shape, generator);
      data.test = synthetic(kSyntheticTestSize, data.shape, generator);
      break;
    }
    case v1::DATASET_FASHION_MNIST: {
      std::string dir = spec.data_dir().empty() ? kDefaultFashionMnistDir : spec.data_dir();
      // The packaged files are the host's, not a folder the job names.
      const AllowedFolders& from = spec.data_dir().empty() ? AllowedFolders::anywhere() : folders;
      const std::vector<double> mean = {0.2860}, std = {0.3530};
      data.train = toTensors(readIdxSplit(fashionMnistFile(dir, "train", "images"),
                                          fashionMnistFile(dir, "train", "labels"), 10, from),
                             mean, std);
      data.test = toTensors(readIdxSplit(fashionMnistFile(dir, "t10k", "images"),
                                         fashionMnistFile(dir, "t10k", "labels"), 10, from),
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
      data.train = toTensors(readCifarBatches(cifarTrainFiles(spec.data_dir()), folders), mean, std);
      data.test = toTensors(readCifarBatches({cifarTestFile(spec.data_dir())}, folders), mean, std);
      data.shape = InputShape{3, 32, 32, 10};
      break;
    }
    case v1::DATASET_NPY:
      data = loadNpy(spec, folders);
      break;
    default:
      throw InputError("unknown dataset " + std::string(datasetName(spec.dataset())));
  }
  return data;
}

}  // namespace ringmaster::worker
