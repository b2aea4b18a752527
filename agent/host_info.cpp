// SPDX-License-Identifier: GPL-3.0-or-later
#include "agent/host_info.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <regex>
#include <thread>

#include "agent/child_process.h"
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
  if (::access(stateDir.c_str(), W_OK) != 0) {
    info.add_problems("the agent cannot write its state directory " + stateDir +
                      ": give --state-dir a writable folder");
  }
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
  const auto& backends = host.backends();
  if (std::find(backends.begin(), backends.end(), spec.backend()) == backends.end()) {
    std::string built;
    for (int b : backends) built += (built.empty() ? "" : ", ") + std::string(backendName(v1::Backend(b)));
    return "this host's ringmaster-worker was built without the " + std::string(backendName(spec.backend())) +
           " backend (it has: " + built + ")";
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
