// SPDX-License-Identifier: GPL-3.0-or-later
#include "console/hosts/host_facts.h"

#include <QtGlobal>
#include <cstdio>

#include "common/host_backends.h"
#include "common/job_spec.h"

namespace ringmaster::console {
namespace {

const char kHostFacts[] = QT_TRANSLATE_NOOP("ringmaster::Host", "%1: %2");
const char kJoined[] = QT_TRANSLATE_NOOP("ringmaster::Host", "%1, %2");
const char kAsItIs[] = QT_TRANSLATE_NOOP("ringmaster::Host", "%1");
const char kCores[] = QT_TRANSLATE_NOOP("ringmaster::Host", "%1 cores");
const char kNoGpu[] = QT_TRANSLATE_NOOP("ringmaster::Host", "no GPU");
const char kLibtorch[] = QT_TRANSLATE_NOOP("ringmaster::Host", "libtorch %1");
const char kPython[] = QT_TRANSLATE_NOOP("ringmaster::Host", "python %1");
const char kTorch[] = QT_TRANSLATE_NOOP("ringmaster::Host", "torch %1");
const char kCuda[] = QT_TRANSLATE_NOOP("ringmaster::Host", "CUDA %1");
const char kRingmaster[] = QT_TRANSLATE_NOOP("ringmaster::Host", "ringmaster %1");
const char kNothingRecorded[] = QT_TRANSLATE_NOOP("ringmaster::Host", "nothing recorded");

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

Sentence hostSentence(const std::string& host, const HostFacts& facts) {
  auto fact = [&](const char* key) {
    auto it = facts.find(key);
    return it == facts.end() ? std::string() : it->second;
  };
  // The parts joined one by one: "%1, %2" of the list so far and the next part.
  Sentence list;
  auto add = [&](Sentence part) {
    list = isEmpty(list) ? part : sentence(kHostContext, kJoined, {list, part});
  };
  auto addIf = [&](const std::string& value, const char* pattern) {
    if (!value.empty()) add(sentence(kHostContext, pattern, {value}));
  };
  addIf(fact("cores"), kCores);
  addIf(fact("memory"), kAsItIs);
  const std::string gpus = fact("gpus");
  if (gpus == "none") {
    add(sentence(kHostContext, kNoGpu));
  } else {
    addIf(gpus, kAsItIs);
  }
  addIf(fact("libtorch"), kLibtorch);
  // What a user's program ran on there (its ranks' RankRuntime).
  addIf(fact("python"), kPython);
  addIf(fact("torch"), kTorch);
  addIf(fact("cuda"), kCuda);
  addIf(fact("backends"), kAsItIs);
  addIf(fact("ringmaster"), kRingmaster);
  return sentence(kHostContext, kHostFacts,
                  {host, isEmpty(list) ? sentence(kHostContext, kNothingRecorded) : list});
}

std::string describeHost(const std::string& host, const HostFacts& facts) {
  return toText(hostSentence(host, facts));
}

}  // namespace ringmaster::console
