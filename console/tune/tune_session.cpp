// SPDX-License-Identifier: GPL-3.0-or-later
#include "console/tune/tune_session.h"

#include <chrono>
#include <ctime>

#include "common/error.h"
#include "common/job_spec.h"
#include "console/session/outcome_text.h"
#include "console/session/run_session.h"
#include "console/session/store_location.h"

namespace ringmaster::console {
namespace {

using namespace std::chrono_literals;

std::string timestampName() {
  const std::time_t now = std::time(nullptr);
  std::tm local{};
  localtime_r(&now, &local);
  char text[32];
  std::strftime(text, sizeof text, "tune-%Y%m%d-%H%M%S", &local);
  return text;
}

}  // namespace

TuneSession::TuneSession(TuneOptions options) : options_(std::move(options)) {
  const RunFlags& flags = options_.flags;
  if (const std::string problem = tuneTargetProblem(options_.target, flags.spec); !problem.empty()) {
    throw InputError(problem);
  }
  if (flags.noStore) {
    throw InputError(
        "--no-store: every trial is a run in the history, and tune reads its figures from there; "
        "leave it out, or give --store FILE");
  }
  if (!flags.summaryJson.empty() || !flags.timeline.empty()) {
    throw InputError(std::string(flags.summaryJson.empty() ? "--timeline" : "--summary-json") +
                     ": tune makes a run per trial, each stored in the history; leave it out and export a "
                     "trial from there (ringmaster report RUN)");
  }
  if (options_.trials < 2) {
    throw InputError("--trials must be at least 2 (the default and one other setting), got " +
                     std::to_string(options_.trials));
  }
  if (flags.spec.hyper().steps() > 0) firstSteps_ = flags.spec.hyper().steps();
  if (firstSteps_ < kMinTrialSteps) {
    throw InputError("--steps " + std::to_string(firstSteps_) + " is too short to tune: a trial's first " +
                     std::to_string(warmupSteps(firstSteps_)) + " steps are warm-up; give --steps " +
                     std::to_string(kMinTrialSteps) + " or more");
  }
  storePath_ = flags.store.empty() ? defaultStorePath(StoreFolder::Make).toStdString() : flags.store;
  name_ = !options_.name.empty()       ? options_.name
          : !flags.spec.name().empty() ? flags.spec.name()
                                       : timestampName();
  for (unsigned char c : name_) {
    if (c < 0x20 || c == 0x7f) {
      throw InputError(
          "--name: a tuning session's name becomes the tag of its trials (tune:NAME) and cannot hold "
          "control characters; choose a plain one");
    }
  }
  baseline_ = currentSetting(options_.target, flags.spec);
  const size_t available = spreadCandidates(baseline_, tuneGrid(options_.target).size() + 1).size();
  rounds_ = halvingRounds(options_.trials, available);
  candidates_ = spreadCandidates(baseline_, rounds_.front());
}

void TuneSession::run(const std::function<void(const TrialResult&)>& onTrial,
                      const std::function<bool()>& stopRequested) {
  std::vector<TuneSetting> settings = candidates_;
  std::vector<TrialResult> previous;
  for (size_t round = 0; round < rounds_.size(); ++round) {
    if (round > 0) settings = survivors(previous, rounds_[round]);
    std::vector<TrialResult> results;
    for (const auto& setting : settings) {
      if (stopped_ || stopRequested()) {
        stopped_ = true;
        return;
      }
      TrialResult trial = runTrial(setting, round, stopRequested);
      // The default runs first in every round: the others are measured against its run of the same length.
      if (!trial.isDefault && trial.measured() && !results.empty() && results.front().measured()) {
        trial.againstDefault = throughputDelta(results.front().metrics, trial.metrics);
      }
      lastRound_ = round;
      trials_.push_back(trial);
      results.push_back(trial);
      onTrial(trial);
      if (trial.isDefault && !trial.measured() && !stopped_) {
        failure_ = "the default's trial (run " + std::to_string(trial.runId) + ") " + trial.status + ": " +
                   toText(trial.failure) + "; there is nothing to measure the other settings against";
        return;
      }
    }
    previous = std::move(results);
  }
}

TrialResult TuneSession::runTrial(const TuneSetting& setting, size_t round,
                                  const std::function<bool()>& stopRequested) {
  TrialResult trial;
  trial.setting = setting;
  trial.isDefault = setting == baseline_;
  trial.round = round;
  trial.steps = stepsOfRound(round);

  RunFlags flags = options_.flags;
  setting.applyTo(flags.spec);
  flags.spec.mutable_hyper()->set_steps(trial.steps);
  const std::string number = std::to_string(trials_.size() + 1);
  flags.spec.set_name(name_ + " #" + number);
  if (!flags.jobId.empty()) flags.jobId += "-" + number;  // each trial is a job of its own on the hosts

  RunSessionOptions options;
  options.storePath = storePath_;
  RunSession session(launchPlan(flags), options);
  try {
    session.start();
  } catch (...) {
    // A run created before the launch failed is stored as failed: it belongs to the session all the same.
    if (session.runId() > 0) RunStore(storePath_).addTag(session.runId(), tag());
    throw;
  }
  trial.runId = session.runId();
  RunStore(storePath_).addTag(trial.runId, tag());

  std::optional<JobOutcome> outcome;
  bool stopping = false;
  while (!(outcome = session.waitFor(250ms))) {
    if (!stopping && stopRequested()) {
      stopping = true;
      stopped_ = true;
      session.stop(5);
    }
  }
  const RunResult result = session.finish(*outcome);
  trial.status = result.status;
  if (outcome->status != JobStatus::Succeeded) {
    trial.failure = outcome->message;
    return trial;
  }
  RunStore::Options readOnly;
  readOnly.readOnly = true;
  trial.metrics = measureTrial(RunStore(storePath_, readOnly), trial.runId);
  if (!trial.measured()) trial.failure = outcomeSentence(text::kNoStepsAfterWarmUp);
  return trial;
}

std::vector<TrialResult> TuneSession::lastRound() const {
  std::vector<TrialResult> last;
  for (const auto& t : trials_) {
    if (t.round == lastRound_) last.push_back(t);
  }
  return last;
}

std::string TuneSession::recommendation() const {
  return console::recommendation(lastRound());
}

std::optional<TuneSetting> TuneSession::recommendedSetting() const {
  return console::recommendedSetting(lastRound());
}

}  // namespace ringmaster::console
