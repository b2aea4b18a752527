// SPDX-License-Identifier: GPL-3.0-or-later
#include "common/diagnosis/straggler_detector.h"

#include <algorithm>
#include <cmath>

#include "common/diagnosis/finding.h"
#include "common/statistics.h"

namespace ringmaster::diagnosis {

namespace {

struct Robust {
  double median = 0;
  double sigma = 0;
};

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

}  // namespace

StragglerDetector::StragglerDetector(int worldSize, StragglerConfig config)
    : worldSize_(std::max(worldSize, 1)), config_(config), ranks_(size_t(std::max(worldSize, 1))) {}

void StragglerDetector::setHost(int rank, const std::string& host) { hosts_[rank] = host; }

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
  Robust ownStats = robust(own, config_.noiseFloor);
  Robust commStats = haveComm ? robust(pending.commNs, config_.noiseFloor) : Robust{};
  double medianCompute = stats::median(compute);
  double medianData = stats::median(data);
  double medianTotal = stats::median(total);

  for (size_t r = 0; r < n; ++r) {
    StepScore score;
    score.step = step;
    score.ownScore = (own[r] - ownStats.median) / ownStats.sigma;
    score.ownSlowdown = ownStats.median > 0 ? own[r] / ownStats.median - 1 : 0;
    if (haveComm) {
      score.commScore = (pending.commNs[r] - commStats.median) / commStats.sigma;
      score.commSlowdown = commStats.median > 0 ? pending.commNs[r] / commStats.median - 1 : 0;
    }
    updateEpisode(int(r), score, pending, ownStats.median, medianCompute, medianData, commStats.median,
                  medianTotal);
  }
}

void StragglerDetector::updateEpisode(int rank, const StepScore& score, const PendingStep& pending,
                                      double medianOwn, double medianCompute, double medianData,
                                      double medianComm, double medianTotal) {
  RankState& state = ranks_[size_t(rank)];
  state.window.push_back(score);
  if (state.window.size() > config_.window) state.window.pop_front();
  if (state.window.size() < config_.window) return;

  std::vector<double> ownScores, ownSlowdowns, commScores, commSlowdowns;
  for (const auto& s : state.window) {
    ownScores.push_back(s.ownScore);
    ownSlowdowns.push_back(s.ownSlowdown);
    commScores.push_back(s.commScore);
    commSlowdowns.push_back(s.commSlowdown);
  }
  double ownScore = stats::median(ownScores);
  bool slowOwn = ownScore >= config_.minScore && stats::median(ownSlowdowns) >= config_.minSlowdown;
  // Slow communication at equal own time: a slow link or NIC on this rank.
  bool slowComm = !slowOwn && stats::median(commScores) >= config_.minScore &&
                  stats::median(commSlowdowns) >= 2 * config_.minSlowdown && std::fabs(ownScore) < 1.5;

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
  if (!slowNow || (!state.current && state.slowRun < config_.confirmSteps)) return;

  const auto& sample = *pending.samples[size_t(rank)];
  double compute = double(sample.forward_ns() + sample.backward_ns());
  if (!state.current) {
    Episode episode;
    episode.communication = slowComm;
    // The episode began at the first step of the window that already looked slow.
    episode.sinceStep = score.step;
    for (const auto& s : state.window) {
      if ((slowComm ? s.commScore : s.ownScore) >= config_.minScore) {
        episode.sinceStep = s.step;
        break;
      }
    }
    state.current = episode;
  }
  Episode& e = *state.current;
  e.lastStep = score.step;
  ++e.steps;
  e.slowdownSum += e.communication ? score.commSlowdown : score.ownSlowdown;
  e.scoreSum += e.communication ? score.commScore : score.ownScore;
  e.excessOwnNs += compute + double(sample.data_ns()) - medianOwn;
  e.excessComputeNs += compute - medianCompute;
  e.excessDataNs += double(sample.data_ns()) - medianData;
  e.excessCommNs += pending.commNs[size_t(rank)] - medianComm;
  e.stepNs += medianTotal;
}

v1::Finding StragglerDetector::describe(int rank, const Episode& e) const {
  double steps = double(std::max<uint64_t>(e.steps, 1));
  double slowdownPct = 100 * e.slowdownSum / steps;
  std::string cause = e.communication ? "communication" : (e.excessDataNs > e.excessComputeNs ? "data" : "compute");
  // Everyone else waits for the straggler at the next all-reduce: its excess is the job's loss.
  double waitNs = e.communication ? e.excessCommNs : e.excessOwnNs;
  double lostPct = e.stepNs > 0 ? std::clamp(100 * waitNs / e.stepNs, 0.0, 100.0) : 0;
  auto host = hosts_.count(rank) ? hosts_.at(rank) : std::string();

  auto severity = slowdownPct >= 25 ? v1::Finding::SEVERITY_CRITICAL : v1::Finding::SEVERITY_WARNING;
  v1::Finding f = makeFinding(v1::Finding::KIND_STRAGGLER, severity, rank, host, e.sinceStep, cause);
  std::string where = host.empty() ? "" : " (" + host + ")";
  std::string what = e.communication ? "all-reduce latency is" : "compute and data time are";
  f.set_summary(format("rank %d%s: %s %.0f%% above the median rank since step %llu (cause: %s); the others wait "
                       "%.1f ms per step, %.0f%% of throughput lost",
                       rank, where.c_str(), what.c_str(), slowdownPct, (unsigned long long)e.sinceStep,
                       cause.c_str(), waitNs / steps / 1e6, lostPct));
  auto& ev = *f.mutable_evidence();
  ev["slowdown_pct"] = slowdownPct;
  ev["throughput_lost_pct"] = lostPct;
  ev["others_wait_ms_per_step"] = waitNs / steps / 1e6;
  ev["compute_excess_ms_per_step"] = e.excessComputeNs / steps / 1e6;
  ev["data_excess_ms_per_step"] = e.excessDataNs / steps / 1e6;
  ev["comm_excess_ms_per_step"] = e.excessCommNs / steps / 1e6;
  ev["robust_score"] = e.scoreSum / steps;
  ev["steps_slow"] = double(e.steps);
  ev["last_slow_step"] = double(e.lastStep);
  if (e.recoveredAt) ev["recovered_at_step"] = double(*e.recoveredAt);
  return f;
}

std::vector<v1::Finding> StragglerDetector::findings() const {
  std::vector<v1::Finding> out;
  for (const auto& [rank, episode] : closed_) out.push_back(describe(rank, episode));
  for (size_t r = 0; r < ranks_.size(); ++r) {
    if (ranks_[r].current) out.push_back(describe(int(r), *ranks_[r].current));
  }
  return out;
}

}  // namespace ringmaster::diagnosis
