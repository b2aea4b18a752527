// SPDX-License-Identifier: GPL-3.0-or-later
// Finds ranks that are persistently slower than the others.
//
// All-reduce makes every rank's wall time equal, so the detector looks at what a rank does before it waits:
// its own time per step (data wait + forward + backward). For each step that every rank has reported, each
// rank's excess is its own time minus the median rank's (what the whole job felt that step cancels out). A
// rank is judged over a window of steps, not step by step: its window excess is the level most of its
// per-step excesses reach (their median; one hiccup, or a burst filling half the window, does not count),
// scored against the noise such a median has. That noise combines how much any rank's excess wanders from
// step to step (the scaled median absolute deviation around each rank's own window level, over sqrt(window))
// and, with three or more ranks, how much the ranks' window excesses differ anyway (one CPU a little slower
// than another); it is never below a floor, since identical ranks make both collapse. Judging windows matters
// with few ranks on a noisy machine: four ranks' spread in one step says little, while a rank that is slow
// step after step stands out. A rank whose score and slowdown stay high is a straggler.
//
// Windows alone miss a moderate straggler among many noisy ranks: no eight steps say enough. So each rank
// also accumulates evidence over the run, a one-sided CUSUM of its per-step excess (as a fraction of the
// median own time) less an allowance, each step's part measured in units of the per-step noise and clipped,
// so that one hiccup adds little and a burst must last many steps. A sustained excess above the allowance
// keeps adding until it crosses the threshold; a clean rank's sum keeps falling back to zero. Once crossed,
// the rank is slow until a second CUSUM, against half the level it was found at, says its excess has gone.
//
// A rank whose all-reduce latency is high at equal own time is a communication straggler. Latency is mostly
// the wait for the slowest rank, which differs for good between ranks whose own times differ, so it keeps a
// per-step score against the step's spread across ranks (median absolute deviation, with its own floor), the
// window deciding by the level most of those scores reach.
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
  size_t window = 8;              // steps that decide together (steps)
  double minScore = 3.5;          // robust z-score a slow rank must exceed (dimensionless)
  double minSlowdown = 0.05;      // and its own time must be this much above the median (fraction)
  double noiseFloor = 0.025;      // a window's noise is at least this part of the median own time (fraction)
  double commNoiseFloor = 0.015;  // a step's spread of latency is at least this fraction of its median
  size_t confirmSteps = 3;  // consecutive steps the window must say "slow" (or "not slow") to change state
  // Steps a moderate slowness (under kCriticalSlowdownPct) of one of two ranks must last to be more than
  // information; otherwise a window does (steps).
  size_t materialSteps = 16;
  uint64_t warmupSteps = 3;      // first steps ignored (allocator warm-up, first batches) (steps)
  size_t maxPendingSteps = 512;  // steps waiting for a missing rank before they are given up (steps)
  // The CUSUM: per-step excess that adds no evidence (fraction of the median own time), the evidence that
  // makes a straggler and the most one step can add (both in units of the per-step noise).
  double cusumAllowance = 0.05;
  double cusumThreshold = 14;
  double cusumClip = 1;
  // Arrival order (three ranks or more): a sequential test of "this rank is the last to reach the all-reduce
  // (it waits least) twice as often as chance". The log-likelihood ratio that makes a straggler, when its own
  // time over those steps is also at least minSlowdown above the median.
  double arrivalThreshold = 8;
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
  // One rank's step against the median rank that step.
  struct StepExcess {
    uint64_t step = 0;
    double own = 0;        // own time minus the median rank's (ns)
    double medianOwn = 0;  // the median rank's own time (ns)
    double commScore = 0;  // all-reduce latency's robust score; 0 without all-reduce ops
    double commSlowdown = 0;
  };
  // One rank over the window.
  struct WindowScore {
    uint64_t step = 0;  // the window's last step
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
    // Own time over the median of every rank's, the job's middle: what materiality is judged by.
    double excessOwnOverJobNs = 0;
    // The other ranks' exposed communication wait (their median) less this rank's: what they waited for it.
    double othersCommWaitExcessNs = 0;
    double excessOwnSquares = 0;  // sum of each step's own excess squared (ns^2), for its standard error
    double stepNs = 0;
    double scoreSum = 0;
  };
  // The accumulated evidence of one rank's sustained excess.
  struct Cusum {
    double sum = 0;                // noise units
    uint64_t sinceStep = 0;        // the step after the sum last stood at zero: where the excess began
    std::vector<double> excesses;  // the relative excesses since then, for the level
    bool slow = false;             // crossed, and not yet recovered
    double slowLevel = 0;          // the median relative excess when it crossed
    double recovery = 0;           // noise units of evidence that the excess is gone
  };
  // The sequential test of arrival order, and the rank's relative own excess over the steps it covers.
  struct Arrival {
    double llr = 0;               // log-likelihood ratio, late twice as often as chance against chance
    uint64_t sinceStep = 0;       // the first step since llr last stood at zero
    std::deque<double> excesses;  // relative own excess of each step since then (the latest kArrivalSteps)
    bool late = false;            // crossed, with an own excess to show for it; until llr is back at zero
  };
  struct RankState {
    std::deque<StepExcess> window;
    Cusum cusum;
    Arrival arrival;
    std::optional<Episode> current;
    size_t slowRun = 0;  // consecutive evaluations that looked slow
    size_t fastRun = 0;  // and that did not
  };
  // Each rank's times in one step (ns).
  struct StepTimes {
    const std::vector<double>& own;
    const std::vector<double>& compute;
    const std::vector<double>& data;
  };
  struct PendingStep {
    std::vector<std::optional<v1::StepSample>> samples;
    std::vector<double> commNs;
    int reported = 0;
  };

  void evaluate(uint64_t step, PendingStep& pending);
  // Scores every rank's window of own time; the windows are full.
  std::vector<WindowScore> scoreWindows(uint64_t step, double typical);
  // Adds the newest step's excess to each rank's CUSUM.
  void accumulate(double typical);
  // Adds the newest step's arrival order (who waited least in the all-reduce) to each rank's test.
  void accumulateArrival(const PendingStep& pending, double typical);
  // The median rank's own time over the window (ns).
  double typicalOwn() const;
  void updateEpisode(int rank, const WindowScore& score, const PendingStep& pending, const StepTimes& times,
                     double medianTotal);
  // The finding an episode makes; none when it cost the others nothing, or when a rank's longer all-reduce is
  // only the wait of a rank that arrived early (its own time below the median by much of the excess).
  std::optional<v1::Finding> describe(int rank, const Episode& episode) const;

  int worldSize_;
  StragglerConfig config_;
  std::map<int, std::string> hosts_;
  std::map<uint64_t, PendingStep> pending_;
  std::vector<RankState> ranks_;
  std::vector<std::pair<int, Episode>> closed_;
  std::deque<double> scatter_;  // per-step scatter of the recent windows (ns), for the CUSUM's noise unit
  uint64_t stepsEvaluated_ = 0;
  double runStepNs_ = 0;  // the median rank's step time summed over the steps evaluated (ns)
};

}  // namespace ringmaster::diagnosis
