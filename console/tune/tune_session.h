// SPDX-License-Identifier: GPL-3.0-or-later
// A tuning session: the rounds console/tune_search plans, each trial a real run through console::RunSession
// (the path `ringmaster run` takes, with the same flags and the tuned ones set), stored in the history like
// any run and tagged "tune:<session>", measured from the store once it ends.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "console/session/run_flags.h"
#include "console/tune/tune_search.h"

namespace ringmaster::console {

struct TuneOptions {
  RunFlags flags;  // the job as given, after finishRunFlags(); its store is where the trials go
  TuneTarget target = TuneTarget::BucketCap;
  size_t trials = 6;  // runs at most, the default's included
  std::string name;   // the session's; empty: --name, else "tune-<date>-<time>"
};

// Steps a round-0 trial runs when the job gives no --steps.
inline constexpr uint64_t kDefaultTrialSteps = 60;
// Fewer steps leave too few after the warm-up to measure.
inline constexpr uint64_t kMinTrialSteps = 10;

class TuneSession {
 public:
  // Checks the options (throws InputError naming the flag): a target the engine has, a store to keep the
  // trials in, no per-run output files, steps enough to measure.
  explicit TuneSession(TuneOptions options);

  const std::string& name() const { return name_; }
  std::string tag() const { return "tune:" + name_; }
  const std::string& storePath() const { return storePath_; }
  TuneTarget target() const { return options_.target; }
  // The settings of the first round (the default first) and how many settings each round runs.
  const std::vector<TuneSetting>& candidates() const { return candidates_; }
  const std::vector<size_t>& rounds() const { return rounds_; }
  uint64_t stepsOfRound(size_t round) const { return firstSteps_ << round; }

  // Runs every round. `onTrial` is called as each trial has been stored and measured. When `stopRequested`
  // turns true the running trial is stopped and no other starts. Throws LaunchError when the hosts cannot
  // start a trial, InputError for a store that cannot be written.
  void run(const std::function<void(const TrialResult&)>& onTrial,
           const std::function<bool()>& stopRequested);

  const std::vector<TrialResult>& trials() const { return trials_; }
  bool stopped() const { return stopped_; }
  // Why the rounds ended early (the default's trial failed); empty when they did not.
  const std::string& failure() const { return failure_; }
  // The recommendation from the last round that ran (tune_search's recommendation()).
  std::string recommendation() const;
  // The setting it recommends (tune_search's recommendedSetting()); absent when the default stays.
  std::optional<TuneSetting> recommendedSetting() const;

 private:
  std::vector<TrialResult> lastRound() const;
  TrialResult runTrial(const TuneSetting& setting, size_t round, const std::function<bool()>& stopRequested);

  TuneOptions options_;
  std::string name_;
  std::string storePath_;
  uint64_t firstSteps_ = kDefaultTrialSteps;
  TuneSetting baseline_;
  std::vector<TuneSetting> candidates_;
  std::vector<size_t> rounds_;
  std::vector<TrialResult> trials_;
  size_t lastRound_ = 0;
  bool stopped_ = false;
  std::string failure_;
};

}  // namespace ringmaster::console
