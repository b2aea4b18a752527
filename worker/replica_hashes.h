// SPDX-License-Identifier: GPL-3.0-or-later
// A model's parameters as hashes, for the console to compare across ranks (ReplicaHashes, diagnosis/
// replica_drift.h). The built-in engines keep parameters equal across ranks (broadcast at the start, every
// gradient averaged); BatchNorm statistics stay each rank's own until rank 0's are broadcast for evaluation,
// so buffers are not compared.
#pragma once

#include <torch/nn/module.h>

#include <cstdint>

#include "ringmaster/v1/records.pb.h"

namespace ringmaster::worker {

// FNV-1a (64-bit) of a tensor's bytes, a word at a time; a device tensor is copied to the host first.
uint64_t tensorHash(const torch::Tensor& tensor);

// The module's parameters, in named_parameters() order, as names and hashes taken before `step`'s forward.
v1::ReplicaHashes replicaHashes(const torch::nn::Module& model, uint64_t step);

}  // namespace ringmaster::worker
