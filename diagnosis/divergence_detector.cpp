// SPDX-License-Identifier: GPL-3.0-or-later
#include "diagnosis/divergence_detector.h"

#include <cmath>

#include "diagnosis/advice.h"
#include "diagnosis/evidence_keys.h"
#include "diagnosis/summary_text.h"

namespace ringmaster::diagnosis {

void DivergenceDetector::add(const v1::StepSample& step) {
  Rank& r = ranks_[step.rank()];
  if (r.diverged) return;
  if (std::isfinite(step.loss())) {
    r.lastFinite = step.loss();
    r.sawFinite = true;
    return;
  }
  r.diverged = true;
  r.firstStep = step.step();
  r.value = step.loss();
}

std::vector<v1::Finding> DivergenceDetector::findings() const {
  // Ranks grouped by the step at which they diverged (with DDP every rank sees the same averaged gradients,
  // so they diverge together; a rank alone points at its own data).
  std::map<uint64_t, std::vector<int>> byStep;
  for (const auto& [rank, r] : ranks_) {
    if (r.diverged) byStep[r.firstStep].push_back(rank);
  }
  std::vector<v1::Finding> out;
  for (const auto& [step, ranks] : byStep) {
    const Rank& first = ranks_.at(ranks.front());
    const Sentence what = say(std::isnan(first.value) ? text::kNaN : text::kInfinite);
    const bool everyRank = static_cast<int>(ranks.size()) == worldSize_ && worldSize_ > 1;
    Sentence where;
    if (everyRank) {
      where = say(text::kOnEveryRank);
    } else if (ranks.size() == 1) {
      where = say(text::kOnRank, {ranks.front()});
    } else {
      std::string list;
      for (size_t i = 0; i < ranks.size(); ++i) list += (i ? ", " : "") + std::to_string(ranks[i]);
      where = say(text::kOnRanks, {list});
    }
    const int rank = ranks.size() == 1 ? ranks.front() : -1;
    auto host = hosts_.find(rank);
    v1::Finding f = makeFinding(v1::Finding::KIND_DIVERGENCE, v1::Finding::SEVERITY_CRITICAL, rank,
                                host != hosts_.end() ? host->second : "", step, "diverged");
    setSummary(f, first.sawFinite ? say(text::kLossBecameAfterFinite,
                                        {what, step, where, format("%.4g", first.lastFinite)})
                                  : say(text::kLossBecameFromFirstStep, {what, step, where}));
    (*f.mutable_evidence())[evidence::kFirstStep] = static_cast<double>(step);
    (*f.mutable_evidence())[evidence::kRanks] = static_cast<double>(ranks.size());
    if (first.sawFinite) (*f.mutable_evidence())[evidence::kLastFiniteLoss] = first.lastFinite;
    addAdvice(f);
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace ringmaster::diagnosis
