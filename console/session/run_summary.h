// SPDX-License-Identifier: GPL-3.0-or-later
// The summary of one run, built from its records as they arrive, written by `ringmaster run --summary-json`:
// status, per-rank throughput and step-phase means, all-reduce statistics, memory peak and slope, final loss
// and accuracy, and each rank's parameter checksum. The job's throughput, final loss and memory slopes follow
// the rules `ringmaster show` reads the stored run by (diagnosis/run_figures.h, the leak detector's trend).
// After a restart a rank does steps again from the checkpoint: its "steps" counts each step once and
// "steps_redone" the repeats; throughput and the phase means are over every step it ran, and the memory slope
// is the last attempt's.
#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "console/session/launcher.h"
#include "console/session/record_sink.h"
#include "diagnosis/memory_leak_detector.h"
#include "diagnosis/run_figures.h"

namespace ringmaster::console {

class RunSummaryBuilder : public RecordSink {
 public:
  explicit RunSummaryBuilder(v1::JobSpec spec);
  void onRecords(const std::string& jobId, const std::string& host,
                 const std::vector<v1::Record>& records) override;

  // The summary as an indented JSON document. `findings` are the diagnosis' (stragglers, leaks, stalls,
  // communication) at the end of the run.
  std::string toJson(const std::string& jobId, const JobOutcome& outcome,
                     const std::vector<v1::Finding>& findings = {}) const;
  // Writes toJson() to `path` (atomically: temporary file, then rename). Throws InputError naming the path.
  void writeJson(const std::string& path, const std::string& jobId, const JobOutcome& outcome,
                 const std::vector<v1::Finding>& findings = {}) const;

  // What the builder has summed of one rank.
  struct Rank {
    std::string host;
    uint64_t stepsRun = 0;     // step records, a step done again after a restart counted each time
    uint64_t stepsRedone = 0;  // of those, steps at or below one this rank had already reported
    std::optional<uint64_t> lastStep;
    uint64_t samples = 0;
    int64_t dataNs = 0, forwardNs = 0, backwardNs = 0, commWaitNs = 0, optimizerNs = 0, totalNs = 0;
    double lastLoss = 0;
    uint64_t allreduceOps = 0;
    uint64_t allreduceBytes = 0;
    std::vector<double> latenciesUs;
    double busbwSum = 0;
    uint64_t peakRss = 0;
    std::optional<uint64_t> lastMemoryStep;
    diagnosis::MemoryLeakDetector memory;  // the last attempt's samples
    bool hasSummary = false;
    v1::RankSummary summary;
    uint64_t telemetrySent = 0;
    uint64_t telemetryDropped = 0;
  };

 private:
  const v1::JobSpec spec_;
  mutable std::mutex mutex_;
  std::map<int, Rank> ranks_;
  diagnosis::JobSteps jobSteps_;
};

}  // namespace ringmaster::console
