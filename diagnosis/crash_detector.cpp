// SPDX-License-Identifier: GPL-3.0-or-later
#include "diagnosis/crash_detector.h"

#include "diagnosis/advice.h"
#include "diagnosis/evidence_keys.h"
#include "diagnosis/evidence_text.h"
#include "diagnosis/summary_text.h"

namespace ringmaster::diagnosis {
namespace {

constexpr size_t kQuotedChars = 160;

// Python's last word when a script imports Horovod where none is installed (`import horovod.torch as hvd`
// names the package; an installed Horovod built without PyTorch names horovod.torch).
bool horovodMissing(const std::string& line) {
  for (const char* missing : {"No module named 'horovod'", "No module named 'horovod.torch'"}) {
    if (line.find(missing) != std::string::npos) return true;
  }
  return false;
}

bool failed(const v1::RankState& s) {
  switch (s.state()) {
    case v1::RankState::STATE_SIGNALED:
    case v1::RankState::STATE_FAILED_TO_START:
    case v1::RankState::STATE_LOST:
      return true;
    case v1::RankState::STATE_EXITED:
      return s.exit_code() != 0;
    default:
      return false;
  }
}

}  // namespace

void CrashDetector::step(const v1::StepSample& step) {
  auto [it, fresh] = lastStep_.emplace(step.rank(), step.step());
  if (!fresh && step.step() > it->second) it->second = step.step();
}

void CrashDetector::log(const v1::LogLine& line) {
  if (line.stream() != v1::LogLine::STREAM_STDERR ||
      line.text().find_first_not_of(" \t\r") == std::string::npos) {
    return;
  }
  lastError_[line.rank()] = line.text().substr(0, kQuotedChars);
}

void CrashDetector::state(const v1::RankState& s) {
  if (!failed(s) || s.stopped_by_agent()) return;
  if (!first_) {
    first_ = s;
    if (auto it = lastError_.find(s.rank()); it != lastError_.end()) firstLastLine_ = it->second;
  } else if (s.rank() != first_->rank()) {
    then_.push_back(s.rank());
  }
}

std::vector<v1::Finding> CrashDetector::findings() const {
  if (!first_) return {};
  const v1::RankState& s = *first_;
  const int rank = s.rank();
  std::string host = !s.host().empty() ? s.host() : hosts_.count(rank) ? hosts_.at(rank) : "";
  auto last = lastStep_.find(rank);
  const uint64_t since = last != lastStep_.end() ? last->second + 1 : 0;
  const bool stepped = last != lastStep_.end();
  const uint64_t lastStep = stepped ? last->second : 0;
  // What happened goes in the summary; what to do about it in the advice.
  Sentence how;
  std::string cause;
  if (s.state() == v1::RankState::STATE_FAILED_TO_START) {
    how = s.message().empty() ? say(text::kCouldNotStart) : say(text::kCouldNotStartBecause, {s.message()});
    cause = "failed to start";
  } else if (s.state() == v1::RankState::STATE_LOST) {
    how = stepped ? say(text::kLostAfterStep, {lastStep}) : say(text::kLostBeforeFirstStep);
    cause = "no end";
  } else if (s.state() == v1::RankState::STATE_SIGNALED) {
    const std::string signal = signalName(s.signal());
    how = stepped ? say(text::kKilledAfterStep, {signal, lastStep})
                  : say(text::kKilledBeforeFirstStep, {signal});
    cause = "killed";
  } else {
    const int code = s.exit_code();
    how = stepped ? say(text::kExitedAfterStep, {code, lastStep}) : say(text::kExitedBeforeFirstStep, {code});
    // The cause alone carries it: advice is made again from stored findings.
    cause = firstLastLine_ && horovodMissing(*firstLastLine_) ? "horovod missing" : "exit code";
  }
  v1::Finding f =
      makeFinding(v1::Finding::KIND_CRASH, v1::Finding::SEVERITY_CRITICAL, rank, host, since, cause);
  std::string others;
  for (size_t i = 0; i < then_.size(); ++i) others += (i ? ", " : "") + std::to_string(then_[i]);
  Sentence more;
  if (firstLastLine_ && then_.empty()) {
    more = say(text::kLastErrorLine, {*firstLastLine_});
  } else if (firstLastLine_) {
    more = say(then_.size() == 1 ? text::kLastErrorLineRankFailedToo : text::kLastErrorLineRanksFailedToo,
               {*firstLastLine_, others});
  } else if (!then_.empty()) {
    more = say(then_.size() == 1 ? text::kRankFailedToo : text::kRanksFailedToo, {others});
  }
  setSummary(f, isEmpty(more) ? say(text::kEndedTheRun, {rankOnHost(rank, host), how})
                              : say(text::kEndedTheRunAndMore, {rankOnHost(rank, host), how, more}));
  if (s.state() == v1::RankState::STATE_SIGNALED) (*f.mutable_evidence())[evidence::kSignal] = s.signal();
  if (s.state() == v1::RankState::STATE_EXITED) (*f.mutable_evidence())[evidence::kExitCode] = s.exit_code();
  if (last != lastStep_.end())
    (*f.mutable_evidence())[evidence::kLastStep] = static_cast<double>(last->second);
  addAdvice(f);
  return {f};
}

}  // namespace ringmaster::diagnosis
