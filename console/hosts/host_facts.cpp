// SPDX-License-Identifier: GPL-3.0-or-later
#include "console/hosts/host_facts.h"

#include <cstdio>

#include "common/host_backends.h"
#include "common/job_spec.h"

namespace ringmaster::console {
namespace {

std::string gib(uint64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f GiB", static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0));
  return text;
}

}  // namespace

std::vector<v1::Backend> usableBackends(const v1::HostInfo& info) {
  std::vector<v1::Backend> usable;
  for (int b : info.backends()) {
    const auto backend = static_cast<v1::Backend>(b);
    if (backendProblem(info, backend) == BackendProblem::kNone) usable.push_back(backend);
  }
  return usable;
}

HostFacts hostFacts(const v1::HostInfo& info) {
  HostFacts facts;
  if (!info.hostname().empty()) facts["hostname"] = info.hostname();
  if (info.cores() > 0) facts["cores"] = std::to_string(info.cores());
  if (info.memory_bytes() > 0) facts["memory"] = gib(info.memory_bytes());
  std::string gpus;
  for (const auto& gpu : info.gpus()) {
    gpus += (gpus.empty() ? "" : ", ") + gpu.name() +
            (gpu.memory_bytes() ? " (" + gib(gpu.memory_bytes()) + ")" : "");
  }
  facts["gpus"] = gpus.empty() ? "none" : gpus;
  std::string backends;
  for (v1::Backend b : usableBackends(info))
    backends += (backends.empty() ? "" : ", ") + std::string(backendName(b));
  if (!backends.empty()) facts["backends"] = backends;
  if (!info.ringmaster_version().empty()) facts["ringmaster"] = info.ringmaster_version();
  if (!info.torch_version().empty()) facts["libtorch"] = info.torch_version();
  if (!info.worker_path().empty()) facts["worker"] = info.worker_path();
  return facts;
}

std::string describeHost(const std::string& host, const HostFacts& facts) {
  auto fact = [&](const char* key) {
    auto it = facts.find(key);
    return it == facts.end() ? std::string() : it->second;
  };
  std::string text;
  auto add = [&](const std::string& part) {
    if (!part.empty()) text += (text.empty() ? "" : ", ") + part;
  };
  add(fact("cores").empty() ? "" : fact("cores") + " cores");
  add(fact("memory"));
  const std::string gpus = fact("gpus");
  add(gpus == "none" ? "no GPU" : gpus);
  add(fact("libtorch").empty() ? "" : "libtorch " + fact("libtorch"));
  // What a user's program ran on there (its ranks' RankRuntime).
  add(fact("python").empty() ? "" : "python " + fact("python"));
  add(fact("torch").empty() ? "" : "torch " + fact("torch"));
  add(fact("cuda").empty() ? "" : "CUDA " + fact("cuda"));
  add(fact("backends"));
  add(fact("ringmaster").empty() ? "" : "ringmaster " + fact("ringmaster"));
  return host + ": " + (text.empty() ? "nothing recorded" : text);
}

}  // namespace ringmaster::console
