// SPDX-License-Identifier: GPL-3.0-or-later
// Ranks the job has that never sent telemetry while the others trained: a process the program started itself
// (mp.spawn, its own launcher) without the job's environment, or one the agent refused (a wrong secret, a
// rank taken twice). Its figures and findings are then missing, and a straggler or a leak there goes unseen;
// the program's output usually says why ("ringmaster: telemetry is off: ..."), and the finding quotes it.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "diagnosis/finding.h"

namespace ringmaster::diagnosis {

class MissingTelemetryDetector {
 public:
  explicit MissingTelemetryDetector(int worldSize) : worldSize_(worldSize) {}

  void setWorldSize(int worldSize) { worldSize_ = worldSize; }
  // A record the rank sent itself (a step, a heartbeat, an all-reduce ...).
  void heard(int rank) { heard_.insert(rank); }
  void step(const v1::StepSample& step);
  void log(const v1::LogLine& line);
  // How the rank's process ended: one that failed has the crash finding.
  void state(const v1::RankState& state);

  std::vector<v1::Finding> findings() const;

 private:
  int worldSize_;
  std::set<int> heard_;
  std::set<int> failed_;
  uint64_t stepsDone_ = 0;    // steps the furthest rank has finished
  std::string telemetryOff_;  // the first line a rank printed about its telemetry being off
};

}  // namespace ringmaster::diagnosis
