// SPDX-License-Identifier: GPL-3.0-or-later
// What a host told about itself (cores, memory, GPUs, versions, backends) as the run history keeps it beside
// each run, and the one line a person reads of it in `ringmaster show`, reports and the dashboard.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "common/sentence.h"
#include "ringmaster/v1/agent.pb.h"

namespace ringmaster::console {

using HostFacts = std::map<std::string, std::string>;

HostFacts hostFacts(const v1::HostInfo& info);

// The backends a job can use on the host: its worker's, less those it cannot run (backendProblem: nccl where
// there is no GPU), which the agent refuses.
std::vector<v1::Backend> usableBackends(const v1::HostInfo& info);

inline constexpr char kHostContext[] = "ringmaster::Host";

// "node1: 16 cores, 62.8 GiB, no GPU, libtorch 1.13.1, gloo" for one host, a sentence of context
// kHostContext (the window shows it in its own language), and its English.
Sentence hostSentence(const std::string& host, const HostFacts& facts);
std::string describeHost(const std::string& host, const HostFacts& facts);

}  // namespace ringmaster::console
