// SPDX-License-Identifier: GPL-3.0-or-later
#include "diagnosis/run_diagnosis.h"

#include <algorithm>

#include "diagnosis/advice.h"
#include "diagnosis/evidence_keys.h"

namespace ringmaster::diagnosis {
namespace {

// The rank of a record a rank sends about itself; -1 for the agent's (logs, states) and the console's.
int ownRank(const v1::Record& r) {
  switch (r.body_case()) {
    case v1::Record::kStep:
      return r.step().rank();
    case v1::Record::kAllreduce:
      return r.allreduce().rank();
    case v1::Record::kMemory:
      return r.memory().rank();
    case v1::Record::kHeartbeat:
      return r.heartbeat().rank();
    case v1::Record::kRuntime:
      return r.runtime().rank();
    case v1::Record::kSummary:
      return r.summary().rank();
    case v1::Record::kHealth:
      return r.health().rank();
    default:
      return -1;
  }
}

}  // namespace

RunDiagnosis::RunDiagnosis(int worldSize, DiagnosisConfig config)
    : stragglers_(worldSize, config.straggler),
      leaks_(config.leak),
      stalls_(worldSize, config.stall),
      communication_(config.communication),
      divergence_(worldSize),
      collectives_(worldSize),
      replicas_(worldSize),
      missing_(worldSize),
      worldSize_(worldSize),
      config_(config) {
  communication_.setRanks(worldSize);
}

void RunDiagnosis::restarted(int worldSize) {
  crashes_ = CrashDetector();
  stalls_ = StallDetector(worldSize, config_.stall);
  collectives_ = CollectiveSequenceDetector(worldSize);
  replicas_ = ReplicaDriftDetector(worldSize);
  missing_.setWorldSize(worldSize);
  if (worldSize != worldSize_) stragglers_ = StragglerDetector(worldSize, config_.straggler);
  communication_.setRanks(worldSize);
  worldSize_ = worldSize;
  // Findings the ranks sent about the attempt that failed (the Horovod engine's stall) end with it.
  received_.erase(std::remove_if(received_.begin(), received_.end(),
                                 [](const v1::Finding& f) { return f.kind() == v1::Finding::KIND_STALL; }),
                  received_.end());
}

void RunDiagnosis::grow(int worldSize) {
  if (worldSize <= worldSize_) return;
  worldSize_ = worldSize;
  stragglers_ = StragglerDetector(worldSize, config_.straggler);
  stalls_ = StallDetector(worldSize, config_.stall);
  divergence_ = DivergenceDetector(worldSize);
  collectives_ = CollectiveSequenceDetector(worldSize);
  replicas_ = ReplicaDriftDetector(worldSize);
  missing_.setWorldSize(worldSize);
  communication_.setRanks(worldSize);
  for (const auto& [rank, host] : hosts_) setHost(rank, host);
}

void RunDiagnosis::setHost(int rank, const std::string& host) {
  hosts_[rank] = host;
  stragglers_.setHost(rank, host);
  leaks_.setHost(rank, host);
  stalls_.setHost(rank, host);
  communication_.setHost(rank, host);
  divergence_.setHost(rank, host);
  crashes_.setHost(rank, host);
  collectives_.setHost(rank, host);
  replicas_.setHost(rank, host);
}

void RunDiagnosis::observe(const v1::Record& record, int64_t arrivalNs) {
  if (const int rank = ownRank(record); rank >= 0) missing_.heard(rank);
  switch (record.body_case()) {
    case v1::Record::kStep:
      stragglers_.add(record.step());
      stalls_.progress(record.step(), arrivalNs);
      communication_.add(record.step());
      divergence_.add(record.step());
      crashes_.step(record.step());
      collectives_.add(record.step());
      missing_.step(record.step());
      break;
    case v1::Record::kCollectiveCalls:
      collectives_.add(record.collective_calls());
      break;
    case v1::Record::kReplicas:
      replicas_.add(record.replicas());
      break;
    case v1::Record::kLog:
      crashes_.log(record.log());
      missing_.log(record.log());
      break;
    case v1::Record::kAllreduce:
      stragglers_.add(record.allreduce());
      communication_.add(record.allreduce());
      break;
    case v1::Record::kMemory:
      leaks_.add(record.memory());
      break;
    case v1::Record::kStall:
      stalls_.add(record.stall());
      break;
    case v1::Record::kHeartbeat:
      stalls_.heartbeat(record.heartbeat(), arrivalNs);
      collectives_.heartbeat(record.heartbeat());
      break;
    case v1::Record::kFinding: {
      // A rank or agent re-reports a finding as it evolves: the latest of a kind and rank wins.
      // Each restart is a finding of its own, updated once its new attempt says where it resumed.
      const v1::Finding& f = record.finding();
      const auto restartOf = [](const v1::Finding& g) {
        auto it = g.evidence().find(evidence::kRestart);
        return it == g.evidence().end() ? 0.0 : it->second;
      };
      auto same = std::find_if(received_.begin(), received_.end(), [&](const v1::Finding& g) {
        return g.kind() == f.kind() && g.rank() == f.rank() && restartOf(g) == restartOf(f);
      });
      if (same != received_.end()) {
        *same = f;
      } else {
        received_.push_back(f);
      }
      break;
    }
    case v1::Record::kRankState: {
      const auto& state = record.rank_state();
      // A process the program started itself joined as a rank (mp.spawn): the run has more ranks than
      // launched.
      if (state.world_size() > worldSize_) grow(state.world_size());
      if (!state.host().empty()) setHost(state.rank(), state.host());
      crashes_.state(state);
      missing_.state(state);
      if (state.state() == v1::RankState::STATE_EXITED || state.state() == v1::RankState::STATE_SIGNALED ||
          state.state() == v1::RankState::STATE_FAILED_TO_START ||
          state.state() == v1::RankState::STATE_LOST) {
        const bool failed = state.state() != v1::RankState::STATE_EXITED || state.exit_code() != 0;
        stalls_.exited(state.rank(), failed, arrivalNs);
        collectives_.exited(state.rank(), failed);
      }
      break;
    }
    default:
      break;
  }
}

std::vector<v1::Finding> RunDiagnosis::findings(int64_t nowNs) const {
  std::vector<v1::Finding> out = received_;
  auto crashed = crashes_.findings();
  out.insert(out.end(), crashed.begin(), crashed.end());
  auto diverged = divergence_.findings();
  out.insert(out.end(), diverged.begin(), diverged.end());
  auto outOfStep = collectives_.findings();
  out.insert(out.end(), outOfStep.begin(), outOfStep.end());
  auto drift = replicas_.findings();
  out.insert(out.end(), drift.begin(), drift.end());
  if (config_.missingTelemetry) {
    auto missing = missing_.findings();
    out.insert(out.end(), missing.begin(), missing.end());
  }
  auto stragglers = stragglers_.findings();
  out.insert(out.end(), stragglers.begin(), stragglers.end());
  auto leaks = leaks_.findings();
  out.insert(out.end(), leaks.begin(), leaks.end());
  auto stalls = stalls_.findings(nowNs);
  out.insert(out.end(), stalls.begin(), stalls.end());
  // With a straggler that matters, the others' exposed wait is the straggler's doing, not the network's.
  const bool straggling = std::any_of(stragglers.begin(), stragglers.end(), [](const v1::Finding& f) {
    return f.severity() > v1::Finding::SEVERITY_INFO;
  });
  for (auto& f : communication_.findings()) {
    if (f.cause() == "exposed communication" && straggling) continue;
    out.push_back(std::move(f));
  }
  for (auto& f : out) addAdvice(f);  // those received without advice of their own
  std::stable_sort(out.begin(), out.end(),
                   [](const v1::Finding& a, const v1::Finding& b) { return a.severity() > b.severity(); });
  return out;
}

RunDiagnosis replay(const std::vector<RankSeries>& series, const std::vector<v1::StallReport>& stalls,
                    const std::vector<RankInfo>& ranks, int worldSize, DiagnosisConfig config) {
  config.missingTelemetry = false;
  RunDiagnosis diagnosis(worldSize, config);
  for (const auto& r : ranks) {
    if (!r.host.empty()) diagnosis.setHost(r.rank, r.host);
  }
  // Step by step across ranks, each step's ops before its samples, so the detectors see what they would live.
  std::vector<size_t> stepAt(series.size()), opAt(series.size()), memoryAt(series.size());
  v1::Record record;
  for (;;) {
    uint64_t next = UINT64_MAX;
    for (size_t i = 0; i < series.size(); ++i) {
      if (opAt[i] < series[i].allreduce.size()) next = std::min(next, series[i].allreduce[opAt[i]].step());
      if (stepAt[i] < series[i].steps.size()) next = std::min(next, series[i].steps[stepAt[i]].step());
      if (memoryAt[i] < series[i].memory.size()) next = std::min(next, series[i].memory[memoryAt[i]].step());
    }
    if (next == UINT64_MAX) break;
    for (size_t i = 0; i < series.size(); ++i) {
      for (; opAt[i] < series[i].allreduce.size() && series[i].allreduce[opAt[i]].step() == next; ++opAt[i]) {
        *record.mutable_allreduce() = series[i].allreduce[opAt[i]];
        diagnosis.observe(record);
      }
    }
    for (size_t i = 0; i < series.size(); ++i) {
      for (; stepAt[i] < series[i].steps.size() && series[i].steps[stepAt[i]].step() == next; ++stepAt[i]) {
        *record.mutable_step() = series[i].steps[stepAt[i]];
        diagnosis.observe(record);
      }
      for (; memoryAt[i] < series[i].memory.size() && series[i].memory[memoryAt[i]].step() == next;
           ++memoryAt[i]) {
        *record.mutable_memory() = series[i].memory[memoryAt[i]];
        diagnosis.observe(record);
      }
    }
  }
  for (const auto& s : stalls) {
    *record.mutable_stall() = s;
    diagnosis.observe(record);
  }
  return diagnosis;
}

std::vector<v1::Finding> storedFindings(const RunStore& store, int64_t runId) {
  std::vector<v1::Finding> findings = store.findings(runId);
  const auto info = store.run(runId);
  // An import stores only what the import alone can tell (a trace's own flaws, Horovod's readiness ticks).
  const bool imported = info && info->source.rfind("import:", 0) == 0;
  // The store keeps no advice: it is made again from the stored figures.
  for (auto& f : findings) addAdvice(f);
  if (!findings.empty() && !imported) return findings;
  const auto series = store.rankSeries(runId);
  if (!info || series.empty()) return findings;
  const int worldSize = info->worldSize > 0 ? info->worldSize : static_cast<int>(series.size());
  auto replayed = replay(series, store.stallReports(runId), store.ranks(runId), worldSize).findings();
  replayed.insert(replayed.end(), findings.begin(), findings.end());
  return replayed;
}

}  // namespace ringmaster::diagnosis
