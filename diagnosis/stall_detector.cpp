// SPDX-License-Identifier: GPL-3.0-or-later
#include "diagnosis/stall_detector.h"

#include <algorithm>

#include "diagnosis/advice.h"
#include "diagnosis/evidence_keys.h"
#include "diagnosis/finding.h"
#include "diagnosis/summary_text.h"

namespace ringmaster::diagnosis {

namespace {

std::string joinRanks(const std::vector<int>& ranks) {
  std::string out;
  for (int r : ranks) out += (out.empty() ? "" : ",") + std::to_string(r);
  return out;
}

}  // namespace

StallDetector::StallDetector(int worldSize, StallConfig config) : worldSize_(worldSize), config_(config) {}

void StallDetector::setHost(int rank, const std::string& host) {
  hosts_[rank] = host;
}

void StallDetector::add(const v1::StallReport& report) {
  for (int rank : report.missing_ranks()) {
    Missing& m = missing_[rank];
    m.tensors.insert(report.tensors().begin(), report.tensors().end());
    m.reporters.insert(report.reporting_rank());
    m.waitedS = std::max(m.waitedS, report.waited_s());
  }
}

void StallDetector::progress(const v1::StepSample& sample, int64_t arrivalNs) {
  if (arrivalNs > 0 && lastAnyProgressNs_ > 0 &&
      double(arrivalNs - lastAnyProgressNs_) / 1e9 >= config_.stallSeconds) {
    rememberStallThatEnds(arrivalNs);
  }
  uint64_t& last = lastStep_[sample.rank()];
  last = std::max(last, sample.step());
  lastProgressNs_[sample.rank()] = arrivalNs;
  lastAnyProgressNs_ = std::max(lastAnyProgressNs_, arrivalNs);
}

void StallDetector::heartbeat(const v1::Heartbeat& beat, int64_t arrivalNs) {
  // A silent rank beats again (a frozen process continued): what held the job up is about to be forgotten.
  if (auto it = beats_.find(beat.rank());
      it != beats_.end() && arrivalNs > 0 && double(arrivalNs - it->second.arrivalNs) / 1e9 >= kSilentS) {
    rememberStallThatEnds(arrivalNs);
  }
  beats_[beat.rank()] = Beat{beat, arrivalNs};
  if (beat.last_step() >= 0) {
    uint64_t& last = lastStep_[beat.rank()];
    last = std::max(last, static_cast<uint64_t>(beat.last_step()));
  }
}

void StallDetector::rememberStallThatEnds(int64_t nowNs) {
  if (!latched_.empty()) return;
  for (auto& f : progressFindings(nowNs)) {
    if (f.rank() < 0) continue;  // a pause of the whole job (evaluation, a checkpoint) is no one's doing
    f.set_severity(v1::Finding::SEVERITY_WARNING);
    setSummary(f, say(text::kThenItWentOn, {f.sentence()}));
    (*f.mutable_evidence())[evidence::kResumed] = 1;
    // One finding per rank: the longest stall it caused.
    auto same = std::find_if(ended_.begin(), ended_.end(),
                             [&](const v1::Finding& g) { return g.rank() == f.rank(); });
    if (same == ended_.end()) {
      ended_.push_back(std::move(f));
    } else if (f.evidence().at(evidence::kQuietS) > same->evidence().at(evidence::kQuietS)) {
      *same = std::move(f);
    }
  }
}

void StallDetector::exited(int rank, bool failed, int64_t arrivalNs) {
  if (failed && arrivalNs > 0 && latched_.empty() && !exited_.count(rank))
    latched_ = progressFindings(arrivalNs);
  exited_.insert(rank);
}

std::vector<v1::Finding> StallDetector::findings(int64_t nowNs) const {
  std::vector<v1::Finding> out;
  // What the stall reports say: the missing ranks and the tensors they lack.
  for (const auto& [rank, m] : missing_) {
    auto host = hosts_.count(rank) ? hosts_.at(rank) : std::string();
    uint64_t since = lastStep_.count(rank) ? lastStep_.at(rank) + 1 : 0;
    v1::Finding f = makeFinding(v1::Finding::KIND_STALL, v1::Finding::SEVERITY_CRITICAL, rank, host, since,
                                "missing tensors");
    std::string tensors;
    int shown = 0;
    for (const auto& t : m.tensors) {
      if (shown++ == 3) break;
      tensors += (tensors.empty() ? "" : ", ") + t;
    }
    std::vector<int> waiting;
    for (int r = 0; r < worldSize_; ++r) {
      if (!missing_.count(r)) waiting.push_back(r);
    }
    const Sentence who = rankOnHost(rank, host);
    const Decimal waited{m.waitedS, 1};
    setSummary(f, m.tensors.size() > 3
                      ? say(text::kNotSubmittedAndMore,
                            {who, tensors, m.tensors.size() - 3, joinRanks(waiting), waited})
                      : say(text::kNotSubmitted, {who, tensors, joinRanks(waiting), waited}));
    (*f.mutable_evidence())[evidence::kWaitedS] = m.waitedS;
    (*f.mutable_evidence())[evidence::kMissingTensors] = double(m.tensors.size());
    (*f.mutable_evidence())[evidence::kWaitingRanks] = double(waiting.size());
    out.push_back(std::move(f));
  }
  const auto fromProgress = latched_.empty() ? progressFindings(nowNs) : latched_;
  out.insert(out.end(), fromProgress.begin(), fromProgress.end());
  for (const auto& f : ended_) {
    const bool stillNamed = std::any_of(fromProgress.begin(), fromProgress.end(),
                                        [&](const v1::Finding& g) { return g.rank() == f.rank(); });
    if (!stillNamed) out.push_back(f);
  }
  // Advice last: a stall that ended became a warning that "went on" after it was first described.
  for (auto& f : out) addAdvice(f);
  return out;
}

std::vector<v1::Finding> StallDetector::heartbeatFindings(int64_t nowNs, double quietS) const {
  // How long a rank has sent nothing: its last beat or its last step record, whichever came later (a rank
  // may freeze before its first beat, or a beat may predate its last steps). Negative: never heard from.
  const auto silentS = [&](int rank) {
    int64_t heardNs = -1;
    if (auto it = beats_.find(rank); it != beats_.end()) heardNs = it->second.arrivalNs;
    if (auto it = lastProgressNs_.find(rank); it != lastProgressNs_.end())
      heardNs = std::max(heardNs, it->second);
    return heardNs < 0 ? -1.0 : double(nowNs - heardNs) / 1e9;
  };
  const auto lastPhase = [&](int rank) {
    auto it = beats_.find(rank);
    return it == beats_.end() ? std::string() : it->second.beat.phase();
  };
  // A rank that still beats from a phase outside any collective (its data, its forward pass) while others
  // wait: a rank gone silent inside a collective waits there too (a wait that holds the interpreter stops
  // its beats), and the one outside is what they wait for.
  bool activeOutside = false;
  for (int r = 0; r < worldSize_; ++r) {
    const std::string phase = lastPhase(r);
    if (!exited_.count(r) && silentS(r) >= 0 && silentS(r) < kSilentS && !phase.empty() &&
        phase != "comm_wait")
      activeOutside = true;
  }
  std::vector<int> waiting, holding, beating;
  std::map<int, Sentence> what;
  for (int r = 0; r < worldSize_; ++r) {
    if (exited_.count(r)) continue;
    const double silent = silentS(r);
    if (silent < 0) continue;
    auto it = beats_.find(r);
    if (silent >= kSilentS && activeOutside && lastPhase(r) == "comm_wait") {
      waiting.push_back(r);
    } else if (silent >= kSilentS) {
      holding.push_back(r);
      what[r] = say(text::kSentNothingFor, {Decimal{silent, 1}});
    } else if (it == beats_.end()) {
      continue;  // reporting steps, not beating yet: heartbeats cannot tell where it is
    } else if (it->second.beat.phase() == "comm_wait") {
      waiting.push_back(r);
    } else if (it->second.beat.phase().empty()) {
      beating.push_back(r);  // alive, doing it does not say what (Ringmaster's own ranks)
    } else {
      const Beat& b = it->second;
      const double inPhaseS = double(b.beat.time_ns() - b.beat.phase_since_ns()) / 1e9 + silent;
      holding.push_back(r);
      what[r] = say(text::kInPhaseFor, {b.beat.phase(), Decimal{inPhaseS, 1}});
    }
  }
  std::vector<v1::Finding> out;
  // Ranks that beat without saying where they are wait for the silent ones, if any are silent.
  const bool silentOnes =
      std::any_of(holding.begin(), holding.end(), [&](int r) { return silentS(r) >= kSilentS; });
  if (silentOnes) waiting.insert(waiting.end(), beating.begin(), beating.end());
  std::sort(waiting.begin(), waiting.end());
  if (waiting.empty() || holding.empty()) return out;
  for (int rank : holding) {
    auto host = hosts_.count(rank) ? hosts_.at(rank) : std::string();
    // The last step it is known to have finished: its last beat may predate its step records.
    int64_t last = beats_.count(rank) ? beats_.at(rank).beat.last_step() : -1;
    if (auto it = lastStep_.find(rank); it != lastStep_.end())
      last = std::max(last, static_cast<int64_t>(it->second));
    v1::Finding f = makeFinding(v1::Finding::KIND_STALL, v1::Finding::SEVERITY_CRITICAL, rank, host,
                                static_cast<uint64_t>(last + 1), "no collective");
    const Sentence after = last >= 0 ? say(text::kAfterStep, {last}) : say(text::kBeforeFirstStep);
    const bool silent = silentS(rank) >= kSilentS;
    const bool one = waiting.size() == 1;
    const std::vector<Figure> args{rankOnHost(rank, host), after, what[rank], joinRanks(waiting),
                                   Decimal{quietS, 1}};
    if (silent) {
      f.set_cause("silent");
      setSummary(f, say(one ? text::kWentSilentOneWaits : text::kWentSilentManyWait, args));
    } else {
      setSummary(f, say(one ? text::kNoCollectiveOneWaits : text::kNoCollectiveManyWait, args));
    }
    (*f.mutable_evidence())[evidence::kQuietS] = quietS;
    (*f.mutable_evidence())[evidence::kWaitingRanks] = double(waiting.size());
    out.push_back(std::move(f));
  }
  return out;
}

std::vector<v1::Finding> StallDetector::progressFindings(int64_t nowNs) const {
  std::vector<v1::Finding> out;
  if (nowNs <= 0 || lastAnyProgressNs_ == 0) return out;

  // From progress: no rank has finished a step for a while. Ranks behind the others are the ones holding it
  // up.
  double quietS = double(nowNs - lastAnyProgressNs_) / 1e9;
  if (quietS < config_.stallSeconds) return out;
  if (auto named = heartbeatFindings(nowNs, quietS); !named.empty()) return named;
  uint64_t newest = 0;
  for (const auto& [rank, step] : lastStep_) {
    if (!exited_.count(rank)) newest = std::max(newest, step);
  }
  std::vector<int> behind, all;
  for (int r = 0; r < worldSize_; ++r) {
    if (exited_.count(r)) continue;
    all.push_back(r);
    auto it = lastStep_.find(r);
    if (it == lastStep_.end() || it->second < newest) behind.push_back(r);
  }
  if (all.empty()) return out;
  for (int rank : behind) {
    if (missing_.count(rank)) continue;  // already named by a stall report
    auto host = hosts_.count(rank) ? hosts_.at(rank) : std::string();
    uint64_t last = lastStep_.count(rank) ? lastStep_.at(rank) : 0;
    v1::Finding f = makeFinding(v1::Finding::KIND_STALL, v1::Finding::SEVERITY_CRITICAL, rank, host, last + 1,
                                "no progress");
    setSummary(f, say(text::kStoppedBehind, {rankOnHost(rank, host), last, newest, Decimal{quietS, 1}}));
    (*f.mutable_evidence())[evidence::kQuietS] = quietS;
    (*f.mutable_evidence())[evidence::kStepsBehind] = double(newest - last);
    out.push_back(std::move(f));
  }
  if (behind.empty() && missing_.empty()) {
    v1::Finding f = makeFinding(v1::Finding::KIND_STALL, v1::Finding::SEVERITY_CRITICAL, -1, "", newest + 1,
                                "no progress");
    setSummary(f, say(text::kNoRankFinished, {Decimal{quietS, 1}, newest}));
    (*f.mutable_evidence())[evidence::kQuietS] = quietS;
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace ringmaster::diagnosis
