// SPDX-License-Identifier: GPL-3.0-or-later
// What a host offers a job: cores, memory, the worker's build, datasets, and what stands in the way
// (preflight).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ringmaster/v1/agent.pb.h"

namespace ringmaster::agent {

namespace v1 = ::ringmaster::v1;

// What `ringmaster-worker --version` says, e.g. "ringmaster-worker 0.1.0 (LibTorch 1.13.1, backends: gloo,
// nccl)".
struct WorkerBuild {
  std::string ringmasterVersion;
  std::string torchVersion;
  std::vector<v1::Backend> backends;
};
std::optional<WorkerBuild> parseWorkerVersion(const std::string& text);

// Where Debian's dataset-fashion-mnist package puts the files.
inline constexpr const char* kPackagedFashionMnistDir = "/usr/share/datasets/fashion-mnist";

// Inspects this host. Asks the worker for its build (a few hundred milliseconds: LibTorch loads).
v1::HostInfo collectHostInfo(const std::string& workerPath, const std::string& stateDir);

// Empty when this host can run `spec`, else why not (e.g. the backend was not built, the dataset is missing).
std::string checkHostCanRun(const v1::HostInfo& host, const v1::JobSpec& spec);

}  // namespace ringmaster::agent
