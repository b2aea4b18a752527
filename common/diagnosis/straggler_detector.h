// SPDX-License-Identifier: GPL-3.0-or-later
// Finds ranks that are persistently slower than the others.
//
// All-reduce makes every rank's wall time equal, so the detector looks at what a rank does before it waits:
// its own time per step (data wait + forward + backward). For each step that every rank has reported, each rank
// gets a robust score against the ranks' median: (x - median) / sigma, where sigma is the scaled median absolute
// deviation (never below a noise floor, since identical ranks make the MAD collapse). A rank whose score and
// slowdown stay high over a window of steps (their medians, so one hiccup does not count) is a straggler.
// A rank whose all-reduce latency is high at equal own time is a communication straggler.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ringmaster/v1/records.pb.h"

namespace ringmaster::diagnosis {

namespace v1 = ::ringmaster::v1;

struct StragglerConfig {
  size_t window = 8;            // steps whose median score decides (steps)
  double minScore = 3.5;        // robust z-score a slow rank must exceed (dimensionless)
  double minSlowdown = 0.05;    // and its own time must be this much above the median (fraction)
  double noiseFloor = 0.015;    // sigma is at least this fraction of the median (fraction)
  size_t confirmSteps = 3;      // consecutive steps the window must say "slow" (or "not slow") to change state
  uint64_t warmupSteps = 3;     // first steps ignored (allocator warm-up, first batches) (steps)
  size_t maxPendingSteps = 512; // steps waiting for a missing rank before they are given up (steps)
};

class StragglerDetector {
 public:
  explicit StragglerDetector(int worldSize, StragglerConfig config = {});

  void setHost(int rank, const std::string& host);
  void add(const v1::StepSample& sample);
  // All-reduce ops give each rank's communication latency per step (used for the cause).
  void add(const v1::AllreduceOp& op);

  // One finding per episode of slowness, kept current while it lasts.
  std::vector<v1::Finding> findings() const;
  uint64_t stepsEvaluated() const { return stepsEvaluated_; }

 private:
  struct StepScore {
    uint64_t step = 0;
    double ownScore = 0;
    double ownSlowdown = 0;
    double commScore = 0;
    double commSlowdown = 0;
  };
  struct Episode {
    uint64_t sinceStep = 0;
    uint64_t lastStep = 0;
    std::optional<uint64_t> recoveredAt;
    bool communication = false;
    uint64_t steps = 0;
    double slowdownSum = 0;
    double excessOwnNs = 0, excessComputeNs = 0, excessDataNs = 0, excessCommNs = 0;
    double stepNs = 0;
    double scoreSum = 0;
  };
  struct RankState {
    std::deque<StepScore> window;
    std::optional<Episode> current;
    size_t slowRun = 0;    // consecutive evaluations that looked slow
    size_t fastRun = 0;    // and that did not
  };
  struct PendingStep {
    std::vector<std::optional<v1::StepSample>> samples;
    std::vector<double> commNs;
    int reported = 0;
  };

  void evaluate(uint64_t step, PendingStep& pending);
  void updateEpisode(int rank, const StepScore& score, const PendingStep& pending, double medianOwn,
                     double medianCompute, double medianData, double medianComm, double medianTotal);
  v1::Finding describe(int rank, const Episode& episode) const;

  int worldSize_;
  StragglerConfig config_;
  std::map<int, std::string> hosts_;
  std::map<uint64_t, PendingStep> pending_;
  std::vector<RankState> ranks_;
  std::vector<std::pair<int, Episode>> closed_;
  uint64_t stepsEvaluated_ = 0;
};

}  // namespace ringmaster::diagnosis
