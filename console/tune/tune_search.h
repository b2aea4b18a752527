// SPDX-License-Identifier: GPL-3.0-or-later
// Autotuning a job's communication settings with short real runs: what is searched (the DDP engine's bucket
// cap, or the Horovod engine's fusion threshold × cycle time), the grid, the rounds, how a trial is measured
// and what the search recommends. console/tune_session runs the trials; this part only decides.
//
// The method is successive halving over a small grid, not Bayesian optimisation with a Gaussian process as
// Horovod's autotuner does. A tuning session here is a handful of short runs on a machine others share: each
// measurement is noisy and there are too few of them for a Gaussian process to learn a surface (fitting its
// kernel alone takes more points than a session has, and with noisy points it chases the noise). Successive
// halving needs no model: every candidate gets a short run, the better half by measured throughput runs
// again twice as long, and so on until one candidate is left beside the default. Each decision is a ranking
// of measured throughputs, so the search is deterministic for given measurements and can be tested; and as
// the default configuration runs in every round, the final gain is measured against a run made at the same
// length and as close in time as possible, with the comparison's bootstrap interval (diagnosis/comparison).
// A budget too small to halve (fewer than 6 trials) is one round: a plain grid search.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/warmup.h"
#include "diagnosis/comparison.h"
#include "history/run_store.h"
#include "ringmaster/v1/job.pb.h"

namespace ringmaster::console {

enum class TuneTarget { BucketCap, Fusion };

// "bucket-cap" or "fusion", as `ringmaster tune --tune` takes them.
std::string_view tuneTargetName(TuneTarget target);
std::optional<TuneTarget> tuneTargetFromName(std::string_view name);
// The flags a target searches: "--bucket-cap-mb", "--fusion-threshold-mb x --cycle-time-ms".
std::string tuneTargetFlags(TuneTarget target);
// What a job's engine has to tune: bucket cap for ddp, fusion for horovod.
TuneTarget defaultTuneTarget(const v1::JobSpec& spec);
// Why `target` cannot be tuned on `spec` (a user's program, the other engine's setting), naming the flag to
// change; empty when it can.
std::string tuneTargetProblem(TuneTarget target, const v1::JobSpec& spec);

// One point of the search: the tuned flags' values.
struct TuneSetting {
  TuneTarget target = TuneTarget::BucketCap;
  std::vector<double> values;  // bucket cap (MiB); or fusion threshold (MiB), cycle time (ms)

  // "--fusion-threshold-mb 32 --cycle-time-ms 2.5", the flags as `ringmaster run` takes them.
  std::string flags() const;
  void applyTo(v1::JobSpec& spec) const;
  bool operator==(const TuneSetting& other) const { return target == other.target && values == other.values; }
};

// The setting `spec` has (the default of a tuning session: the job as the user gave it).
TuneSetting currentSetting(TuneTarget target, const v1::JobSpec& spec);
// Every point the search may try.
std::vector<TuneSetting> tuneGrid(TuneTarget target);
// `count` settings to try: `baseline` first, then grid points each as far as possible (on a log scale) from
// those chosen before, so that a few trials span the grid. Fewer when the grid has fewer.
std::vector<TuneSetting> spreadCandidates(const TuneSetting& baseline, size_t count);
// How many settings each round runs for a budget of `trials` runs with `candidates` settings to choose from:
// halving rounds (n, n/2 rounded up, ..., 2) with the largest first round that fits, or one round of up to
// `trials` settings when the budget cannot pay for halving from at least 4.
std::vector<size_t> halvingRounds(size_t trials, size_t candidates);

// A trial's figures from the store, without its warm-up steps (common/warmup.h).
RunMetrics measureTrial(const RunStore& store, int64_t runId);
// The throughput change of `trial` against `baseline`, with compareRuns' bootstrap 95 % interval.
MetricDelta throughputDelta(const RunMetrics& baseline, const RunMetrics& trial);

struct TrialResult {
  TuneSetting setting;
  bool isDefault = false;
  size_t round = 0;    // from 0
  uint64_t steps = 0;  // the trial's length
  int64_t runId = 0;
  std::string status;  // the run's status word (console::statusName)
  Sentence failure;    // why the run did not finish or was not measured; empty when it was
  RunMetrics metrics;  // measureTrial's
  // Against the default's run of the same round; absent for the default itself and failed trials.
  std::optional<MetricDelta> againstDefault;

  bool measured() const { return isEmpty(failure) && metrics.throughput > 0; }
};

// The settings of the next round: the default, then the best of the others by measured throughput, `size`
// in all.
std::vector<TuneSetting> survivors(const std::vector<TrialResult>& round, size_t size);

// What the search recommends from its last round: "best: <flags>, +7.0 % [+3.1, +11.2] over the default
// (run 14 against run 12)" when the trial with the highest throughput beats the default beyond the interval,
// else "the default is as good as any trial: ..." naming the best trial and its interval.
std::string recommendation(const std::vector<TrialResult>& lastRound);
// The setting that recommendation() recommends: the best trial's when it beats the default beyond the
// interval; absent when the default stays (or nothing was measured to compare).
std::optional<TuneSetting> recommendedSetting(const std::vector<TrialResult>& lastRound);

}  // namespace ringmaster::console
