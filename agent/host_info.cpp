// SPDX-License-Identifier: GPL-3.0-or-later
#include "agent/host_info.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <thread>

#include "agent/child_process.h"
#include "common/host_backends.h"
#include "common/job_spec.h"
#include "ringmaster/version.h"

namespace ringmaster::agent {

std::optional<WorkerBuild> parseWorkerVersion(const std::string& text) {
  static const std::regex pattern(R"(ringmaster-worker (\S+) \(LibTorch ([^,]+), backends: ([^)]*)\))");
  std::smatch m;
  if (!std::regex_search(text, m, pattern)) return std::nullopt;
  WorkerBuild build{m[1], m[2], {}};
  std::string list = m[3];
  size_t start = 0;
  while (start <= list.size()) {
    size_t comma = list.find(',', start);
    std::string name = list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    name.erase(0, name.find_first_not_of(' '));
    name.erase(name.find_last_not_of(' ') + 1);
    if (auto backend = parseBackend(name)) build.backends.push_back(*backend);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return build;
}

std::vector<v1::GpuInfo> nvidiaGpus(const std::string& driverDir) {
  namespace fs = std::filesystem;
  std::vector<v1::GpuInfo> gpus;
  std::error_code ec;
  std::vector<fs::path> folders;
  for (fs::directory_iterator it(driverDir, ec), end; !ec && it != end; it.increment(ec)) {
    folders.push_back(it->path());
  }
  std::sort(folders.begin(), folders.end());  // by PCI bus id, as CUDA numbers them by default
  for (const auto& folder : folders) {
    v1::GpuInfo gpu;
    std::ifstream information(folder / "information");
    for (std::string line; std::getline(information, line);) {
      if (line.rfind("Model:", 0) != 0) continue;
      const size_t start = line.find_first_not_of(" \t", 6);
      if (start != std::string::npos) gpu.set_name(line.substr(start));
      break;
    }
    if (gpu.name().empty()) gpu.set_name("NVIDIA GPU " + folder.filename().string());
    gpus.push_back(gpu);
  }
  return gpus;
}

std::string stateDirProblem(const std::string& stateDir) {
  namespace fs = std::filesystem;
  if (stateDir.empty()) return "the agent has no state directory: give --state-dir a writable folder";
  // The agent makes the folder at its first job: a folder that is not there yet is fine where it can be made.
  fs::path folder = fs::absolute(stateDir).lexically_normal();
  std::error_code ec;
  while (!fs::exists(folder, ec) && folder.has_parent_path() && folder.parent_path() != folder) {
    folder = folder.parent_path();
  }
  if (!fs::is_directory(folder, ec)) {
    return "the agent cannot make its state directory " + stateDir + ": " + folder.string() +
           " is not a folder; give --state-dir a writable folder";
  }
  if (::access(folder.c_str(), W_OK | X_OK) != 0) {
    return "the agent cannot write its state directory " + stateDir +
           (folder == fs::absolute(stateDir).lexically_normal()
                ? std::string()
                : " (nor make it in " + folder.string() + ")") +
           ": give --state-dir a writable folder";
  }
  return {};
}

v1::HostInfo collectHostInfo(const std::string& workerPath, const std::string& stateDir) {
  namespace fs = std::filesystem;
  v1::HostInfo info;
  char hostname[256] = {};
  ::gethostname(hostname, sizeof hostname - 1);
  info.set_hostname(hostname);
  info.set_cores(std::max(1u, std::thread::hardware_concurrency()));
  info.set_memory_bytes(static_cast<uint64_t>(::sysconf(_SC_PHYS_PAGES)) *
                        static_cast<uint64_t>(::sysconf(_SC_PAGE_SIZE)));
  info.set_ringmaster_version(RINGMASTER_VERSION);
  info.set_worker_path(workerPath);

  if (::access(workerPath.c_str(), X_OK) != 0) {
    info.add_problems(
        "the worker " + workerPath +
        " is missing or not executable: install ringmaster-worker or start the agent with --worker");
  } else {
    try {
      std::string text = runForOutput({workerPath, "--version"}, std::chrono::seconds(30));
      if (auto build = parseWorkerVersion(text)) {
        info.set_torch_version(build->torchVersion);
        for (auto b : build->backends) info.add_backends(b);
        if (build->ringmasterVersion != RINGMASTER_VERSION) {
          info.add_problems("the worker is version " + build->ringmasterVersion + " but the agent is " +
                            RINGMASTER_VERSION + ": install matching versions");
        }
      } else {
        info.add_problems("the worker " + workerPath + " answered --version with '" + text +
                          "', which is not a ringmaster-worker");
      }
    } catch (const std::exception& e) {
      info.add_problems(std::string("the worker cannot run: ") + e.what());
    }
  }

  info.add_datasets(v1::DATASET_SYNTHETIC);
  std::error_code ec;
  if (fs::exists(fs::path(kPackagedFashionMnistDir) / "train-images-idx3-ubyte.gz", ec)) {
    info.add_datasets(v1::DATASET_FASHION_MNIST);
  }
  if (const std::string problem = stateDirProblem(stateDir); !problem.empty()) info.add_problems(problem);
  for (auto& gpu : nvidiaGpus()) *info.add_gpus() = std::move(gpu);
  return info;
}

std::string checkHostCanRun(const v1::HostInfo& host, const v1::JobSpec& spec) {
  if (isUserProgram(spec)) {
    // The worker's problems do not concern a program; whether this one may run is the agent's to say at
    // launch.
    if (!host.runs_programs()) {
      return "its agent (Ringmaster " + host.ringmaster_version() +
             ") cannot start programs: install this version of Ringmaster there";
    }
    return {};
  }
  if (host.problems_size() > 0) return host.problems(0);
  switch (backendProblem(host, spec.backend())) {
    case BackendProblem::kNotBuilt: {
      std::string built;
      for (int b : host.backends())
        built += (built.empty() ? "" : ", ") + std::string(backendName(v1::Backend(b)));
      return "this host's ringmaster-worker was built without the " +
             std::string(backendName(spec.backend())) + " backend (it has: " + built + ")";
    }
    case BackendProblem::kNoGpu:
      return "the " + std::string(backendName(spec.backend())) +
             " backend needs an NVIDIA GPU and this host has none (no driver lists one in " +
             std::string(kNvidiaGpusDir) + "): use --backend gloo";
    case BackendProblem::kNone:
      break;
  }
  if (spec.dataset() == v1::DATASET_FASHION_MNIST && spec.data_dir().empty()) {
    const auto& sets = host.datasets();
    if (std::find(sets.begin(), sets.end(), v1::DATASET_FASHION_MNIST) == sets.end()) {
      return std::string("Fashion-MNIST is not installed in ") + kPackagedFashionMnistDir +
             ": install the dataset-fashion-mnist package or pass --data-dir";
    }
  }
  if (spec.dataset() == v1::DATASET_CIFAR10 && spec.data_dir().empty()) {
    return "cifar10 needs --data-dir with the CIFAR-10 binary files (data_batch_1.bin ...)";
  }
  return {};
}

}  // namespace ringmaster::agent
