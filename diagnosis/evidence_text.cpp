// SPDX-License-Identifier: GPL-3.0-or-later
#include "diagnosis/evidence_text.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>

#include "diagnosis/duration_text.h"
#include "diagnosis/evidence_keys.h"

// lupdate collects the labels marked with Qt's QT_TRANSLATE_NOOP from this file; diagnosis/ has no Qt, so
// here the marker is the text itself.
#define QT_TRANSLATE_NOOP(context, text) text

namespace ringmaster {

namespace {

namespace evidence = diagnosis::evidence;

enum class Unit { Percent, Milliseconds, Seconds, Minutes, MiB, GBps, Count, Step, Number, Signal, Flag };

struct Key {
  const char* key;
  const char* label;
  Unit unit;
};

// Most telling first: the cost of a problem, then its size, then how it was measured.
constexpr Key kKeys[] = {
    // Stragglers (and Horovod readiness).
    {evidence::kThroughputLostPct, QT_TRANSLATE_NOOP("ringmaster::Evidence", "throughput lost"),
     Unit::Percent},
    {evidence::kOthersWaitMsPerStep, QT_TRANSLATE_NOOP("ringmaster::Evidence", "others' wait per step"),
     Unit::Milliseconds},
    {evidence::kSlowdownPct, QT_TRANSLATE_NOOP("ringmaster::Evidence", "slower than the median rank by"),
     Unit::Percent},
    {evidence::kComputeExcessMsPerStep, QT_TRANSLATE_NOOP("ringmaster::Evidence", "extra compute per step"),
     Unit::Milliseconds},
    {evidence::kDataExcessMsPerStep, QT_TRANSLATE_NOOP("ringmaster::Evidence", "extra data loading per step"),
     Unit::Milliseconds},
    {evidence::kCommExcessMsPerStep,
     QT_TRANSLATE_NOOP("ringmaster::Evidence", "extra all-reduce time per step"), Unit::Milliseconds},
    {evidence::kOthersCommExcessMsPerStep,
     QT_TRANSLATE_NOOP("ringmaster::Evidence", "others' longer exposed communication per step"),
     Unit::Milliseconds},
    {evidence::kStepsSlow, QT_TRANSLATE_NOOP("ringmaster::Evidence", "slow steps"), Unit::Count},
    {evidence::kLastSlowStep, QT_TRANSLATE_NOOP("ringmaster::Evidence", "last slow step"), Unit::Step},
    {evidence::kRecoveredAtStep, QT_TRANSLATE_NOOP("ringmaster::Evidence", "recovered at step"), Unit::Step},
    {evidence::kRobustScore, QT_TRANSLATE_NOOP("ringmaster::Evidence", "robust score"), Unit::Number},
    {evidence::kLastSharePct, QT_TRANSLATE_NOOP("ringmaster::Evidence", "last to be ready"), Unit::Percent},
    {evidence::kMedianLateMs, QT_TRANSLATE_NOOP("ringmaster::Evidence", "median lateness"),
     Unit::Milliseconds},
    {evidence::kCompleteNegotiations, QT_TRANSLATE_NOOP("ringmaster::Evidence", "complete negotiations"),
     Unit::Count},
    {evidence::kNegotiations, QT_TRANSLATE_NOOP("ringmaster::Evidence", "negotiations"), Unit::Count},
    // Memory.
    {evidence::kMibPerStep, QT_TRANSLATE_NOOP("ringmaster::Evidence", "growth per step"), Unit::MiB},
    {evidence::kMibPerMin, QT_TRANSLATE_NOOP("ringmaster::Evidence", "growth per minute"), Unit::MiB},
    {evidence::kMinutesToLimit, QT_TRANSLATE_NOOP("ringmaster::Evidence", "time to full"), Unit::Minutes},
    {evidence::kLimitMib, QT_TRANSLATE_NOOP("ringmaster::Evidence", "limit"), Unit::MiB},
    {evidence::kLastMib, QT_TRANSLATE_NOOP("ringmaster::Evidence", "memory at the last step"), Unit::MiB},
    {evidence::kMibPerStepLower,
     QT_TRANSLATE_NOOP("ringmaster::Evidence", "growth per step, 95 % interval from"), Unit::MiB},
    {evidence::kMibPerStepUpper,
     QT_TRANSLATE_NOOP("ringmaster::Evidence", "growth per step, 95 % interval to"), Unit::MiB},
    {evidence::kInterceptMib, QT_TRANSLATE_NOOP("ringmaster::Evidence", "fitted memory at step 0"),
     Unit::MiB},
    {evidence::kToStep, QT_TRANSLATE_NOOP("ringmaster::Evidence", "fitted up to step"), Unit::Step},
    // Stalls.
    {evidence::kQuietS, QT_TRANSLATE_NOOP("ringmaster::Evidence", "no progress for"), Unit::Seconds},
    {evidence::kWaitedS, QT_TRANSLATE_NOOP("ringmaster::Evidence", "waited"), Unit::Seconds},
    {evidence::kMissingTensors, QT_TRANSLATE_NOOP("ringmaster::Evidence", "tensors not submitted"),
     Unit::Count},
    {evidence::kWaitingRanks, QT_TRANSLATE_NOOP("ringmaster::Evidence", "ranks waiting"), Unit::Count},
    {evidence::kStepsBehind, QT_TRANSLATE_NOOP("ringmaster::Evidence", "steps behind"), Unit::Count},
    {evidence::kResumed, QT_TRANSLATE_NOOP("ringmaster::Evidence", "went on afterwards"), Unit::Flag},
    // Collectives out of step.
    {evidence::kCollectiveIndex,
     QT_TRANSLATE_NOOP("ringmaster::Evidence", "place among the step's collectives"), Unit::Count},
    {evidence::kElements, QT_TRANSLATE_NOOP("ringmaster::Evidence", "elements of the rank's collective"),
     Unit::Count},
    {evidence::kOtherElements,
     QT_TRANSLATE_NOOP("ringmaster::Evidence", "elements of the other's collective"), Unit::Count},
    // Replicas that drift.
    {evidence::kDriftingTensors, QT_TRANSLATE_NOOP("ringmaster::Evidence", "tensors that differ"),
     Unit::Count},
    {evidence::kTensors, QT_TRANSLATE_NOOP("ringmaster::Evidence", "tensors compared"), Unit::Count},
    {evidence::kLastEqualStep, QT_TRANSLATE_NOOP("ringmaster::Evidence", "last step equal"), Unit::Step},
    {evidence::kCheckEverySteps, QT_TRANSLATE_NOOP("ringmaster::Evidence", "checked every"), Unit::Count},
    // Communication.
    {evidence::kExposedCommPct, QT_TRANSLATE_NOOP("ringmaster::Evidence", "step time waiting on all-reduce"),
     Unit::Percent},
    {evidence::kOverlapPct, QT_TRANSLATE_NOOP("ringmaster::Evidence", "all-reduce overlapped with compute"),
     Unit::Percent},
    {evidence::kBusbwGbps, QT_TRANSLATE_NOOP("ringmaster::Evidence", "bus bandwidth"), Unit::GBps},
    {evidence::kRanksMedianBusbwGbps, QT_TRANSLATE_NOOP("ringmaster::Evidence", "other ranks' bus bandwidth"),
     Unit::GBps},
    {evidence::kMedianBusbwGbps, QT_TRANSLATE_NOOP("ringmaster::Evidence", "median bus bandwidth"),
     Unit::GBps},
    {evidence::kAllreducePerStep, QT_TRANSLATE_NOOP("ringmaster::Evidence", "all-reduce ops per step"),
     Unit::Number},
    {evidence::kMeanAllreduceMib, QT_TRANSLATE_NOOP("ringmaster::Evidence", "mean all-reduce size"),
     Unit::MiB},
    {evidence::kMedianLatencyMs, QT_TRANSLATE_NOOP("ringmaster::Evidence", "median all-reduce latency"),
     Unit::Milliseconds},
    {evidence::kSlowOps, QT_TRANSLATE_NOOP("ringmaster::Evidence", "slow all-reduce ops"), Unit::Count},
    {evidence::kOps, QT_TRANSLATE_NOOP("ringmaster::Evidence", "all-reduce ops"), Unit::Count},
    // Crashes and divergence.
    {evidence::kSignal, QT_TRANSLATE_NOOP("ringmaster::Evidence", "signal"), Unit::Signal},
    {evidence::kExitCode, QT_TRANSLATE_NOOP("ringmaster::Evidence", "exit code"), Unit::Count},
    {evidence::kLastStep, QT_TRANSLATE_NOOP("ringmaster::Evidence", "last step finished"), Unit::Step},
    {evidence::kFirstStep, QT_TRANSLATE_NOOP("ringmaster::Evidence", "first step"), Unit::Step},
    {evidence::kLastFiniteLoss, QT_TRANSLATE_NOOP("ringmaster::Evidence", "last finite loss"), Unit::Number},
    // Restarts.
    {evidence::kRestart, QT_TRANSLATE_NOOP("ringmaster::Evidence", "restart"), Unit::Count},
    {evidence::kResumedFromStep, QT_TRANSLATE_NOOP("ringmaster::Evidence", "resumed from step"), Unit::Step},
    {evidence::kWorldSize, QT_TRANSLATE_NOOP("ringmaster::Evidence", "ranks from then on"), Unit::Count},
    // Scaling.
    {evidence::kEfficiencyPct, QT_TRANSLATE_NOOP("ringmaster::Evidence", "scaling efficiency"),
     Unit::Percent},
    {evidence::kThroughput, QT_TRANSLATE_NOOP("ringmaster::Evidence", "throughput, samples/s"), Unit::Number},
    {evidence::kBaselineThroughput,
     QT_TRANSLATE_NOOP("ringmaster::Evidence", "baseline throughput, samples/s"), Unit::Number},
    {evidence::kRanks, QT_TRANSLATE_NOOP("ringmaster::Evidence", "ranks"), Unit::Count},
    {evidence::kBaselineRanks, QT_TRANSLATE_NOOP("ringmaster::Evidence", "baseline ranks"), Unit::Count},
    // Imports.
    {evidence::kClippedEvents, QT_TRANSLATE_NOOP("ringmaster::Evidence", "clipped events"), Unit::Count},
    {evidence::kLongestRecordedS, QT_TRANSLATE_NOOP("ringmaster::Evidence", "longest recorded duration"),
     Unit::Seconds},
    // The run history.
    {evidence::kRecordsNotStored, QT_TRANSLATE_NOOP("ringmaster::Evidence", "records not stored"),
     Unit::Count},
    {evidence::kNotStoredFromStep, QT_TRANSLATE_NOOP("ringmaster::Evidence", "not stored from step"),
     Unit::Step},
};

constexpr double kMiB = 1024.0 * 1024.0;

const Key* find(const std::string& key) {
  for (const Key& k : kKeys) {
    if (key == k.key) return &k;
  }
  return nullptr;
}

std::string printf1(const char* pattern, double value) {
  char text[64];
  std::snprintf(text, sizeof text, pattern, value);
  return text;
}

// Three significant digits, whole numbers from 100 on: "0.26", "15.3", "2411".
std::string significant(double value) {
  return printf1(std::fabs(value) >= 100 ? "%.0f" : "%.3g", value);
}

std::string valueText(Unit unit, double value) {
  if (!std::isfinite(value)) return printf1("%g", value);
  switch (unit) {
    case Unit::Percent:
      return significant(value) + " %";
    case Unit::Milliseconds:
      return formatDuration(value * 1e6);
    case Unit::Seconds:
      return formatDuration(value * 1e9);
    case Unit::Minutes:
      return formatDuration(value * 60e9);
    case Unit::MiB:
      return formatBytes(value * kMiB);
    case Unit::GBps:
      return significant(value) + " GB/s";
    case Unit::Count:
    case Unit::Step:
      return printf1("%.0f", value);
    case Unit::Signal:
      return signalName(static_cast<int>(value)) + printf1(" (%.0f)", value);
    case Unit::Flag:
      return value != 0 ? "✓" : "–";
    case Unit::Number:
      break;
  }
  return printf1("%.4g", value);
}

}  // namespace

std::string formatBytes(double bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  if (!std::isfinite(bytes)) return printf1("%g B", bytes);
  size_t unit = 0;
  double value = bytes;
  while (std::fabs(value) >= 1024 && unit + 1 < std::size(kUnits)) {
    value /= 1024;
    ++unit;
  }
  if (unit == 0) return printf1("%.0f B", value);
  return printf1(std::fabs(value) >= 100  ? "%.0f "
                 : std::fabs(value) >= 10 ? "%.1f "
                                          : "%.2f ",
                 value) +
         kUnits[unit];
}

std::string signalName(int signal) {
  const char* abbrev = signal > 0 ? ::sigabbrev_np(signal) : nullptr;
  return abbrev ? std::string("SIG") + abbrev : "signal " + std::to_string(signal);
}

EvidenceText evidenceText(const std::string& key, double value) {
  EvidenceText text;
  text.key = key;
  if (const Key* k = find(key)) {
    text.label = k->label;
    text.known = true;
    text.value = valueText(k->unit, value);
    if (std::isfinite(value) && (k->unit == Unit::Seconds || k->unit == Unit::Minutes)) {
      text.said = spanSentence(k->unit == Unit::Minutes ? value * 60 : value);
      text.value = toText(text.said);
    }
  } else {
    text.label = key;
    std::replace(text.label.begin(), text.label.end(), '_', ' ');
    text.value = valueText(Unit::Number, value);
  }
  return text;
}

std::vector<EvidenceText> evidenceTexts(const v1::Finding& finding) {
  std::vector<EvidenceText> out;
  for (const Key& k : kKeys) {
    if (auto it = finding.evidence().find(k.key); it != finding.evidence().end())
      out.push_back(evidenceText(k.key, it->second));
  }
  const std::map<std::string, double> rest(finding.evidence().begin(), finding.evidence().end());
  for (const auto& [key, value] : rest) {
    if (!find(key)) out.push_back(evidenceText(key, value));
  }
  return out;
}

std::string evidenceLine(const v1::Finding& finding) {
  std::string line;
  for (const EvidenceText& e : evidenceTexts(finding)) {
    line += (line.empty() ? "" : ", ") + e.label + " " + e.value;
  }
  return line;
}

}  // namespace ringmaster
