// SPDX-License-Identifier: GPL-3.0-or-later
#include "diagnosis/missing_telemetry.h"

#include <algorithm>

#include "diagnosis/advice.h"
#include "diagnosis/evidence_keys.h"
#include "diagnosis/summary_text.h"

namespace ringmaster::diagnosis {
namespace {

// Steps the others must have finished first: ranks of a DDP job train together, so by then a rank that runs
// and reports has said so.
constexpr uint64_t kStepsBeforeMissing = 5;
constexpr size_t kQuotedOutputChars = 300;
constexpr char kOurs[] = "ringmaster: ";  // how the Python package begins what it says on a rank's stderr

}  // namespace

void MissingTelemetryDetector::step(const v1::StepSample& step) {
  heard_.insert(step.rank());
  stepsDone_ = std::max(stepsDone_, step.step() + 1);
}

void MissingTelemetryDetector::log(const v1::LogLine& line) {
  if (!telemetryOff_.empty()) return;
  // "ringmaster: telemetry is off: ...", "ringmaster: the agent's socket ... refused this rank: ..."
  const std::string& text = line.text();
  const size_t at = text.find(kOurs);
  if (at == std::string::npos) return;
  if (text.find("telemetry is off", at) != std::string::npos ||
      text.find("refused this rank", at) != std::string::npos)
    telemetryOff_ = text.substr(at, kQuotedOutputChars);
}

void MissingTelemetryDetector::state(const v1::RankState& s) {
  const bool failed = s.state() == v1::RankState::STATE_SIGNALED ||
                      s.state() == v1::RankState::STATE_FAILED_TO_START ||
                      s.state() == v1::RankState::STATE_LOST ||
                      (s.state() == v1::RankState::STATE_EXITED && s.exit_code() != 0);
  if (failed) failed_.insert(s.rank());
}

std::vector<v1::Finding> MissingTelemetryDetector::findings() const {
  if (heard_.empty() || stepsDone_ < kStepsBeforeMissing) return {};
  std::vector<int> missing;
  for (int r = 0; r < worldSize_; ++r) {
    if (!heard_.count(r) && !failed_.count(r)) missing.push_back(r);
  }
  if (missing.empty()) return {};
  constexpr size_t kListed = 8;
  std::string list;
  for (size_t i = 0; i < missing.size() && i < kListed; ++i)
    list += (i ? ", " : "") + std::to_string(missing[i]);
  if (missing.size() > kListed) list += ", … (" + std::to_string(missing.size()) + ")";
  const bool one = missing.size() == 1;
  v1::Finding f = makeFinding(v1::Finding::KIND_MISSING_TELEMETRY, v1::Finding::SEVERITY_WARNING,
                              one ? missing.front() : -1, "", 0, "no telemetry");
  const Figure who = one ? Figure(static_cast<int64_t>(missing.front())) : Figure(list);
  const auto steps = static_cast<int64_t>(stepsDone_);
  if (telemetryOff_.empty()) {
    setSummary(f, say(one ? text::kRankSentNoTelemetry : text::kRanksSentNoTelemetry, {who, steps}));
  } else {
    setSummary(f, say(one ? text::kRankSentNoTelemetrySaying : text::kRanksSentNoTelemetrySaying,
                      {who, steps, telemetryOff_}));
  }
  (*f.mutable_evidence())[evidence::kRanks] = static_cast<double>(missing.size());
  (*f.mutable_evidence())[evidence::kLastStep] = static_cast<double>(stepsDone_ - 1);
  addAdvice(f);
  return {f};
}

}  // namespace ringmaster::diagnosis
