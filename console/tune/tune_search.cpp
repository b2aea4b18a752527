// SPDX-License-Identifier: GPL-3.0-or-later
#include "console/tune/tune_search.h"

#include <QCoreApplication>
#include <algorithm>
#include <cmath>
#include <limits>

#include "common/job_spec.h"
#include "console/models/comparison_model.h"

namespace ringmaster::console {
namespace {

// The flags each target tunes, in TuneSetting::values' order.
std::vector<std::string_view> tunedFlags(TuneTarget target) {
  if (target == TuneTarget::BucketCap) return {"--bucket-cap-mb"};
  return {"--fusion-threshold-mb", "--cycle-time-ms"};
}

// Settings compared on a log scale: doubling a bucket is the same step at 1 MiB as at 100. A fusion
// threshold of 0 (no fusion) sits just below the grid.
double distance(const TuneSetting& a, const TuneSetting& b) {
  double sum = 0;
  for (size_t i = 0; i < a.values.size() && i < b.values.size(); ++i) {
    const double d = std::log2(std::max(a.values[i], 0.25)) - std::log2(std::max(b.values[i], 0.25));
    sum += d * d;
  }
  return std::sqrt(sum);
}

// Runs a halving schedule from `first` settings takes in all.
size_t halvingRuns(size_t first) {
  size_t runs = 0;
  for (size_t n = first;; n = (n + 1) / 2) {
    runs += n;
    if (n <= 2) break;
  }
  return runs;
}

}  // namespace

std::string_view tuneTargetName(TuneTarget target) {
  return target == TuneTarget::BucketCap ? "bucket-cap" : "fusion";
}

std::optional<TuneTarget> tuneTargetFromName(std::string_view name) {
  for (TuneTarget t : {TuneTarget::BucketCap, TuneTarget::Fusion}) {
    if (name == tuneTargetName(t)) return t;
  }
  return std::nullopt;
}

std::string tuneTargetFlags(TuneTarget target) {
  std::string text;
  for (auto flag : tunedFlags(target)) text += (text.empty() ? "" : " x ") + std::string(flag);
  return text;
}

TuneTarget defaultTuneTarget(const v1::JobSpec& spec) {
  return spec.engine() == v1::ENGINE_HOROVOD ? TuneTarget::Fusion : TuneTarget::BucketCap;
}

std::string tuneTargetProblem(TuneTarget target, const v1::JobSpec& spec) {
  if (isUserProgram(spec)) {
    return "a program of your own keeps its own communication settings: tune searches those of Ringmaster's "
           "engines (leave out the program after --)";
  }
  const bool horovod = spec.engine() == v1::ENGINE_HOROVOD;
  if (target == TuneTarget::BucketCap && horovod) {
    return "--tune bucket-cap tunes the ddp engine's buckets, and this job runs --engine horovod: use --tune "
           "fusion, or --engine ddp";
  }
  if (target == TuneTarget::Fusion && !horovod) {
    return "--tune fusion tunes the horovod engine's fusion buffer and cycle, and this job runs --engine "
           "ddp: "
           "use --tune bucket-cap, or --engine horovod";
  }
  return {};
}

std::string TuneSetting::flags() const {
  std::string text;
  const auto names = tunedFlags(target);
  for (size_t i = 0; i < names.size() && i < values.size(); ++i) {
    text += (text.empty() ? "" : " ") + std::string(names[i]) + " " + formatNumber(values[i]);
  }
  return text;
}

void TuneSetting::applyTo(v1::JobSpec& spec) const {
  auto* h = spec.mutable_hyper();
  if (target == TuneTarget::BucketCap) {
    h->set_bucket_cap_mb(values.at(0));
  } else {
    h->set_fusion_threshold_mb(values.at(0));
    h->set_cycle_time_ms(values.at(1));
  }
}

TuneSetting currentSetting(TuneTarget target, const v1::JobSpec& spec) {
  const auto& h = spec.hyper();
  if (target == TuneTarget::BucketCap) return {target, {h.bucket_cap_mb()}};
  return {target, {h.fusion_threshold_mb(), h.cycle_time_ms()}};
}

std::vector<TuneSetting> tuneGrid(TuneTarget target) {
  std::vector<TuneSetting> grid;
  if (target == TuneTarget::BucketCap) {
    // Around PyTorch's 25 MiB: from a bucket per layer or two up to one bucket for a large model.
    for (double mb : {1.0, 2.0, 5.0, 10.0, 25.0, 50.0, 100.0, 200.0}) grid.push_back({target, {mb}});
  } else {
    // Horovod's default is 128 MiB and 1 ms (Ringmaster's too); its autotuner searches about this range.
    for (double mb : {8.0, 16.0, 32.0, 64.0, 128.0, 256.0}) {
      for (double ms : {0.5, 1.0, 2.5, 5.0, 10.0}) grid.push_back({target, {mb, ms}});
    }
  }
  return grid;
}

std::vector<TuneSetting> spreadCandidates(const TuneSetting& baseline, size_t count) {
  std::vector<TuneSetting> chosen = {baseline};
  std::vector<TuneSetting> left;
  for (auto& s : tuneGrid(baseline.target)) {
    if (!(s == baseline)) left.push_back(std::move(s));
  }
  while (chosen.size() < count && !left.empty()) {
    size_t pick = 0;
    double farthest = -1;
    for (size_t i = 0; i < left.size(); ++i) {
      double nearest = std::numeric_limits<double>::infinity();
      for (const auto& c : chosen) nearest = std::min(nearest, distance(left[i], c));
      if (nearest > farthest) {  // ties keep the grid's order: deterministic
        farthest = nearest;
        pick = i;
      }
    }
    chosen.push_back(left[pick]);
    left.erase(left.begin() + static_cast<std::ptrdiff_t>(pick));
  }
  return chosen;
}

std::vector<size_t> halvingRounds(size_t trials, size_t candidates) {
  size_t first = 0;
  for (size_t n = 4; n <= candidates; ++n) {
    if (halvingRuns(n) <= trials) first = n;
  }
  if (first == 0) return {std::min(trials, candidates)};
  std::vector<size_t> rounds;
  for (size_t n = first;; n = (n + 1) / 2) {
    rounds.push_back(n);
    if (n <= 2) break;
  }
  return rounds;
}

RunMetrics measureTrial(const RunStore& store, int64_t runId) {
  auto info = store.run(runId);
  if (!info) throw InputError("no run " + std::to_string(runId) + " in " + store.path());
  std::vector<RankSeries> series = store.rankSeries(runId);
  uint64_t first = std::numeric_limits<uint64_t>::max(), last = 0;
  for (const auto& s : series) {
    for (const auto& step : s.steps) {
      first = std::min<uint64_t>(first, step.step());
      last = std::max<uint64_t>(last, step.step());
    }
  }
  if (first <= last) {
    const uint64_t from = first + warmupSteps(last - first + 1);
    for (auto& s : series) {
      auto early = [from](const auto& record) { return record.step() < from; };
      s.steps.erase(std::remove_if(s.steps.begin(), s.steps.end(), early), s.steps.end());
      s.allreduce.erase(std::remove_if(s.allreduce.begin(), s.allreduce.end(), early), s.allreduce.end());
      s.memory.erase(std::remove_if(s.memory.begin(), s.memory.end(), early), s.memory.end());
    }
  }
  return computeMetrics(*info, series, store.ranks(runId), {});
}

MetricDelta throughputDelta(const RunMetrics& baseline, const RunMetrics& trial) {
  RunComparison c = compareRuns(baseline, trial);
  for (auto& d : c.deltas) {
    if (d.metric == "throughput") return d;
  }
  return {};  // compareRuns always has a throughput row
}

std::vector<TuneSetting> survivors(const std::vector<TrialResult>& round, size_t size) {
  std::vector<TuneSetting> next;
  std::vector<const TrialResult*> others;
  for (const auto& t : round) {
    if (t.isDefault) {
      next.insert(next.begin(), t.setting);
    } else if (t.measured()) {
      others.push_back(&t);
    }
  }
  std::stable_sort(others.begin(), others.end(), [](const TrialResult* a, const TrialResult* b) {
    return a->metrics.throughput > b->metrics.throughput;
  });
  for (const TrialResult* t : others) {
    if (next.size() >= size) break;
    next.push_back(t->setting);
  }
  return next;
}

namespace {

// The measured trials of a round that a recommendation weighs.
struct RoundLeaders {
  const TrialResult* base = nullptr;
  const TrialResult* best = nullptr;  // the highest throughput, the default included
  const TrialResult* bestOther = nullptr;

  explicit RoundLeaders(const std::vector<TrialResult>& round) {
    for (const auto& t : round) {
      if (!t.measured()) continue;
      if (t.isDefault) base = &t;
      if (!best || t.metrics.throughput > best->metrics.throughput) best = &t;
      if (!t.isDefault && (!bestOther || t.metrics.throughput > bestOther->metrics.throughput))
        bestOther = &t;
    }
  }
  // The best beats the default beyond the interval.
  bool bestWins() const {
    return base && bestOther && best != base && best->againstDefault && best->againstDefault->verdict() > 0;
  }
};

}  // namespace

std::optional<TuneSetting> recommendedSetting(const std::vector<TrialResult>& lastRound) {
  const RoundLeaders leaders(lastRound);
  if (!leaders.bestWins()) return std::nullopt;
  return leaders.best->setting;
}

std::string recommendation(const std::vector<TrialResult>& lastRound) {
  // In the console's language (English where no translation is installed, as in the CLI).
  const RoundLeaders leaders(lastRound);
  const TrialResult* base = leaders.base;
  const TrialResult* best = leaders.best;
  const TrialResult* bestOther = leaders.bestOther;
  if (!base) {
    return QCoreApplication::translate(
               "ringmaster::console::TuneSearch",
               "the default's trial has no measured throughput: nothing to compare against")
        .toStdString();
  }
  if (!bestOther) {
    return QCoreApplication::translate("ringmaster::console::TuneSearch",
                                       "no trial but the default's was measured: nothing to recommend")
        .toStdString();
  }
  auto measured = [](const TrialResult& t) {
    return t.againstDefault ? ComparisonModel::formatDelta(*t.againstDefault) : QStringLiteral("-");
  };
  auto flags = [](const TrialResult& t) { return QString::fromStdString(t.setting.flags()); };
  if (best == base) {
    return QCoreApplication::translate("ringmaster::console::TuneSearch",
                                       "the default is as good as any trial: it measured the highest "
                                       "throughput (run %1); the next best, %2, measured %3 (run %4)")
        .arg(base->runId)
        .arg(flags(*bestOther), measured(*bestOther))
        .arg(bestOther->runId)
        .toStdString();
  }
  if (leaders.bestWins()) {
    return QCoreApplication::translate("ringmaster::console::TuneSearch",
                                       "best: %1, %2 over the default (run %3 against run %4)")
        .arg(flags(*best), measured(*best))
        .arg(best->runId)
        .arg(base->runId)
        .toStdString();
  }
  return QCoreApplication::translate("ringmaster::console::TuneSearch",
                                     "the default is as good as any trial: the best, %1, measured %2 over "
                                     "the default, within the noise (run %3 against run %4)")
      .arg(flags(*best), measured(*best))
      .arg(best->runId)
      .arg(base->runId)
      .toStdString();
}

}  // namespace ringmaster::console
