// SPDX-License-Identifier: GPL-3.0-or-later
// A run's headline figures (throughput, step time percentiles, phase shares, all-reduce bandwidth, memory
// peak and growth, findings) and the comparison of runs against a baseline, with bootstrap 95% confidence
// intervals on step time and throughput, so "B is X% faster than A (±Y%)" is a measured statement. Also
// scaling efficiency.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/sentence.h"
#include "diagnosis/memory_leak_detector.h"
#include "diagnosis/statistics.h"
#include "history/run_store.h"

namespace ringmaster {

// Mean milliseconds per step of each phase.
struct PhaseTimes {
  double dataMs = 0, forwardMs = 0, backwardMs = 0, commWaitMs = 0, optimizerMs = 0, totalMs = 0;
  double otherMs() const;  // what the phases do not account for
};

struct RankMetrics {
  int rank = 0;
  std::string host;
  uint64_t steps = 0;
  double samplesPerS = 0;
  PhaseTimes phases;
  double busbwGbps = 0;           // median of this rank's all-reduce ops that measured it; 0: not measured
  double allreduceLatencyUs = 0;  // median, likewise
  double peakRssMiB = 0;
  double rssSlopeMiBPerStep = 0;  // Theil–Sen, after warm-up
};

struct RunMetrics {
  RunInfo info;
  int ranks = 0;
  uint64_t steps = 0;     // steps with a sample from every rank
  double throughput = 0;  // samples per second, all ranks
  double stepMeanMs = 0, stepP50Ms = 0, stepP95Ms = 0;
  PhaseTimes phases;              // mean over ranks and steps
  double busbwGbps = 0;           // median over the ops that measured it; 0: not measured
  double allreduceLatencyUs = 0;  // likewise
  uint64_t allreduceOps = 0;
  double allreducesPerStep = 0;      // all-reduce ops per rank and step (count)
  double allreduceBytesPerStep = 0;  // bytes all-reduced per rank and step (MiB)
  std::vector<double> commWaitMs;    // per job step: the ranks' mean exposed comm wait (ms)
  // Per job step, the ranks' mean of each other phase (ms): what the phases' intervals resample.
  std::vector<double> dataMs, forwardMs, backwardMs, optimizerMs;
  // Every all-reduce op that measured it: busbw (GB/s) and latency (µs), what their medians' intervals
  // resample.
  std::vector<double> opBusbwGbps, opLatencyUs;
  // Per job step, in order: the ranks' mean loss, and the job's time when the step ended (the slowest
  // rank's steps summed, ms). What "time to a loss" is read from.
  std::vector<std::pair<double, double>> lossAtTimeMs;
  double exposedCommPct = 0;           // comm wait / step time
  double overlapPct = 0;               // all-reduce time hidden behind compute
  double peakRssMiB = 0;               // over ranks
  double rssSlopeMiBPerStep = 0;       // steepest rank
  std::optional<double> finalLoss;     // none when no rank reported a loss (a profiler trace)
  std::vector<double> stepTimesMs;     // per job step: the slowest rank's total (what the job waited)
  std::vector<double> stepThroughput;  // per job step: samples of all ranks / step time (samples/s)
  std::vector<RankMetrics> perRank;
  std::vector<diagnosis::MemoryTrend>
      memoryTrends;  // per rank, host RSS (and device memory where there is one)
  std::vector<v1::Finding> findings;
};

// The job time (ms) at which the run's loss, averaged over a trailing window of steps, first came down to
// `target`; nothing when it never did.
std::optional<double> timeToLossMs(const RunMetrics& run, double target);

// Figures of one run from its stored series and findings.
RunMetrics computeMetrics(const RunInfo& info, const std::vector<RankSeries>& series,
                          const std::vector<RankInfo>& ranks, std::vector<v1::Finding> findings);
// Reads what it needs from the store. When the run holds no findings, they are computed by replaying it.
RunMetrics loadMetrics(const RunStore& store, int64_t runId);

// A measured figure as the comparison prints it, in plain decimals with four significant digits ("11380",
// "113.8", "1.138", "0.01138"), a whole number as one ("2"), never in exponent notation; "-" for one that is
// not a number.
std::string figureText(double value);

struct MetricDelta {
  std::string metric;
  std::string unit;
  double base = 0;
  double other = 0;
  double relative = 0;  // (other - base) / base
  bool lowerIsBetter = false;
  std::optional<stats::Interval> interval;  // bootstrap 95% CI of `relative`
  // Why the runs cannot be compared on this metric ("run 7 (imported) has no all-reduce ops"); empty when
  // they can. `relative` is NaN then: a metric a run lacks is not a change of -100 %.
  Sentence missing;
  // Better or worse for sure: the interval excludes zero. 1 better, -1 worse, 0 not known.
  int verdict() const;
  // "+12.3%", "+1 (from 0)" (a change from zero has no relative size), or "not measured".
  std::string changeText() const;
};

// A comparison's sentences (its runs' names, what a run lacks, the verdict) are of this context
// (common/sentence.h): the CLI and the reports print their English, the window renders them in its language.
inline constexpr char kComparisonContext[] = "ringmaster::Comparison";

struct RunComparison {
  Sentence baseName;  // "run 7 (baseline)"
  Sentence otherName;
  std::vector<MetricDelta> deltas;
  // "run B is 12.3% faster than run A (95% CI 10.1% to 14.5%)", or that the difference is not significant.
  Sentence verdict;
};

// Compares `other` against `base`. Runs of the same rank count are judged on step time; of different rank
// counts on throughput, since their steps do different work.
RunComparison compareRuns(const RunMetrics& base, const RunMetrics& other);

// Per-rank throughput relative to the baseline's: throughput(N) / (N / N_base × throughput(N_base)).
// With a 1-rank baseline this is throughput(N) / (N × throughput(1)).
double scalingEfficiency(const RunMetrics& run, const RunMetrics& baseline);
// The scaling of the run with more ranks against the one with fewer, whichever order they come in.
v1::Finding scalingFinding(const RunMetrics& one, const RunMetrics& another);

}  // namespace ringmaster
