// SPDX-License-Identifier: GPL-3.0-or-later
#include "diagnosis/memory_leak_detector.h"

#include <algorithm>
#include <cmath>

#include "common/warmup.h"
#include "diagnosis/advice.h"
#include "diagnosis/duration_text.h"
#include "diagnosis/evidence_keys.h"
#include "diagnosis/finding.h"
#include "diagnosis/statistics.h"
#include "diagnosis/summary_text.h"

namespace ringmaster::diagnosis {

namespace {
constexpr double kMiB = 1024.0 * 1024.0;
constexpr size_t kMaxSamples = 8192;
}  // namespace

MemoryLeakDetector::MemoryLeakDetector(LeakConfig config) : config_(config) {}

void MemoryLeakDetector::setHost(int rank, const std::string& host) {
  hosts_[rank] = host;
}

void MemoryLeakDetector::add(const v1::MemorySample& sample) {
  Series& s = series_[sample.rank()];
  s.steps.push_back(double(sample.step()));
  s.timesNs.push_back(double(sample.time_ns()));
  s.rss.push_back(double(sample.rss_bytes()));
  s.device.push_back(double(sample.device_used_bytes()));
  if (sample.host_total_bytes()) s.hostTotal = double(sample.host_total_bytes());
  if (sample.device_total_bytes()) s.deviceTotal = double(sample.device_total_bytes());
  // A long live run would otherwise hold every sample; the fit thins to a few hundred points anyway.
  if (s.steps.size() > kMaxSamples) {
    for (auto* v : {&s.steps, &s.timesNs, &s.rss, &s.device}) {
      for (size_t i = 0; 2 * i < v->size(); ++i) (*v)[i] = (*v)[2 * i];
      v->resize((v->size() + 1) / 2);
    }
  }
}

size_t MemoryLeakDetector::samples(int rank) const {
  auto it = series_.find(rank);
  return it == series_.end() ? 0 : it->second.steps.size();
}

MemoryTrend MemoryLeakDetector::fit(int rank, const Series& s, bool device, bool leaksOnly) const {
  MemoryTrend trend;
  trend.rank = rank;
  trend.device = device;
  size_t n = s.steps.size();
  const size_t skip = warmupSteps(n);
  if (n < skip + config_.minSamples) return trend;

  const std::vector<double>& values = device ? s.device : s.rss;
  std::vector<double> steps(s.steps.begin() + long(skip), s.steps.end());
  std::vector<double> memory(values.begin() + long(skip), values.end());
  // A leak needs the slope's interval above zero: a thousand ranks' flat memory is told apart without
  // fitting.
  if (leaksOnly && !stats::theilSenLowerAboveZero(steps, memory)) return trend;
  std::vector<double> times(s.timesNs.begin() + long(skip), s.timesNs.end());
  auto bySteps = stats::theilSen(steps, memory);
  auto byTime = stats::theilSen(times, memory);

  trend.fromStep = uint64_t(steps.front());
  trend.toStep = uint64_t(steps.back());
  trend.bytesPerStep = bySteps.slope;
  trend.bytesPerStepLower = bySteps.lower;
  trend.bytesPerStepUpper = bySteps.upper;
  trend.interceptBytes = bySteps.intercept;
  trend.bytesPerMinute = byTime.slope * 60e9;
  trend.limitBytes = device ? s.deviceTotal : s.hostTotal;
  trend.lastBytes = bySteps.intercept + bySteps.slope * steps.back();

  double growth = bySteps.slope * (steps.back() - steps.front());
  double level = stats::median(memory);
  double enough = std::max(config_.minGrowthMiB * kMiB, config_.minGrowthFraction * level);
  trend.leak = bySteps.lower > 0 && growth >= enough;
  return trend;
}

std::vector<MemoryTrend> MemoryLeakDetector::trends(bool leaksOnly) const {
  std::vector<MemoryTrend> out;
  for (const auto& [rank, s] : series_) {
    for (const bool device : {false, true}) {
      if (device && s.deviceTotal <= 0) continue;
      MemoryTrend trend = fit(rank, s, device, leaksOnly);
      if (!leaksOnly || trend.leak) out.push_back(std::move(trend));
    }
  }
  return out;
}

std::vector<v1::Finding> MemoryLeakDetector::findings() const {
  std::vector<v1::Finding> out;
  for (const MemoryTrend& t : trends(true)) {
    double perStep = t.bytesPerStep / kMiB;
    double perMinute = t.bytesPerMinute / kMiB;
    double minutesLeft = -1;
    if (t.limitBytes > 0 && t.bytesPerMinute > 0)
      minutesLeft = std::max(0.0, (t.limitBytes - t.lastBytes) / t.bytesPerMinute);
    auto severity =
        minutesLeft >= 0 && minutesLeft < 60 ? v1::Finding::SEVERITY_CRITICAL : v1::Finding::SEVERITY_WARNING;
    auto host = hosts_.count(t.rank) ? hosts_.at(t.rank) : std::string();
    v1::Finding f = makeFinding(v1::Finding::KIND_MEMORY_LEAK, severity, t.rank, host, t.fromStep,
                                t.device ? "device memory" : "host memory");
    const Sentence memory = say(t.device ? text::kDeviceMemory : text::kHostMemory);
    std::vector<Figure> args{rankOnHost(t.rank, host), memory, Decimal{perStep, 2}, Decimal{perMinute, 1},
                             t.fromStep};
    if (minutesLeft >= 0) {
      args.insert(args.end(), {memory, spanSentence(minutesLeft * 60)});
      setSummary(f, say(text::kMemoryGrowsUntilFull, args));
    } else {
      setSummary(f, say(text::kMemoryGrows, args));
    }
    auto& ev = *f.mutable_evidence();
    ev[evidence::kMibPerStep] = perStep;
    ev[evidence::kMibPerStepLower] = t.bytesPerStepLower / kMiB;
    ev[evidence::kMibPerStepUpper] = t.bytesPerStepUpper / kMiB;
    ev[evidence::kMibPerMin] = perMinute;
    ev[evidence::kInterceptMib] = t.interceptBytes / kMiB;
    ev[evidence::kLastMib] = t.lastBytes / kMiB;
    ev[evidence::kToStep] = double(t.toStep);
    if (t.limitBytes > 0) ev[evidence::kLimitMib] = t.limitBytes / kMiB;
    if (minutesLeft >= 0) ev[evidence::kMinutesToLimit] = minutesLeft;
    addAdvice(f);
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace ringmaster::diagnosis
