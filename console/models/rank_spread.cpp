// SPDX-License-Identifier: GPL-3.0-or-later
#include "console/models/rank_spread.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "common/quantiles.h"

namespace ringmaster::console {

void RankSpread::update(const std::vector<StepSeries*>& ranks) {
  uint64_t from = std::numeric_limits<uint64_t>::max();
  uint64_t end = 0;
  // Steps some rank holds only as a block summary are not computed again from its blocks' means: their
  // spread is the one computed while every rank held them whole.
  uint64_t whole = 0;
  for (StepSeries* r : ranks) {
    from = std::min(from, r->takeChangedFrom());
    end = std::max(end, r->endStep());
    whole = std::max(whole, r->summarisedEnd());
  }
  from = std::max(from, whole);
  for (uint64_t step = from; step < end; ++step) {
    values_.clear();
    for (const StepSeries* r : ranks) {
      const float v = r->at(step);
      if (!std::isnan(v)) values_.push_back(v);
    }
    if (values_.empty()) {
      // A step no rank has a value for keeps none here either (and allocates nothing).
      if (!std::isnan(quantiles_[Median].at(step))) {
        for (StepSeries& q : quantiles_) q.set(step, std::numeric_limits<float>::quiet_NaN());
      }
      continue;
    }
    std::sort(values_.begin(), values_.end());
    for (int q = 0; q < kQuantiles; ++q)
      quantiles_[q].set(step, static_cast<float>(stats::quantileOfSorted(values_, kFractions[q])));
  }
}

size_t RankSpread::bytesHeld() const {
  size_t bytes = sizeof(values_) + values_.capacity() * sizeof(double);
  for (const StepSeries& q : quantiles_) bytes += q.bytesHeld();
  return bytes;
}

}  // namespace ringmaster::console
