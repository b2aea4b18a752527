// SPDX-License-Identifier: GPL-3.0-or-later
// The rules a run's headline figures follow, written once for `ringmaster show`, compare and reports (which
// read the store) and `ringmaster run --summary-json` (which sums the records as they arrive), so both print
// the same figures for a run.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "ringmaster/v1/records.pb.h"

namespace ringmaster::diagnosis {

// The job's steps: a job step lasts as long as its slowest rank, and counts once every rank that reported any
// step has finished it. The job's throughput is the samples of those steps over the sum of their durations.
class JobSteps {
 public:
  void add(const v1::StepSample& step);

  uint64_t complete() const;  // steps every reporting rank finished
  double throughput() const;  // samples/s over the complete steps; 0 without any
  // Per complete step, in step order: the slowest rank's total (ms), and all ranks' samples over it
  // (samples/s).
  std::vector<double> stepTimesMs() const;
  std::vector<double> stepThroughput() const;

 private:
  struct Step {
    int reports = 0;
    double slowestMs = 0;
    double samples = 0;
  };
  bool isComplete(const Step& step) const { return step.reports >= static_cast<int>(ranks_.size()); }

  std::map<uint64_t, Step> steps_;
  std::set<int> ranks_;
};

// What one rank said of its loss: at the end (its summary), and with its last step.
struct RankLoss {
  int rank = 0;
  std::optional<double> reported;
  std::optional<double> lastStep;
};
// A run's final loss is its lowest rank's (rank 0 where it trained): the loss it reported at the end, else
// its last step's. Empty when no rank gave one.
std::optional<double> finalLoss(const std::vector<RankLoss>& ranks);

}  // namespace ringmaster::diagnosis
