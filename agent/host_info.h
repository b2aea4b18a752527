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

// Where the NVIDIA driver lists one folder per GPU it drives, each with an `information` file
// ("Model: NVIDIA H200").
inline constexpr const char* kNvidiaGpusDir = "/proc/driver/nvidia/gpus";

// The GPUs the NVIDIA driver in `driverDir` drives, by model name; none where there is no driver.
std::vector<v1::GpuInfo> nvidiaGpus(const std::string& driverDir = kNvidiaGpusDir);

// Why the agent could not keep job folders in `stateDir`, or empty: it must be a writable folder, or one the
// agent can create (its nearest existing parent is a writable folder).
std::string stateDirProblem(const std::string& stateDir);

// Inspects this host. Asks the worker for its build (a few hundred milliseconds: LibTorch loads).
v1::HostInfo collectHostInfo(const std::string& workerPath, const std::string& stateDir);

// Empty when this host can run `spec`, else why not (e.g. the backend was not built or, for nccl, there is no
// GPU; the dataset is missing).
std::string checkHostCanRun(const v1::HostInfo& host, const v1::JobSpec& spec);

}  // namespace ringmaster::agent
