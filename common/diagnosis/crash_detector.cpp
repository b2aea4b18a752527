// SPDX-License-Identifier: GPL-3.0-or-later
#include "common/diagnosis/crash_detector.h"

#include "common/diagnosis/advice.h"
#include "common/evidence_text.h"

namespace ringmaster::diagnosis {
namespace {

constexpr size_t kQuotedChars = 160;

bool failed(const v1::RankState& s) {
  switch (s.state()) {
    case v1::RankState::STATE_SIGNALED:
    case v1::RankState::STATE_FAILED_TO_START:
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
  std::string when = last != lastStep_.end()
                         ? format(" after step %llu", static_cast<unsigned long long>(last->second))
                         : std::string(" before its first step");
  // What happened goes in the summary; what to do about it in the advice.
  std::string how, cause;
  if (s.state() == v1::RankState::STATE_FAILED_TO_START) {
    how = "could not start" + (s.message().empty() ? std::string() : " (" + s.message() + ")");
    cause = "failed to start";
    when.clear();
  } else if (s.state() == v1::RankState::STATE_SIGNALED) {
    how = "was killed by " + signalName(s.signal());
    cause = "killed";
  } else {
    how = "exited with code " + std::to_string(s.exit_code());
    cause = "exit code";
  }
  v1::Finding f =
      makeFinding(v1::Finding::KIND_CRASH, v1::Finding::SEVERITY_CRITICAL, rank, host, since, cause);
  std::string where = host.empty() ? "" : " (" + host + ")";
  std::string said = firstLastLine_ ? " Its last error line: \"" + *firstLastLine_ + "\"." : "";
  std::string others;
  if (!then_.empty()) {
    others = " Rank";
    others += then_.size() == 1 ? " " : "s ";
    for (size_t i = 0; i < then_.size(); ++i) others += (i ? ", " : "") + std::to_string(then_[i]);
    others += " then failed as well.";
  }
  f.set_summary(format("rank %d%s %s%s, which ended the run.%s%s", rank, where.c_str(), how.c_str(),
                       when.c_str(), said.c_str(), others.c_str()));
  if (s.state() == v1::RankState::STATE_SIGNALED) (*f.mutable_evidence())["signal"] = s.signal();
  if (s.state() == v1::RankState::STATE_EXITED) (*f.mutable_evidence())["exit_code"] = s.exit_code();
  if (last != lastStep_.end()) (*f.mutable_evidence())["last_step"] = static_cast<double>(last->second);
  addAdvice(f);
  return {f};
}

}  // namespace ringmaster::diagnosis
