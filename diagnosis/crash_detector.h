// SPDX-License-Identifier: GPL-3.0-or-later
// Crashes: the rank that failed first (exited with an error, was killed, never started, or stopped without
// recording its end) is why the run ended; the ranks the agent then stopped are not. The finding says how it
// ended, after which step, the last thing it wrote to stderr, and where to look next.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "diagnosis/finding.h"

namespace ringmaster::diagnosis {

class CrashDetector {
 public:
  void setHost(int rank, const std::string& host) { hosts_[rank] = host; }
  void step(const v1::StepSample& step);
  void log(const v1::LogLine& line);
  void state(const v1::RankState& state);
  std::vector<v1::Finding> findings() const;

 private:
  std::map<int, std::string> hosts_;
  std::map<int, uint64_t> lastStep_;
  std::map<int, std::string> lastError_;  // last non-empty stderr line per rank
  std::optional<v1::RankState> first_;    // the first failure
  std::optional<std::string> firstLastLine_;
  std::vector<int> then_;  // ranks that failed on their own after it
};

}  // namespace ringmaster::diagnosis
