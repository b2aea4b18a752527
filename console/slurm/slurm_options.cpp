// SPDX-License-Identifier: GPL-3.0-or-later
#include "console/slurm/slurm_options.h"

#include <QDir>
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <set>
#include <sstream>

#include "common/printable.h"
#include "diagnosis/summary_text.h"

namespace ringmaster::console {

std::string defaultSlurmFolder() {
  return (QDir::homePath() + "/.ringmaster/slurm").toStdString();
}

std::vector<std::string> sbatchArguments(const SlurmOptions& o, int ranks, const std::string& jobName,
                                         const std::string& outputFile, const std::string& script) {
  std::vector<std::string> args = {"--parsable", "--ntasks=" + std::to_string(ranks)};
  if (o.nodes > 0) args.push_back("--nodes=" + std::to_string(o.nodes));
  const std::pair<const char*, const std::string*> named[] = {
      {"--partition", &o.partition},   {"--time", &o.time}, {"--account", &o.account}, {"--qos", &o.qos},
      {"--constraint", &o.constraint}, {"--gres", &o.gres}};
  for (const auto& [flag, value] : named) {
    if (!value->empty()) args.push_back(std::string(flag) + "=" + *value);
  }
  // A requeued job would start agents again that no console launches ranks on; --slurm-arg=--requeue
  // overrides it.
  args.push_back("--no-requeue");
  args.insert(args.end(), o.extra.begin(), o.extra.end());
  args.insert(args.end(), {"--job-name=" + jobName, "--output=" + outputFile, script});
  return args;
}

std::vector<int> parseTasksPerNode(const std::string& text) {
  std::vector<int> tasks;
  auto bad = [&text](const std::string& why) {
    return SlurmError("SLURM_TASKS_PER_NODE \"" + text + "\" is not Slurm's tasks-per-node list (" + why +
                      "): check the allocation with `scontrol show job $SLURM_JOB_ID`");
  };
  auto number = [&bad](const std::string& word) {
    if (word.empty() || word.size() > 6 ||
        !std::all_of(word.begin(), word.end(), [](unsigned char c) { return std::isdigit(c); })) {
      throw bad("\"" + word + "\" is not a count");
    }
    return std::stoi(word);
  };
  std::istringstream parts(text);
  for (std::string part; std::getline(parts, part, ',');) {
    int repeat = 1;
    const size_t open = part.find("(x");
    if (open != std::string::npos) {
      if (part.back() != ')') throw bad("\"" + part + "\" lacks its closing parenthesis");
      repeat = number(part.substr(open + 2, part.size() - open - 3));
      part = part.substr(0, open);
    }
    const int count = number(part);
    if (count < 1 || repeat < 1) throw bad("a count of zero");
    if (tasks.size() + static_cast<size_t>(repeat) > 100000) throw bad("more than 100000 nodes");
    tasks.insert(tasks.end(), static_cast<size_t>(repeat), count);
  }
  if (tasks.empty()) throw bad("it is empty");
  return tasks;
}

std::map<std::string, std::string> parseSlurmRecord(const std::string& line) {
  std::map<std::string, std::string> fields;
  std::istringstream words(line);
  for (std::string word; words >> word;) {
    const size_t equals = word.find('=');
    if (equals == std::string::npos || equals == 0) continue;
    fields.emplace(word.substr(0, equals), word.substr(equals + 1));
  }
  return fields;
}

std::vector<SlurmPartition> parseSinfo(const std::string& text) {
  std::vector<SlurmPartition> partitions;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    std::vector<std::string> fields;
    std::istringstream parts(line);
    for (std::string part; std::getline(parts, part, '|');) fields.push_back(part);
    int counts[4] = {};
    const bool read =
        fields.size() == 4 && !fields[0].empty() &&
        std::sscanf(fields[2].c_str(), "%d/%d/%d/%d", &counts[0], &counts[1], &counts[2], &counts[3]) == 4;
    if (!read)
      throw SlurmError("sinfo answered \"" + printable(line) +
                       "\", which is not partition|state|A/I/O/T|nodes");
    auto same = [&fields](const SlurmPartition& p) { return p.name == fields[0]; };
    auto it = std::find_if(partitions.begin(), partitions.end(), same);
    if (it == partitions.end()) {
      partitions.push_back({fields[0], fields[1], 0, 0, 0, 0, fields[3]});
      it = partitions.end() - 1;
    } else if (fields[3] != it->nodes) {
      it->nodes += "," + fields[3];
    }
    it->allocated += counts[0];
    it->idle += counts[1];
    it->other += counts[2];
    it->total += counts[3];
  }
  return partitions;
}

bool slurmJobEnded(const std::string& state) {
  static const std::set<std::string> live = {
      "PENDING",      "CONFIGURING",  "RUNNING",   "COMPLETING",   "SUSPENDED",     "REQUEUED",
      "RESIZING",     "SIGNALING",    "STAGE_OUT", "STOPPED",      "RESV_DEL_HOLD", "REQUEUE_FED",
      "REQUEUE_HOLD", "SPECIAL_EXIT", "UPDATE_DB", "POWER_UP_NODE"};
  return live.count(state) == 0;
}

Sentence slurmEndCause(const std::string& state) {
  const auto said = [](const char* pattern) { return diagnosis::say(pattern); };
  using namespace diagnosis::text;
  if (state == "TIMEOUT") return said(kSlurmTimeLimit);
  if (state == "NODE_FAIL") return said(kSlurmNodeFailed);
  if (state == "PREEMPTED") return said(kSlurmPreempted);
  if (state == "OUT_OF_MEMORY") return said(kSlurmOutOfMemory);
  if (state == "BOOT_FAIL") return said(kSlurmBootFailed);
  if (state == "DEADLINE") return said(kSlurmDeadline);
  return {};
}

}  // namespace ringmaster::console
