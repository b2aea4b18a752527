// SPDX-License-Identifier: GPL-3.0-or-later
#include "common/diagnosis/divergence_detector.h"

#include <cmath>

#include "common/diagnosis/advice.h"

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
    const char* what = std::isnan(first.value) ? "NaN" : "infinite";
    const bool everyRank = static_cast<int>(ranks.size()) == worldSize_ && worldSize_ > 1;
    std::string where;
    if (everyRank) {
      where = "on every rank";
    } else if (ranks.size() == 1) {
      where = "on rank " + std::to_string(ranks.front());
    } else {
      where = "on ranks";
      for (size_t i = 0; i < ranks.size(); ++i) where += (i ? ", " : " ") + std::to_string(ranks[i]);
    }
    const int rank = ranks.size() == 1 ? ranks.front() : -1;
    auto host = hosts_.find(rank);
    v1::Finding f = makeFinding(v1::Finding::KIND_DIVERGENCE, v1::Finding::SEVERITY_CRITICAL, rank,
                                host != hosts_.end() ? host->second : "", step, "diverged");
    std::string before = first.sawFinite ? format(" (the step before: %.4g)", first.lastFinite)
                                         : std::string(" (from the first step)");
    f.set_summary(format("The loss became %s at step %llu %s%s: training goes on without learning.", what,
                         static_cast<unsigned long long>(step), where.c_str(), before.c_str()));
    (*f.mutable_evidence())["first_step"] = static_cast<double>(step);
    (*f.mutable_evidence())["ranks"] = static_cast<double>(ranks.size());
    if (first.sawFinite) (*f.mutable_evidence())["last_finite_loss"] = first.lastFinite;
    addAdvice(f);
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace ringmaster::diagnosis
