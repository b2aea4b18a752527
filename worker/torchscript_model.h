// SPDX-License-Identifier: GPL-3.0-or-later
// The model a rank trains: a built-in one or the user's TorchScript module
// (torch.jit.script(model).save(FILE)), the loss on its output, and a check, before any rank waits for the
// others, that model, data and loss fit.
//
// A TorchScript module is a torch::jit::Module; the trainer, the engines and checkpoints work on a
// torch::nn::Module. TorchScriptModel mirrors the scripted module's hierarchy as nn::Modules that hold the
// very same parameter and buffer tensors, so gradients, in-place updates, broadcasts and checkpoint loads
// reach the scripted module, and parameters keep their Python names ("layer1.0.conv1.weight") and order
// (module.parameters()).
#pragma once

#include <torch/script.h>
#include <torch/torch.h>

#include <memory>
#include <string>

#include "common/allowed_folders.h"
#include "common/job_spec.h"
#include "worker/datasets.h"
#include "worker/models.h"

namespace ringmaster::worker {

class TorchScriptModel : public Classifier {
 public:
  // Loads `path`, opened beneath `folders`. Throws InputError naming it when it is missing, outside
  // `folders`, not TorchScript, has no parameters or has one that does not require grad.
  TorchScriptModel(const std::string& path, const AllowedFolders& folders);

  // The module's forward on `inputs`; its output must be one tensor.
  torch::Tensor forward(torch::Tensor inputs) override;
  // Train or eval mode for the scripted module (BatchNorm, dropout) as for this one.
  void train(bool on = true) override;

 private:
  std::string path_;
  torch::jit::Module module_;
};

// What the step minimises: cross-entropy of class scores against int64 labels, or the mean squared error.
torch::Tensor trainingLoss(v1::Loss loss, const torch::Tensor& output, const torch::Tensor& targets);

// The spec's model for `data`, initialised from the seed (built-in) or as saved (TorchScript, opened beneath
// `folders`), after a
// forward and the loss on two training samples. Throws InputError saying what does not fit: the shape the
// model got and why it failed, labels beyond its classes, float targets for cross-entropy, an output shape
// unlike the targets' for mse.
std::shared_ptr<Classifier> makeTrainingModel(const v1::JobSpec& spec, const TrainingData& data,
                                              const AllowedFolders& folders);

}  // namespace ringmaster::worker
