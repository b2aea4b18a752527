// SPDX-License-Identifier: GPL-3.0-or-later
// Every detector behind one interface: feed it a run's records as they arrive (live) or replay a stored run,
// and ask for the findings. Findings that arrived as records (from an agent or a rank) are kept as they are.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "diagnosis/collective_sequence.h"
#include "diagnosis/communication_health.h"
#include "diagnosis/crash_detector.h"
#include "diagnosis/divergence_detector.h"
#include "diagnosis/memory_leak_detector.h"
#include "diagnosis/missing_telemetry.h"
#include "diagnosis/replica_drift.h"
#include "diagnosis/stall_detector.h"
#include "diagnosis/straggler_detector.h"
#include "history/run_store.h"

namespace ringmaster::diagnosis {

struct DiagnosisConfig {
  StragglerConfig straggler;
  LeakConfig leak;
  StallConfig stall;
  CommunicationConfig communication;
  // Ranks that never sent telemetry are a finding (live runs; a replay has only the ranks it stored).
  bool missingTelemetry = true;
};

class RunDiagnosis {
 public:
  explicit RunDiagnosis(int worldSize, DiagnosisConfig config = {});

  void setHost(int rank, const std::string& host);
  // `arrivalNs`: the console's monotonic clock when the record arrived (0 when replaying a stored run).
  void observe(const v1::Record& record, int64_t arrivalNs = 0);
  // The job restarted every rank (--max-restarts), now `worldSize` of them: the failure and stall that ended
  // the attempt are told by the restart's finding, which arrives as a record; the new attempt's ranks start
  // with no crash or stall (and, when the world size changed, no straggler either).
  void restarted(int worldSize);
  // Processes the program started itself joined the run as ranks (mp.spawn): `worldSize` of them now. Called
  // by observe() for a rank state that says so.
  void grow(int worldSize);
  int worldSize() const { return worldSize_; }

  // Current findings, most severe first. `nowNs` (the arrival clock) lets stalls be seen while nothing
  // arrives.
  std::vector<v1::Finding> findings(int64_t nowNs = 0) const;
  CommunicationSummary communication() const { return communication_.summary(); }
  std::vector<MemoryTrend> memoryTrends() const { return leaks_.trends(); }

 private:
  StragglerDetector stragglers_;
  MemoryLeakDetector leaks_;
  StallDetector stalls_;
  CommunicationMonitor communication_;
  DivergenceDetector divergence_;
  CrashDetector crashes_;
  CollectiveSequenceDetector collectives_;
  ReplicaDriftDetector replicas_;
  MissingTelemetryDetector missing_;
  int worldSize_;
  DiagnosisConfig config_;
  std::vector<v1::Finding> received_;
  std::map<int, std::string> hosts_;
};

// Replays a stored run through the detectors, step by step across ranks.
RunDiagnosis replay(const std::vector<RankSeries>& series, const std::vector<v1::StallReport>& stalls,
                    const std::vector<RankInfo>& ranks, int worldSize, DiagnosisConfig config = {});

// A stored run's findings: those stored with it, or, for a run stored without any (a run whose console died),
// the findings of replaying its measurements now. An imported run has both: what its import found (stored)
// after what replaying its measurements finds. Every reader of stored findings goes through it.
std::vector<v1::Finding> storedFindings(const RunStore& store, int64_t runId);

}  // namespace ringmaster::diagnosis
