// SPDX-License-Identifier: GPL-3.0-or-later
#include "diagnosis/comparison.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "diagnosis/advice.h"
#include "diagnosis/evidence_keys.h"
#include "diagnosis/finding.h"
#include "diagnosis/run_diagnosis.h"
#include "diagnosis/run_figures.h"
#include "diagnosis/summary_text.h"

// lupdate collects the patterns marked with Qt's QT_TRANSLATE_NOOP from this file; diagnosis/ has no Qt, so
// here the marker is the text itself.
#define QT_TRANSLATE_NOOP(context, text) text

namespace ringmaster {

namespace {
constexpr double kMiB = 1024.0 * 1024.0;

// Who: "run 7 (baseline)", "run 7"; "run 7 on 4 ranks", "run 3 on 2".
const char kRunNamed[] = QT_TRANSLATE_NOOP("ringmaster::Comparison", "run %1 (%2)");
const char kRun[] = QT_TRANSLATE_NOOP("ringmaster::Comparison", "run %1");
const char kOnRanks[] = QT_TRANSLATE_NOOP("ringmaster::Comparison", "%1 on %2 ranks");
const char kOn[] = QT_TRANSLATE_NOOP("ringmaster::Comparison", "%1 on %2");
// What a run lacks.
const char kNeitherRunHas[] = QT_TRANSLATE_NOOP("ringmaster::Comparison", "neither run has %1");
const char kRunHasNo[] = QT_TRANSLATE_NOOP("ringmaster::Comparison", "%1 has no %2");
const char kStepSamples[] = QT_TRANSLATE_NOOP("ringmaster::Comparison", "step samples");
const char kSampleCounts[] =
    QT_TRANSLATE_NOOP("ringmaster::Comparison", "sample counts (a profiler trace has no batch sizes)");
const char kAllreduceOps[] = QT_TRANSLATE_NOOP("ringmaster::Comparison", "all-reduce ops");
const char kMemorySamples[] = QT_TRANSLATE_NOOP("ringmaster::Comparison", "memory samples");
const char kAllreduceSizes[] = QT_TRANSLATE_NOOP("ringmaster::Comparison", "all-reduce sizes");
const char kAllreduceBandwidth[] = QT_TRANSLATE_NOOP("ringmaster::Comparison", "all-reduce bandwidth");
const char kAllreduceTimes[] = QT_TRANSLATE_NOOP("ringmaster::Comparison", "all-reduce times");
// Verdicts.
const char kCannotCompareSteps[] =
    QT_TRANSLATE_NOOP("ringmaster::Comparison", "%1: step times cannot be compared");
const char kOnlyByThroughput[] = QT_TRANSLATE_NOOP(
    "ringmaster::Comparison", "%1: runs of different rank counts compare only by throughput");
const char kHigherThroughput[] =
    QT_TRANSLATE_NOOP("ringmaster::Comparison", "%1 has %2% higher throughput than %3 (95% CI %4% to %5%)");
const char kLowerThroughput[] =
    QT_TRANSLATE_NOOP("ringmaster::Comparison", "%1 has %2% lower throughput than %3 (95% CI %4% to %5%)");
const char kSameThroughput[] =
    QT_TRANSLATE_NOOP("ringmaster::Comparison",
                      "no significant difference in throughput between %1 and %2 (%3%, 95% CI %4% to %5%)");
const char kFaster[] =
    QT_TRANSLATE_NOOP("ringmaster::Comparison", "%1 is %2% faster than %3 (step time, 95% CI %4% to %5%)");
const char kSlower[] =
    QT_TRANSLATE_NOOP("ringmaster::Comparison", "%1 is %2% slower than %3 (step time, 95% CI %4% to %5%)");
const char kSameStepTime[] =
    QT_TRANSLATE_NOOP("ringmaster::Comparison",
                      "no significant difference in step time between %1 and %2 (%3%, 95% CI %4% to %5%)");
const char kNoStepSamples[] = QT_TRANSLATE_NOOP("ringmaster::Comparison", "no step samples to compare");

Sentence said(const char* pattern, const std::vector<Figure>& figures = {}) {
  return sentence(kComparisonContext, pattern, figures);
}

// A percentage as the verdicts give it: "12.3", or "+12.3" where its sign matters.
Decimal percent(double value, bool plusSign = false) {
  return Decimal{value, 1, plusSign};
}
}  // namespace

double PhaseTimes::otherMs() const {
  return std::max(0.0, totalMs - dataMs - forwardMs - backwardMs - commWaitMs - optimizerMs);
}

RunMetrics computeMetrics(const RunInfo& info, const std::vector<RankSeries>& series,
                          const std::vector<RankInfo>& ranks, std::vector<v1::Finding> findings) {
  RunMetrics m;
  m.info = info;
  m.findings = std::move(findings);
  std::map<int, std::string> hosts;
  for (const auto& r : ranks) hosts[r.rank] = r.host;

  diagnosis::JobSteps jobSteps;
  std::vector<diagnosis::RankLoss> losses;
  for (const auto& r : ranks) losses.push_back({r.rank, r.finalLoss, std::nullopt});
  std::vector<double> allBusbw, allLatency;
  double allreduceBytes = 0;
  uint64_t rankSteps = 0;
  // Per step index: the ranks' summed loss, how many ranks had it, their summed comm wait, the slowest total.
  struct StepAcross {
    double loss = 0, commWaitMs = 0, slowestMs = 0;
    double dataMs = 0, forwardMs = 0, backwardMs = 0, optimizerMs = 0;
    int ranks = 0;
  };
  std::map<uint64_t, StepAcross> across;
  double commWaitNs = 0, totalNs = 0, opLatencyNs = 0;
  diagnosis::MemoryLeakDetector memory;

  for (const auto& s : series) {
    RankMetrics r;
    r.rank = s.rank;
    r.host = hosts.count(s.rank) ? hosts[s.rank] : "";
    r.steps = s.steps.size();
    double samples = 0, rankTotalNs = 0;
    for (const auto& step : s.steps) {
      r.phases.dataMs += double(step.data_ns());
      r.phases.forwardMs += double(step.forward_ns());
      r.phases.backwardMs += double(step.backward_ns());
      r.phases.commWaitMs += double(step.comm_wait_ns());
      r.phases.optimizerMs += double(step.optimizer_ns());
      r.phases.totalMs += double(step.total_ns());
      samples += step.samples();
      rankTotalNs += double(step.total_ns());
      jobSteps.add(step);
      StepAcross& a = across[step.step()];
      a.loss += step.loss();
      a.commWaitMs += double(step.comm_wait_ns()) / 1e6;
      a.dataMs += double(step.data_ns()) / 1e6;
      a.forwardMs += double(step.forward_ns()) / 1e6;
      a.backwardMs += double(step.backward_ns()) / 1e6;
      a.optimizerMs += double(step.optimizer_ns()) / 1e6;
      a.slowestMs = std::max(a.slowestMs, double(step.total_ns()) / 1e6);
      ++a.ranks;
    }
    commWaitNs += r.phases.commWaitMs;
    totalNs += r.phases.totalMs;
    double n = double(std::max<size_t>(s.steps.size(), 1));
    for (double* v : {&r.phases.dataMs, &r.phases.forwardMs, &r.phases.backwardMs, &r.phases.commWaitMs,
                      &r.phases.optimizerMs, &r.phases.totalMs}) {
      *v /= n * 1e6;
    }
    r.samplesPerS = rankTotalNs > 0 ? samples / (rankTotalNs / 1e9) : 0;
    if (!s.steps.empty()) {
      auto known =
          std::find_if(losses.begin(), losses.end(), [&](const auto& l) { return l.rank == s.rank; });
      if (known == losses.end()) known = losses.insert(losses.end(), {s.rank, std::nullopt, std::nullopt});
      // A profiler's steps carry no loss (NaN, or 0 where imported before): that is no loss of 0.
      if (std::isfinite(s.steps.back().loss()) &&
          std::any_of(s.steps.begin(), s.steps.end(), [](const v1::StepSample& x) { return x.loss() != 0; }))
        known->lastStep = s.steps.back().loss();
    }

    // Only what was measured: an imported op whose size or time its trace lacks has neither figure.
    std::vector<double> busbw, latency;
    for (const auto& op : s.allreduce) {
      if (op.busbw_gbps() > 0) busbw.push_back(op.busbw_gbps());
      if (op.latency_us() > 0) latency.push_back(op.latency_us());
      opLatencyNs += op.latency_us() * 1e3;
      allreduceBytes += double(op.bytes());
    }
    rankSteps += s.steps.size();
    r.busbwGbps = stats::median(busbw);
    r.allreduceLatencyUs = stats::median(latency);
    allBusbw.insert(allBusbw.end(), busbw.begin(), busbw.end());
    allLatency.insert(allLatency.end(), latency.begin(), latency.end());
    m.allreduceOps += s.allreduce.size();

    for (const auto& sample : s.memory) {
      r.peakRssMiB = std::max(r.peakRssMiB, double(sample.rss_bytes()) / kMiB);
      memory.add(sample);
    }
    m.peakRssMiB = std::max(m.peakRssMiB, r.peakRssMiB);
    m.perRank.push_back(r);
  }
  m.memoryTrends = memory.trends();
  for (const auto& trend : m.memoryTrends) {
    if (trend.device) continue;
    for (auto& r : m.perRank) {
      if (r.rank == trend.rank) r.rssSlopeMiBPerStep = trend.bytesPerStep / kMiB;
    }
    m.rssSlopeMiBPerStep = std::max(m.rssSlopeMiBPerStep, trend.bytesPerStep / kMiB);
  }

  m.ranks = int(series.size());
  if (rankSteps > 0) {
    m.allreducesPerStep = double(m.allreduceOps) / double(rankSteps);
    m.allreduceBytesPerStep = allreduceBytes / double(rankSteps) / kMiB;
  }
  double jobMs = 0;
  for (const auto& [step, a] : across) {
    if (a.ranks < m.ranks) continue;  // a step some rank never finished is not the job's
    jobMs += a.slowestMs;
    m.commWaitMs.push_back(a.commWaitMs / a.ranks);
    m.dataMs.push_back(a.dataMs / a.ranks);
    m.forwardMs.push_back(a.forwardMs / a.ranks);
    m.backwardMs.push_back(a.backwardMs / a.ranks);
    m.optimizerMs.push_back(a.optimizerMs / a.ranks);
    m.lossAtTimeMs.emplace_back(a.loss / a.ranks, jobMs);
  }
  m.steps = jobSteps.complete();
  m.stepTimesMs = jobSteps.stepTimesMs();
  m.stepThroughput = jobSteps.stepThroughput();
  m.throughput = jobSteps.throughput();
  m.finalLoss = diagnosis::finalLoss(losses);
  m.stepMeanMs = stats::mean(m.stepTimesMs);
  m.stepP50Ms = stats::quantile(m.stepTimesMs, 0.5);
  m.stepP95Ms = stats::quantile(m.stepTimesMs, 0.95);
  double weight = 0;
  for (const auto& r : m.perRank) {
    double w = double(r.steps);
    weight += w;
    m.phases.dataMs += w * r.phases.dataMs;
    m.phases.forwardMs += w * r.phases.forwardMs;
    m.phases.backwardMs += w * r.phases.backwardMs;
    m.phases.commWaitMs += w * r.phases.commWaitMs;
    m.phases.optimizerMs += w * r.phases.optimizerMs;
    m.phases.totalMs += w * r.phases.totalMs;
  }
  if (weight > 0) {
    for (double* v : {&m.phases.dataMs, &m.phases.forwardMs, &m.phases.backwardMs, &m.phases.commWaitMs,
                      &m.phases.optimizerMs, &m.phases.totalMs}) {
      *v /= weight;
    }
  }
  m.busbwGbps = stats::median(allBusbw);
  m.allreduceLatencyUs = stats::median(allLatency);
  m.opBusbwGbps = std::move(allBusbw);
  m.opLatencyUs = std::move(allLatency);
  m.exposedCommPct = totalNs > 0 ? 100 * commWaitNs / totalNs : 0;
  m.overlapPct = opLatencyNs > 0 ? std::clamp(100 * (1 - commWaitNs / opLatencyNs), 0.0, 100.0) : 0;
  return m;
}

std::optional<double> timeToLossMs(const RunMetrics& run, double target) {
  constexpr size_t kWindow = 10;  // steps the loss is averaged over: one batch's loss is noisy
  double sum = 0;
  for (size_t i = 0; i < run.lossAtTimeMs.size(); ++i) {
    sum += run.lossAtTimeMs[i].first;
    if (i >= kWindow) sum -= run.lossAtTimeMs[i - kWindow].first;
    const size_t n = std::min(i + 1, kWindow);
    // The running sum rounds: a target that is a window's own mean is reached there.
    if (n == kWindow && sum / double(n) <= target + 1e-9 * std::fabs(target))
      return run.lossAtTimeMs[i].second;
  }
  return std::nullopt;
}

RunMetrics loadMetrics(const RunStore& store, int64_t runId) {
  auto info = store.run(runId);
  if (!info) throw InputError("no run " + std::to_string(runId) + " in " + store.path());
  auto series = store.rankSeries(runId);
  auto ranks = store.ranks(runId);
  return computeMetrics(*info, series, ranks, diagnosis::storedFindings(store, runId));
}

namespace {

MetricDelta delta(const std::string& metric, const std::string& unit, double base, double other,
                  bool lowerIsBetter) {
  MetricDelta d;
  d.metric = metric;
  d.unit = unit;
  d.base = base;
  d.other = other;
  // A change from nothing has no relative size: it is told as a difference (changeText).
  d.relative = base != 0 ? (other - base) / base : other == 0 ? 0 : std::numeric_limits<double>::quiet_NaN();
  d.lowerIsBetter = lowerIsBetter;
  return d;
}

Sentence label(const RunInfo& info) {
  return info.name.empty() ? said(kRun, {info.id}) : said(kRunNamed, {info.id, info.name});
}

// What a run measured at all: an imported trace may have no step samples, a run without telemetry no memory.
struct Measured {
  bool steps, samples, allreduce, sizes, bandwidth, latency, memory;
};

Measured measuredIn(const RunMetrics& run) {
  const bool steps = run.steps > 0 && !run.stepTimesMs.empty();
  // A profiler trace has step times but no batch sizes: no samples per second; its all-reduce ops may lack
  // their sizes (no bandwidth) or their times (an NCCL trace without its kernels).
  const bool allreduce = run.allreduceOps > 0;
  return {steps,
          steps && run.throughput > 0,
          allreduce,
          allreduce && run.allreduceBytesPerStep > 0,
          allreduce && run.busbwGbps > 0,
          allreduce && run.allreduceLatencyUs > 0,
          run.peakRssMiB > 0};
}

// "run 7 has no all-reduce ops", "neither run has memory samples", or nothing when both have them.
Sentence missingText(bool inBase, bool inOther, const RunComparison& c, const char* what) {
  if (inBase && inOther) return {};
  if (!inBase && !inOther) return said(kNeitherRunHas, {said(what)});
  return said(kRunHasNo, {inBase ? c.otherName : c.baseName, said(what)});
}

}  // namespace

std::string MetricDelta::changeText() const {
  if (!isEmpty(missing)) return "not measured";
  if (std::isnan(relative)) {
    const double change = other - base;
    return (change >= 0 ? "+" : "") + figureText(change) + " (from 0)";
  }
  return diagnosis::format("%+.1f%%", 100 * relative);
}

int MetricDelta::verdict() const {
  if (!isEmpty(missing) || !interval || (interval->lower <= 0 && interval->upper >= 0)) return 0;
  return (relative < 0) == lowerIsBetter ? 1 : -1;
}

namespace {

// At most kMaxResampled values, every k-th: the bootstrap resamples them a thousand times, and a long run's
// all-reduce ops number in the hundreds of thousands.
std::vector<double> evenlyThinned(const std::vector<double>& values) {
  constexpr size_t kMaxResampled = 20'000;
  if (values.size() <= kMaxResampled) return values;
  std::vector<double> kept;
  kept.reserve(kMaxResampled);
  for (size_t i = 0; i < kMaxResampled; ++i) kept.push_back(values[i * values.size() / kMaxResampled]);
  return kept;
}

}  // namespace

std::string figureText(double value) {
  if (!std::isfinite(value)) return "-";
  const double size = std::fabs(value);
  if (value == 0) return "0";
  // Counts stay whole: "+1 (from 0)", not "+1.000".
  if (size >= 1000 || value == std::floor(value)) return diagnosis::format("%.0f", value);
  const int decimals = std::clamp(3 - int(std::floor(std::log10(size))), 0, 9);
  return diagnosis::format("%.*f", decimals, value);
}

RunComparison compareRuns(const RunMetrics& base, const RunMetrics& other) {
  RunComparison c;
  c.baseName = label(base.info);
  c.otherName = label(other.info);
  auto throughput = delta("throughput", "samples/s", base.throughput, other.throughput, false);
  if (!base.stepThroughput.empty() && !other.stepThroughput.empty()) {
    throughput.interval = stats::bootstrapRelativeDifference(base.stepThroughput, other.stepThroughput);
  }
  auto meanStep = delta("step time mean", "ms", base.stepMeanMs, other.stepMeanMs, true);
  auto p50 = delta("step time p50", "ms", base.stepP50Ms, other.stepP50Ms, true);
  if (!base.stepTimesMs.empty() && !other.stepTimesMs.empty()) {
    meanStep.interval = stats::bootstrapRelativeDifference(base.stepTimesMs, other.stepTimesMs);
    p50.interval =
        stats::bootstrapRelativeDifference(base.stepTimesMs, other.stepTimesMs, stats::Statistic::Median);
  }
  const Measured b = measuredIn(base), o = measuredIn(other);
  const Sentence noSteps = missingText(b.steps, o.steps, c, kStepSamples);
  const Sentence noSamples = isEmpty(noSteps) ? missingText(b.samples, o.samples, c, kSampleCounts) : noSteps;
  const Sentence noAllreduce = missingText(b.allreduce, o.allreduce, c, kAllreduceOps);
  const Sentence noSizes =
      isEmpty(noAllreduce) ? missingText(b.sizes, o.sizes, c, kAllreduceSizes) : noAllreduce;
  const Sentence noBandwidth =
      isEmpty(noAllreduce) ? missingText(b.bandwidth, o.bandwidth, c, kAllreduceBandwidth) : noAllreduce;
  const Sentence noLatency =
      isEmpty(noAllreduce) ? missingText(b.latency, o.latency, c, kAllreduceTimes) : noAllreduce;
  const Sentence noMemory = missingText(b.memory, o.memory, c, kMemorySamples);
  // A metric one run lacks is said so, never shown as a change.
  auto unless = [](const Sentence& missing, MetricDelta d) {
    if (!isEmpty(missing)) {
      d.missing = missing;
      d.relative = std::numeric_limits<double>::quiet_NaN();
      d.interval.reset();
    }
    return d;
  };
  c.deltas = {
      unless(noSamples, throughput),
      unless(noSteps, meanStep),
      unless(noSteps, p50),
      unless(noSteps, delta("step time p95", "ms", base.stepP95Ms, other.stepP95Ms, true)),
      unless(noSteps, delta("data wait", "ms/step", base.phases.dataMs, other.phases.dataMs, true)),
      unless(noSteps, delta("forward", "ms/step", base.phases.forwardMs, other.phases.forwardMs, true)),
      unless(noSteps, delta("backward", "ms/step", base.phases.backwardMs, other.phases.backwardMs, true)),
      unless(noSteps,
             delta("exposed comm wait", "ms/step", base.phases.commWaitMs, other.phases.commWaitMs, true)),
      unless(noSteps, delta("optimizer", "ms/step", base.phases.optimizerMs, other.phases.optimizerMs, true)),
      unless(noSteps, delta("exposed comm share", "%", base.exposedCommPct, other.exposedCommPct, true)),
      unless(noAllreduce,
             delta("all-reduces", "ops/step", base.allreducesPerStep, other.allreducesPerStep, true)),
      unless(noSizes,
             delta("all-reduced", "MiB/step", base.allreduceBytesPerStep, other.allreduceBytesPerStep, true)),
      unless(noBandwidth, delta("all-reduce busbw", "GB/s", base.busbwGbps, other.busbwGbps, false)),
      unless(noLatency,
             delta("all-reduce latency p50", "us", base.allreduceLatencyUs, other.allreduceLatencyUs, true)),
      unless(noMemory, delta("memory peak", "MiB", base.peakRssMiB, other.peakRssMiB, true)),
      unless(noMemory,
             delta("memory slope", "MiB/step", base.rssSlopeMiBPerStep, other.rssSlopeMiBPerStep, true)),
      delta("findings", "count", double(base.findings.size()), double(other.findings.size()), true)};

  // Each measured row's interval, from what its figure summarises: the job's steps, or every op.
  struct Resampled {
    const char* metric;
    const std::vector<double>& base;
    const std::vector<double>& other;
    stats::Statistic statistic;
  };
  const Resampled resampled[] = {
      {"step time p95", base.stepTimesMs, other.stepTimesMs, stats::Statistic::P95},
      {"data wait", base.dataMs, other.dataMs, stats::Statistic::Mean},
      {"forward", base.forwardMs, other.forwardMs, stats::Statistic::Mean},
      {"backward", base.backwardMs, other.backwardMs, stats::Statistic::Mean},
      {"exposed comm wait", base.commWaitMs, other.commWaitMs, stats::Statistic::Mean},
      {"optimizer", base.optimizerMs, other.optimizerMs, stats::Statistic::Mean},
      {"all-reduce busbw", base.opBusbwGbps, other.opBusbwGbps, stats::Statistic::Median},
      {"all-reduce latency p50", base.opLatencyUs, other.opLatencyUs, stats::Statistic::Median},
  };
  for (auto& d : c.deltas) {
    if (!isEmpty(d.missing) || d.interval || !(d.base > 0)) continue;
    for (const Resampled& r : resampled) {
      if (d.metric != r.metric || r.base.empty() || r.other.empty()) continue;
      d.interval =
          stats::bootstrapRelativeDifference(evenlyThinned(r.base), evenlyThinned(r.other), r.statistic);
    }
  }
  // Time to a loss both runs reached: the higher of their last losses, each averaged as timeToLossMs does.
  const auto settled = [](const RunMetrics& run) {
    const auto& l = run.lossAtTimeMs;
    const size_t n = std::min<size_t>(l.size(), 10);
    double sum = 0;
    for (size_t i = l.size() - n; i < l.size(); ++i) sum += l[i].first;
    return n > 0 ? sum / double(n) : 0.0;
  };
  if (isEmpty(noSteps) && base.lossAtTimeMs.size() >= 10 && other.lossAtTimeMs.size() >= 10) {
    const double target = std::max(settled(base), settled(other));
    const auto a = timeToLossMs(base, target), b = timeToLossMs(other, target);
    if (a && b && std::isfinite(target) && target > 0) {
      auto d = delta(diagnosis::format("time to loss %.3g", target), "s", *a / 1e3, *b / 1e3, true);
      c.deltas.insert(c.deltas.begin() + 4, d);
    }
  }
  if (!isEmpty(noSteps)) {
    c.verdict = said(kCannotCompareSteps, {noSteps});
  } else if (base.ranks != other.ranks && !isEmpty(noSamples)) {
    c.verdict = said(kOnlyByThroughput, {noSamples});
  } else if (base.ranks != other.ranks && throughput.interval) {
    // Steps of different rank counts do different work: only throughput (samples per second) compares them.
    const auto& ci = *throughput.interval;
    const Sentence who = said(kOnRanks, {c.otherName, other.ranks});
    const Sentence against = said(kOn, {c.baseName, base.ranks});
    if (ci.upper < 0 || ci.lower > 0) {
      const bool higher = ci.estimate > 0;
      c.verdict = said(higher ? kHigherThroughput : kLowerThroughput,
                       {who, percent(std::fabs(100 * ci.estimate)), against,
                        percent(std::fabs(100 * (higher ? ci.lower : ci.upper))),
                        percent(std::fabs(100 * (higher ? ci.upper : ci.lower)))});
    } else {
      c.verdict = said(kSameThroughput, {who, against, percent(100 * ci.estimate, true),
                                         percent(100 * ci.lower, true), percent(100 * ci.upper, true)});
    }
  } else if (meanStep.interval) {
    const auto& ci = *meanStep.interval;
    // Step time lower = faster; speed-up expressed on the step time's relative change.
    if (ci.upper < 0 || ci.lower > 0) {
      bool faster = ci.estimate < 0;
      c.verdict =
          said(faster ? kFaster : kSlower, {c.otherName, percent(std::fabs(100 * ci.estimate)), c.baseName,
                                            percent(std::fabs(100 * (faster ? ci.upper : ci.lower))),
                                            percent(std::fabs(100 * (faster ? ci.lower : ci.upper)))});
    } else {
      c.verdict = said(kSameStepTime, {c.otherName, c.baseName, percent(100 * ci.estimate, true),
                                       percent(100 * ci.lower, true), percent(100 * ci.upper, true)});
    }
  } else {
    c.verdict = said(kNoStepSamples);
  }
  return c;
}

double scalingEfficiency(const RunMetrics& run, const RunMetrics& baseline) {
  if (baseline.throughput <= 0 || baseline.ranks <= 0 || run.ranks <= 0) return 0;
  return run.throughput / (double(run.ranks) / double(baseline.ranks) * baseline.throughput);
}

v1::Finding scalingFinding(const RunMetrics& one, const RunMetrics& another) {
  const bool oneIsLarger = one.ranks >= another.ranks;
  const RunMetrics& run = oneIsLarger ? one : another;
  const RunMetrics& baseline = oneIsLarger ? another : one;
  double efficiency = scalingEfficiency(run, baseline);
  auto severity = efficiency < 0.7 ? v1::Finding::SEVERITY_WARNING : v1::Finding::SEVERITY_INFO;
  v1::Finding f = diagnosis::makeFinding(v1::Finding::KIND_SCALING, severity, -1, "", 0, "scaling");
  const double linear = double(run.ranks) / double(baseline.ranks) * baseline.throughput;
  diagnosis::setSummary(
      f, diagnosis::say(diagnosis::text::kScalingEfficiency,
                        {Decimal{100 * efficiency, 0}, label(run.info), run.ranks, Decimal{run.throughput, 0},
                         label(baseline.info), baseline.ranks, Decimal{linear, 0}}));
  (*f.mutable_evidence())[diagnosis::evidence::kEfficiencyPct] = 100 * efficiency;
  (*f.mutable_evidence())[diagnosis::evidence::kThroughput] = run.throughput;
  (*f.mutable_evidence())[diagnosis::evidence::kBaselineThroughput] = baseline.throughput;
  (*f.mutable_evidence())[diagnosis::evidence::kRanks] = run.ranks;
  (*f.mutable_evidence())[diagnosis::evidence::kBaselineRanks] = baseline.ranks;
  diagnosis::addAdvice(f);
  return f;
}

}  // namespace ringmaster
