// SPDX-License-Identifier: GPL-3.0-or-later
#include "diagnosis/straggler_detector.h"

#include <algorithm>
#include <cmath>

#include "diagnosis/advice.h"
#include "diagnosis/evidence_keys.h"
#include "diagnosis/finding.h"
#include "diagnosis/statistics.h"
#include "diagnosis/summary_text.h"

namespace ringmaster::diagnosis {

namespace {

// The recent windows whose scatter makes the CUSUM's noise unit: long enough to be steady.
constexpr size_t kScatterWindows = 64;

// A communication episode is an early rank's wait when its own time is below the median by more than this
// share of its all-reduce excess (in a synchronous collective the two would be equal).
constexpr double kEarlyArrivalShare = 0.5;
// A rank this much slower than the median is a critical straggler (percent).
constexpr double kCriticalSlowdownPct = 25;

// The arrival test judges a rank's own excess over at most this many recent steps, so that a long run keeps
// its memory and its per-step cost bounded.
constexpr size_t kArrivalSteps = 512;

// The standard error of the median of n normal values is about sqrt(pi / 2) sigma / sqrt(n).
constexpr double kMedianStandardError = 1.2533141373155;

struct Robust {
  double median = 0;
  double sigma = 0;
};

// The level that a majority of a window's values reach: the median, and for an even count the lower of the
// two middle values, so that a burst of hiccups filling exactly half the window is not "most of the window".
double majorityLevel(std::vector<double> values) {
  const auto middle = values.begin() + std::ptrdiff_t((values.size() - 1) / 2);
  std::nth_element(values.begin(), middle, values.end());
  return *middle;
}

// Median and robust spread of one step's values across ranks. With two ranks the MAD only restates their
// difference, so the noise floor alone stands for the spread.
Robust robust(const std::vector<double>& values, double noiseFloor) {
  Robust r;
  r.median = stats::median(values);
  double floor = std::max(noiseFloor * std::fabs(r.median), 1.0);
  double mad = values.size() > 2 ? stats::kMadToSigma * stats::medianAbsoluteDeviation(values, r.median) : 0;
  r.sigma = std::max(mad, floor);
  return r;
}

// The median of the other ranks' values: what the ranks that wait for `rank` did that step. With two ranks
// it is the other rank's value, where the median of all would be their mean and halve a straggler's cost.
double othersMedian(const std::vector<double>& values, size_t rank) {
  std::vector<double> others;
  others.reserve(values.size());
  for (size_t r = 0; r < values.size(); ++r) {
    if (r != rank) others.push_back(values[r]);
  }
  return others.empty() ? values[rank] : stats::median(others);
}

}  // namespace

StragglerDetector::StragglerDetector(int worldSize, StragglerConfig config)
    : worldSize_(std::max(worldSize, 1)), config_(config), ranks_(size_t(std::max(worldSize, 1))) {}

void StragglerDetector::setHost(int rank, const std::string& host) {
  hosts_[rank] = host;
}

void StragglerDetector::add(const v1::StepSample& sample) {
  if (sample.rank() < 0 || sample.rank() >= worldSize_ || sample.step() < config_.warmupSteps) return;
  auto [it, inserted] = pending_.try_emplace(sample.step());
  PendingStep& pending = it->second;
  if (pending.samples.empty()) {
    pending.samples.resize(size_t(worldSize_));
    pending.commNs.assign(size_t(worldSize_), 0);
  }
  auto& slot = pending.samples[size_t(sample.rank())];
  if (slot) return;  // a duplicate
  slot = sample;
  if (++pending.reported == worldSize_) {
    evaluate(sample.step(), pending);
    pending_.erase(it);
  }
  while (pending_.size() > config_.maxPendingSteps) pending_.erase(pending_.begin());
}

void StragglerDetector::add(const v1::AllreduceOp& op) {
  if (op.rank() < 0 || op.rank() >= worldSize_ || op.step() < config_.warmupSteps) return;
  PendingStep& pending = pending_[op.step()];
  if (pending.samples.empty()) {
    pending.samples.resize(size_t(worldSize_));
    pending.commNs.assign(size_t(worldSize_), 0);
  }
  double latencyNs = op.latency_us() > 0 ? op.latency_us() * 1e3 : double(op.end_ns() - op.start_ns());
  pending.commNs[size_t(op.rank())] += latencyNs;
}

void StragglerDetector::evaluate(uint64_t step, PendingStep& pending) {
  ++stepsEvaluated_;
  size_t n = size_t(worldSize_);
  std::vector<double> own(n), compute(n), data(n), total(n);
  for (size_t r = 0; r < n; ++r) {
    const auto& s = *pending.samples[r];
    compute[r] = double(s.forward_ns() + s.backward_ns());
    data[r] = double(s.data_ns());
    own[r] = compute[r] + data[r];
    total[r] = double(s.total_ns());
  }
  bool haveComm = std::all_of(pending.commNs.begin(), pending.commNs.end(), [](double v) { return v > 0; });
  Robust commStats = haveComm ? robust(pending.commNs, config_.commNoiseFloor) : Robust{};
  double medianOwn = stats::median(own);
  double medianTotal = stats::median(total);
  runStepNs_ += medianTotal;

  for (size_t r = 0; r < n; ++r) {
    StepExcess excess;
    excess.step = step;
    excess.own = own[r] - medianOwn;
    excess.medianOwn = medianOwn;
    if (haveComm) {
      excess.commScore = (pending.commNs[r] - commStats.median) / commStats.sigma;
      excess.commSlowdown = commStats.median > 0 ? pending.commNs[r] / commStats.median - 1 : 0;
    }
    auto& window = ranks_[r].window;
    window.push_back(excess);
    if (window.size() > config_.window) window.pop_front();
  }
  // Every rank's window holds the same steps: a step is evaluated once all ranks have reported it.
  if (ranks_[0].window.size() < config_.window) return;
  const double typical = typicalOwn();
  const std::vector<WindowScore> scores = scoreWindows(step, typical);
  accumulate(typical);
  accumulateArrival(pending, typical);
  for (size_t r = 0; r < n; ++r) {
    updateEpisode(int(r), scores[r], pending, StepTimes{own, compute, data}, medianTotal);
  }
}

double StragglerDetector::typicalOwn() const {
  std::vector<double> medians;
  for (const auto& s : ranks_[0].window) medians.push_back(s.medianOwn);
  return stats::median(medians);
}

std::vector<StragglerDetector::WindowScore> StragglerDetector::scoreWindows(uint64_t step, double typical) {
  const size_t n = ranks_.size();
  std::vector<double> windowExcess(n), residuals;
  for (size_t r = 0; r < n; ++r) {
    std::vector<double> values;
    for (const auto& s : ranks_[r].window) values.push_back(s.own);
    windowExcess[r] = majorityLevel(values);
    for (double v : values) residuals.push_back(std::fabs(v - windowExcess[r]));
  }
  // How far a window median wanders by chance, from every rank's step-to-step scatter.
  const double stepScatter = stats::kMadToSigma * stats::median(residuals);
  scatter_.push_back(stepScatter);
  if (scatter_.size() > kScatterWindows) scatter_.pop_front();
  const double standardError = kMedianStandardError * stepScatter / std::sqrt(double(config_.window));
  // How far ranks' windows differ anyway; with two ranks this would only restate their difference.
  const double acrossRanks =
      n > 2 ? stats::kMadToSigma * stats::medianAbsoluteDeviation(windowExcess, stats::median(windowExcess))
            : 0;
  const double noise =
      std::max({std::hypot(standardError, acrossRanks), config_.noiseFloor * std::fabs(typical), 1.0});

  std::vector<WindowScore> scores(n);
  for (size_t r = 0; r < n; ++r) {
    WindowScore& score = scores[r];
    score.step = step;
    score.ownScore = windowExcess[r] / noise;
    score.ownSlowdown = typical > 0 ? windowExcess[r] / typical : 0;
    std::vector<double> commScores, commSlowdowns;
    for (const auto& s : ranks_[r].window) {
      commScores.push_back(s.commScore);
      commSlowdowns.push_back(s.commSlowdown);
    }
    score.commScore = majorityLevel(commScores);
    score.commSlowdown = majorityLevel(commSlowdowns);
  }
  return scores;
}

void StragglerDetector::accumulate(double typical) {
  if (!(typical > 0) || scatter_.empty()) return;
  const double noise = std::max(
      stats::median(std::vector<double>(scatter_.begin(), scatter_.end())) / typical, config_.noiseFloor);
  auto clip = [&](double units) { return std::clamp(units, -config_.cusumClip, config_.cusumClip); };
  for (RankState& state : ranks_) {
    const StepExcess& now = state.window.back();
    const double excess = now.own / typical;
    Cusum& c = state.cusum;
    if (c.slow) {
      // Evidence that the excess fell below half the level it was found at.
      c.recovery = std::max(0.0, c.recovery + clip((c.slowLevel / 2 - excess) / noise));
      if (c.recovery >= config_.cusumThreshold / 2) c = Cusum{};
      continue;
    }
    if (c.sum <= 0) {
      c = Cusum{};
      c.sinceStep = now.step;
    }
    c.sum = std::max(0.0, c.sum + clip((excess - config_.cusumAllowance) / noise));
    c.excesses.push_back(excess);
    if (c.sum >= config_.cusumThreshold) {
      c.slow = true;
      c.slowLevel = stats::median(c.excesses);  // spikes on the way do not set the bar for recovery
      c.excesses.clear();
    }
  }
}

void StragglerDetector::accumulateArrival(const PendingStep& pending, double typical) {
  const size_t n = ranks_.size();
  if (n < 3 || !(typical > 0)) return;
  // The last rank to reach the collective is the one that waits least in it.
  size_t last = 0;
  for (size_t r = 1; r < n; ++r) {
    if (pending.samples[r]->comm_wait_ns() < pending.samples[last]->comm_wait_ns()) last = r;
  }
  const double chance = 1.0 / double(n);
  const double twice = std::min(2 * chance, 0.9);
  const double lateWeight = std::log(twice / chance);
  const double onTimeWeight = std::log((1 - twice) / (1 - chance));
  for (size_t r = 0; r < n; ++r) {
    Arrival& a = ranks_[r].arrival;
    const StepExcess& now = ranks_[r].window.back();
    if (a.llr <= 0) {
      a = Arrival{};
      a.sinceStep = now.step;
    }
    a.llr = std::max(0.0, a.llr + (r == last ? lateWeight : onTimeWeight));
    a.excesses.push_back(now.own / typical);
    if (a.excesses.size() > kArrivalSteps) a.excesses.pop_front();
    if (a.llr >= config_.arrivalThreshold) {
      // Late more often than chance, and slower for it: a straggler, not a rank that happens to be scheduled
      // last. Once found it stays found until the ratio is back at zero (a noisy median does not end it); the
      // ratio is held at twice the threshold, so that evidence to the contrary ends it in time.
      a.late = a.late || stats::median(std::vector<double>(a.excesses.begin(), a.excesses.end())) >=
                             config_.minSlowdown;
      a.llr = std::min(a.llr, 2 * config_.arrivalThreshold);
    }
    if (a.llr <= 0) a.late = false;
  }
}

void StragglerDetector::updateEpisode(int rank, const WindowScore& score, const PendingStep& pending,
                                      const StepTimes& times, double medianTotal) {
  RankState& state = ranks_[size_t(rank)];
  const bool windowSlow = score.ownScore >= config_.minScore && score.ownSlowdown >= config_.minSlowdown;
  // Evidence accumulated over the run is confirmation enough.
  const bool sustained =
      (state.cusum.slow && state.cusum.slowLevel >= config_.minSlowdown) || state.arrival.late;
  const bool slowOwn = windowSlow || sustained;
  // Slow communication at equal own time: a slow link or NIC on this rank. Not with two ranks: there the
  // median is their mean, and one rank's longer all-reduce is only the other's lateness seen from the rank
  // that arrived first.
  bool slowComm = worldSize_ > 2 && !slowOwn && score.commScore >= config_.minScore &&
                  score.commSlowdown >= 2 * config_.minSlowdown && std::fabs(score.ownScore) < 1.5;

  bool slowNow = state.current ? (state.current->communication ? slowComm : slowOwn) : (slowOwn || slowComm);
  state.slowRun = slowNow ? state.slowRun + 1 : 0;
  state.fastRun = slowNow ? 0 : state.fastRun + 1;
  // An episode opens and closes only after the window has said so several steps in a row: a burst of
  // hiccups that happens to fill half a window does not make a straggler.
  if (state.current && state.fastRun >= config_.confirmSteps) {
    state.current->recoveredAt = score.step - (config_.confirmSteps - 1);
    closed_.emplace_back(rank, *state.current);
    state.current.reset();
  }
  if (!slowNow || (!state.current && state.slowRun < config_.confirmSteps && !(sustained && !slowComm)))
    return;

  const auto& sample = *pending.samples[size_t(rank)];
  double compute = double(sample.forward_ns() + sample.backward_ns());
  if (!state.current) {
    Episode episode;
    episode.communication = slowComm;
    // The episode began at the first step of the window that already looked slow: for own time, more than
    // half as slow as the window; for communication, a step that scored high on its own. Found by the
    // CUSUM alone, it began where the evidence started to add up.
    episode.sinceStep = score.step;
    if (!windowSlow && !slowComm)
      episode.sinceStep = state.cusum.slow ? state.cusum.sinceStep : state.arrival.sinceStep;
    for (const auto& s : state.window) {
      const bool slow = slowComm     ? s.commScore >= config_.minScore
                        : windowSlow ? s.medianOwn > 0 && s.own / s.medianOwn >= score.ownSlowdown / 2
                                     : false;
      if (slow) {
        episode.sinceStep = s.step;
        break;
      }
    }
    state.current = episode;
  }
  Episode& e = *state.current;
  e.lastStep = score.step;
  ++e.steps;
  // The finding quotes each step's own slowdown, not the window's (which lags at an episode's start).
  const StepExcess& now = state.window.back();
  e.slowdownSum += e.communication ? now.commSlowdown : (now.medianOwn > 0 ? now.own / now.medianOwn : 0);
  e.scoreSum += e.communication ? score.commScore : score.ownScore;
  // Against the ranks that wait for it: they reach the all-reduce when their own time is done, and wait there
  // for this rank's.
  const size_t r = size_t(rank);
  const double ownExcess = compute + double(sample.data_ns()) - othersMedian(times.own, r);
  e.excessOwnNs += ownExcess;
  e.excessOwnSquares += ownExcess * ownExcess;
  e.excessOwnOverJobNs += compute + double(sample.data_ns()) - stats::median(times.own);
  e.excessComputeNs += compute - othersMedian(times.compute, r);
  e.excessDataNs += double(sample.data_ns()) - othersMedian(times.data, r);
  if (std::all_of(pending.commNs.begin(), pending.commNs.end(), [](double v) { return v > 0; }))
    e.excessCommNs += pending.commNs[r] - othersMedian(pending.commNs, r);
  std::vector<double> othersWait;
  for (size_t other = 0; other < pending.samples.size(); ++other) {
    if (other != r) othersWait.push_back(double(pending.samples[other]->comm_wait_ns()));
  }
  if (!othersWait.empty())
    e.othersCommWaitExcessNs += stats::median(othersWait) - double(sample.comm_wait_ns());
  e.stepNs += medianTotal;
}

std::optional<v1::Finding> StragglerDetector::describe(int rank, const Episode& e) const {
  double steps = double(std::max<uint64_t>(e.steps, 1));
  double slowdownPct = 100 * e.slowdownSum / steps;
  // In a collective the rank that arrives first waits longest: a longer all-reduce that comes with a shorter
  // compute and data time is this rank waiting for the others, not a slow link of its own.
  // A shortfall within the noise of the episode's mean own time says nothing either way.
  if (e.communication) {
    const double earlyBy = -e.excessOwnNs / steps;
    const double ownVariance = std::max(0.0, e.excessOwnSquares / steps - earlyBy * earlyBy);
    const double standardError = std::sqrt(ownVariance / steps);
    if (earlyBy > kEarlyArrivalShare * e.excessCommNs / steps && earlyBy > 2 * standardError)
      return std::nullopt;
  }
  std::string cause =
      e.communication ? "communication" : (e.excessDataNs > e.excessComputeNs ? "data" : "compute");
  // Everyone else waits for the straggler at the next all-reduce: its excess is the job's loss. An excess
  // that averaged out below the median over the episode is no wait at all.
  double waitNs = std::max(0.0, e.communication ? e.excessCommNs : e.excessOwnNs);
  double lostPct = e.stepNs > 0 ? std::clamp(100 * waitNs / e.stepNs, 0.0, 100.0) : 0;
  // A finding must matter to be shown: a rank no slower than the median, or one nobody waited for, is none.
  if (!(slowdownPct > 0) || !(waitNs > 0)) return std::nullopt;
  auto host = hosts_.count(rank) ? hosts_.at(rank) : std::string();

  // A slowness must matter to be more than information: a rank clearly slower than the others, costing enough
  // of the job's throughput, for at least a window of steps (one slow step at the end of a run costs nothing
  // worth acting on). How much it matters is judged against the job's middle, the median of every rank: with
  // two ranks, noise that makes each in turn the slower one is half as large there as seen from the other
  // rank, and stays information; a real straggler clears it all the same. Two ranks sharing a machine's
  // cores take turns at being slowed by their neighbours for a dozen steps or a few dozen, which no single
  // step tells from a straggler: there a moderate slowness must last longer, and one that came and went
  // matters by what it cost the run so far.
  const double overJobNs = std::max(0.0, e.communication ? e.excessCommNs : e.excessOwnOverJobNs);
  const double materialPct = e.stepNs > 0 ? 100 * overJobNs / e.stepNs : 0;
  const double runPct = runStepNs_ > 0 ? 100 * overJobNs / runStepNs_ : 0;
  const bool critical = slowdownPct >= kCriticalSlowdownPct;
  const bool moderateOfTwo = worldSize_ == 2 && !critical;
  const bool material = slowdownPct >= 100 * config_.minSlowdown && materialPct >= kMaterialLossPct &&
                        e.steps >= (moderateOfTwo ? config_.materialSteps : config_.window) &&
                        (!moderateOfTwo || !e.recoveredAt || runPct >= kMaterialLossPct);
  auto severity = !material  ? v1::Finding::SEVERITY_INFO
                  : critical ? v1::Finding::SEVERITY_CRITICAL
                             : v1::Finding::SEVERITY_WARNING;
  v1::Finding f = makeFinding(v1::Finding::KIND_STRAGGLER, severity, rank, host, e.sinceStep, cause);
  const Sentence cost = say(text::kOthersWait, {Decimal{waitNs / steps / 1e6, 1}, Decimal{lostPct, 0}});
  setSummary(f,
             say(e.communication ? text::kStragglerLatency : text::kStragglerCompute,
                 {rankOnHost(rank, host), Decimal{slowdownPct, 0}, e.sinceStep, say(cause.c_str()), cost}));
  auto& ev = *f.mutable_evidence();
  ev[evidence::kSlowdownPct] = slowdownPct;
  ev[evidence::kThroughputLostPct] = lostPct;
  ev[evidence::kOthersWaitMsPerStep] = waitNs / steps / 1e6;
  ev[evidence::kComputeExcessMsPerStep] = e.excessComputeNs / steps / 1e6;
  ev[evidence::kDataExcessMsPerStep] = e.excessDataNs / steps / 1e6;
  ev[evidence::kCommExcessMsPerStep] = e.excessCommNs / steps / 1e6;
  // The others' longer wait in communication is what the straggler's own excess costs them: its evidence.
  if (!e.communication && e.othersCommWaitExcessNs > 0)
    ev[evidence::kOthersCommExcessMsPerStep] = e.othersCommWaitExcessNs / steps / 1e6;
  ev[evidence::kRobustScore] = e.scoreSum / steps;
  ev[evidence::kStepsSlow] = double(e.steps);
  ev[evidence::kLastSlowStep] = double(e.lastStep);
  if (e.recoveredAt) ev[evidence::kRecoveredAtStep] = double(*e.recoveredAt);
  addAdvice(f);
  return f;
}

std::vector<v1::Finding> StragglerDetector::findings() const {
  std::vector<v1::Finding> out;
  for (const auto& [rank, episode] : closed_) {
    if (auto f = describe(rank, episode)) out.push_back(std::move(*f));
  }
  for (size_t r = 0; r < ranks_.size(); ++r) {
    if (!ranks_[r].current) continue;
    if (auto f = describe(int(r), *ranks_[r].current)) out.push_back(std::move(*f));
  }
  return out;
}

}  // namespace ringmaster::diagnosis
