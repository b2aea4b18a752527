// SPDX-License-Identifier: GPL-3.0-or-later
#include "diagnosis/horovod_readiness.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <map>

#include "diagnosis/advice.h"
#include "diagnosis/duration_text.h"
#include "diagnosis/evidence_keys.h"
#include "diagnosis/finding.h"
#include "diagnosis/statistics.h"
#include "diagnosis/summary_text.h"

namespace ringmaster::diagnosis {
namespace {

// A tick is named by its rank: "0", "1", ... (Horovod's own naming).
bool rankName(const std::string& name, int& rank) {
  if (name.empty() || name.size() > 6) return false;
  rank = 0;
  for (char c : name) {
    if (c < '0' || c > '9') return false;
    rank = rank * 10 + (c - '0');
  }
  return true;
}

}  // namespace

ReadinessTally::ReadinessTally(ReadinessConfig config) : config_(config) {}

void ReadinessTally::observe(const v1::TimelineEvent& event) {
  int rank = 0;
  if (event.start_ns() == event.end_ns() && rankName(event.name(), rank)) {
    pending_[event.lane()].push_back({rank, event.start_ns()});
    maxRank_ = std::max(maxRank_, rank);
    return;
  }
  if (event.name().rfind("NEGOTIATE_", 0) != 0) return;
  auto found = pending_.find(event.lane());
  if (found == pending_.end()) return;
  // The ticks inside this span, first tick of each rank only.
  std::map<int, int64_t> firstTick;
  for (const Tick& tick : found->second) {
    if (tick.atNs < event.start_ns() || tick.atNs > event.end_ns()) continue;
    auto [at, added] = firstTick.emplace(tick.rank, tick.atNs);
    if (!added) at->second = std::min(at->second, tick.atNs);
  }
  pending_.erase(found);
  if (firstTick.empty()) return;
  Negotiation negotiation;
  negotiation.ranks = static_cast<int>(firstTick.size());
  int64_t latest = INT64_MIN, before = INT64_MIN;
  for (const auto& [r, at] : firstTick) {
    if (at > latest) {
      before = latest;
      latest = at;
      negotiation.last = r;
    } else if (at > before) {
      before = at;
    }
  }
  if (negotiation.ranks < 2 || before == latest) {
    negotiation.last = -1;  // one rank alone, or a tie: no one held the others back
  } else {
    negotiation.lateNs = latest - before;
  }
  negotiations_.push_back(negotiation);
}

uint64_t ReadinessTally::completeNegotiations() const {
  const int n = worldSize();
  return static_cast<uint64_t>(std::count_if(negotiations_.begin(), negotiations_.end(),
                                             [n](const Negotiation& g) { return g.ranks == n; }));
}

uint64_t ReadinessTally::incompleteNegotiations() const {
  return negotiations_.size() - completeNegotiations();
}

std::vector<RankLateness> ReadinessTally::lateness() const {
  const int n = worldSize();
  std::map<int, std::vector<double>> gaps;
  for (const Negotiation& g : negotiations_) {
    if (g.ranks == n && g.last >= 0) gaps[g.last].push_back(static_cast<double>(g.lateNs));
  }
  std::vector<RankLateness> out;
  for (auto& [rank, late] : gaps) out.push_back({rank, late.size(), stats::median(late)});
  std::stable_sort(out.begin(), out.end(),
                   [](const RankLateness& a, const RankLateness& b) { return a.last > b.last; });
  return out;
}

std::vector<v1::Finding> ReadinessTally::findings() const {
  std::vector<v1::Finding> out;
  if (negotiations_.empty() || worldSize() < 2) return out;
  const uint64_t complete = completeNegotiations();
  if (complete < config_.minNegotiations) {
    v1::Finding f =
        makeFinding(v1::Finding::KIND_STRAGGLER, v1::Finding::SEVERITY_INFO, -1, "", 0, "readiness");
    setSummary(f, say(text::kFewCompleteNegotiations,
                      {complete, negotiations_.size(), worldSize(), config_.minNegotiations}));
    (*f.mutable_evidence())[evidence::kCompleteNegotiations] = static_cast<double>(complete);
    (*f.mutable_evidence())[evidence::kNegotiations] = static_cast<double>(negotiations_.size());
    addAdvice(f);
    out.push_back(f);
    return out;
  }
  const double fair = 1.0 / worldSize();
  const double spread = std::sqrt(static_cast<double>(complete) * fair * (1 - fair));
  for (const RankLateness& r : lateness()) {
    const double share = static_cast<double>(r.last) / static_cast<double>(complete);
    const double score = (static_cast<double>(r.last) - static_cast<double>(complete) * fair) / spread;
    if (score < config_.minScore || share < config_.minShareOverFair * fair) continue;
    v1::Finding f =
        makeFinding(v1::Finding::KIND_STRAGGLER, v1::Finding::SEVERITY_WARNING, r.rank, "", 0, "readiness");
    setSummary(f, say(text::kLastToBeReady, {r.rank, Decimal{share * 100, 0}, complete,
                                             Decimal{fair * 100, 0}, formatDuration(r.medianLateNs)}));
    (*f.mutable_evidence())[evidence::kLastSharePct] = share * 100;
    (*f.mutable_evidence())[evidence::kMedianLateMs] = r.medianLateNs / 1e6;
    (*f.mutable_evidence())[evidence::kNegotiations] = static_cast<double>(complete);
    addAdvice(f);
    out.push_back(f);
  }
  return out;
}

}  // namespace ringmaster::diagnosis
