// SPDX-License-Identifier: GPL-3.0-or-later
// Checkpoints and parameter dumps. Checkpoints: model parameters and buffers, optimizer state and the
// position in training, in one LibTorch archive. Rank 0 writes it atomically (temporary file, fsync, rename);
// on resume rank 0 reads it and broadcasts the bytes, so every rank restores the same state even when only
// rank 0's host has the file. The checkpoint folder is opened beneath the folders the agent allows each time
// a checkpoint is written or read, and the files in it through that folder.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <optional>
#include <string>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <vector>

#include "common/allowed_folders.h"

namespace ringmaster::worker {

// Where training stands after a completed optimizer step.
struct TrainingPosition {
  uint64_t step = 0;         // optimizer steps completed
  uint32_t epoch = 0;        // the epoch the next step belongs to
  uint64_t stepInEpoch = 0;  // optimizer steps of that epoch already done
};

// `dir`/checkpoint.pt
std::string checkpointPath(const std::string& dir);

// Writes the checkpoint for `modelName` (creating `dir` beneath `folders` if needed), replacing the previous
// one atomically. Throws InputError naming the file when it cannot, or when `dir` leads out of `folders`.
void saveCheckpoint(const AllowedFolders& folders, const std::string& dir, const std::string& modelName,
                    const torch::nn::Module& model, const torch::optim::Optimizer& optimizer,
                    const TrainingPosition& position);

// Restores model, optimizer and position on every rank from rank 0's checkpoint file. Collective: every rank
// calls it. Returns nullopt on every rank when rank 0 has no checkpoint file; throws InputError when it is
// corrupt or belongs to another model (on every rank), and on rank 0 when `dir` leads out of `folders`.
std::optional<TrainingPosition> restoreCheckpoint(const AllowedFolders& folders, const std::string& dir,
                                                  const std::string& modelName, torch::nn::Module& model,
                                                  torch::optim::Optimizer& optimizer,
                                                  c10d::ProcessGroup& group);

// Every parameter as float32, in parameter order, concatenated (what --dump-params writes, little-endian).
std::vector<float> flatParameters(const torch::nn::Module& model);
// FNV-1a 64 of flatParameters' bytes, as 16 hex digits: equal on every rank when the ranks agree bit for bit.
std::string parameterChecksum(const torch::nn::Module& model);
// Writes flatParameters raw to `path`. Throws InputError naming it when it cannot be written.
void dumpParameters(const torch::nn::Module& model, const std::string& path);

}  // namespace ringmaster::worker
