// SPDX-License-Identifier: GPL-3.0-or-later
#include "worker/torchscript_model.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <ext/stdio_filebuf.h>
#include <filesystem>
#include <istream>

#include "common/error.h"
#include "common/npy_array.h"
#include "worker/torch_error.h"

namespace ringmaster::worker {
namespace {

constexpr const char* kHowToSave = "save it with torch.jit.script(model).save(FILE)";

// nn::Modules over a scripted module's own parameters and buffers (the same tensors), one per submodule.
class ScriptedPart : public torch::nn::Module {
 public:
  explicit ScriptedPart(const torch::jit::Module& module) { mirror(*this, module); }

  static void mirror(torch::nn::Module& into, const torch::jit::Module& module) {
    for (const auto& parameter : module.named_parameters(/*recurse=*/false)) {
      into.register_parameter(parameter.name, parameter.value, parameter.value.requires_grad());
    }
    for (const auto& buffer : module.named_buffers(/*recurse=*/false)) {
      into.register_buffer(buffer.name, buffer.value);
    }
    for (const auto& child : module.named_children()) {
      into.register_module(child.name, std::make_shared<ScriptedPart>(child.value));
    }
  }
};

}  // namespace

TorchScriptModel::TorchScriptModel(const std::string& path, const AllowedFolders& folders) : path_(path) {
  FileDescriptor fd = folders.open(path, O_RDONLY);
  if (!fd && errno != ENOENT) throw InputError(path + ": " + std::strerror(errno));
  struct stat info {};
  if (!fd || ::fstat(fd.get(), &info) != 0 || !S_ISREG(info.st_mode)) {
    throw InputError(path + ": no such model file; " + kHowToSave);
  }
  try {
    // The file as opened beneath the allowed folders, not its path again.
    __gnu_cxx::stdio_filebuf<char> buffer(fd.release(), std::ios::in | std::ios::binary);
    std::istream in(&buffer);
    module_ = torch::jit::load(in, torch::kCPU);
  } catch (const std::exception& e) {
    throw InputError(path + ": not a TorchScript file (" + torchErrorReason(e) + "); " + kHowToSave +
                     " (a state_dict from torch.save is not enough)");
  }
  if (module_.find_method("forward") == c10::nullopt) {
    throw InputError(path + ": the TorchScript module has no forward method; " + kHowToSave);
  }
  ScriptedPart::mirror(*this, module_);
  const auto parameters = named_parameters(/*recurse=*/true);
  if (parameters.is_empty()) {
    throw InputError(path +
                     ": the module has no parameters to train; check that its layers are registered "
                     "(nn.Module attributes, nn.ModuleList) before scripting");
  }
  for (const auto& parameter : parameters) {
    if (!parameter.value().requires_grad()) {
      throw InputError(
          path + ": parameter '" + parameter.key() +
          "' does not require grad; Ringmaster trains every parameter: set requires_grad=True before "
          "saving, or keep fixed values in a buffer (register_buffer)");
    }
  }
}

torch::Tensor TorchScriptModel::forward(torch::Tensor inputs) {
  c10::IValue output = module_.forward({std::move(inputs)});
  if (!output.isTensor()) {
    throw InputError(path_ + ": forward returned " + output.tagKind() +
                     ", not one tensor; return the model's "
                     "output (class scores or predictions) as a tensor");
  }
  return output.toTensor();
}

void TorchScriptModel::train(bool on) {
  module_.train(on);
  torch::nn::Module::train(on);
}

torch::Tensor trainingLoss(v1::Loss loss, const torch::Tensor& output, const torch::Tensor& targets) {
  if (loss == v1::LOSS_MSE) return torch::nn::functional::mse_loss(output, targets);
  return torch::nn::functional::cross_entropy(output, targets);
}

std::shared_ptr<Classifier> makeTrainingModel(const v1::JobSpec& spec, const TrainingData& data,
                                              const AllowedFolders& folders) {
  torch::manual_seed(spec.hyper().seed());
  std::shared_ptr<Classifier> model;
  if (spec.model() == v1::MODEL_TORCHSCRIPT) {
    model = std::make_shared<TorchScriptModel>(spec.model_path(), folders);
  } else {
    model = makeModel(spec.model(), data.shape);
  }
  const std::string modelDescription =
      spec.model() == v1::MODEL_TORCHSCRIPT ? spec.model_path() : modelLabel(spec);
  const std::string inputs = data.trainInputsFile.empty() ? std::string(datasetName(spec.dataset())) + " data"
                                                          : data.trainInputsFile;
  const std::string targets = spec.dataset() == v1::DATASET_NPY
                                  ? (std::filesystem::path(spec.data_dir()) / "train_y.npy").string()
                                  : std::string(datasetName(spec.dataset())) + " labels";

  // Two samples in eval mode without gradients: BatchNorm statistics and the parameters stay as they are.
  torch::NoGradGuard noGrad;
  model->eval();
  const int64_t count = std::min<int64_t>(2, data.train.size());
  auto [batch, labels] = data.train.batch(torch::arange(count, torch::kLong));
  torch::Tensor output;
  try {
    output = model->forward(batch);
  } catch (const InputError&) {
    throw;
  } catch (const std::exception& e) {
    throw InputError(modelDescription + ": forward failed on a batch of shape " +
                     formatShape(batch.sizes().vec()) + " from " + inputs + " (" + torchErrorReason(e) +
                     "); give data of the shape the model expects, or export the model for this shape");
  }
  model->train();

  if (spec.loss() == v1::LOSS_CROSS_ENTROPY) {
    if (labels.scalar_type() != torch::kLong) {
      throw InputError(targets +
                       ": holds float targets, but cross-entropy needs int64 class labels; give --loss mse, "
                       "or save the labels as int64");
    }
    if (output.dim() != 2 || output.size(0) != count) {
      throw InputError(modelDescription + ": output of shape " + formatShape(output.sizes().vec()) +
                       " for a batch of " + std::to_string(count) +
                       "; cross-entropy needs class scores (batch, classes), or give --loss mse");
    }
    int64_t largest = data.train.labels.max().item<int64_t>();
    if (data.test.size() > 0) largest = std::max(largest, data.test.labels.max().item<int64_t>());
    if (largest >= output.size(1)) {
      throw InputError(targets + ": holds label " + std::to_string(largest) + " but " + modelDescription +
                       " scores " + std::to_string(output.size(1)) +
                       " classes (labels must be below the number of classes)");
    }
  } else if (labels.scalar_type() != torch::kFloat || output.sizes() != labels.sizes()) {
    throw InputError(modelDescription + ": output of shape " + formatShape(output.sizes().vec()) +
                     " against targets " +
                     std::string(labels.scalar_type() == torch::kFloat ? "float32 " : "int64 ") +
                     formatShape(labels.sizes().vec()) + " from " + targets +
                     "; mse needs float32 targets of the output's shape");
  }
  return model;
}

}  // namespace ringmaster::worker
