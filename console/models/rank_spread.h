// SPDX-License-Identifier: GPL-3.0-or-later
// How one metric spreads across ranks, step by step: the lowest rank's value, the lower quartile, the median,
// the upper quartile and the highest, each a StepSeries of its own. With hundreds of ranks a chart draws this
// band (and a few ranks' own lines) instead of a line per rank, so what a frame costs no longer grows with
// the ranks. Only the steps whose values changed since the last update are computed again.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "console/models/step_series.h"

namespace ringmaster::console {

// Beyond this many ranks a chart draws their spread instead of a line per rank.
inline constexpr int kRanksDrawnOneByOne = 16;

class RankSpread {
 public:
  enum Quantile { Lowest, LowerQuartile, Median, UpperQuartile, Highest };
  static constexpr int kQuantiles = 5;
  // The fraction of ranks at or below each quantile (stats::quantile's, interpolated between ranks).
  static constexpr std::array<double, kQuantiles> kFractions{0, 0.25, 0.5, 0.75, 1};

  // Brings the spread up to date with `ranks` (one series per rank, in rank order): the steps from the
  // lowest one any rank changed since the last update (StepSeries::takeChangedFrom) are computed again.
  void update(const std::vector<StepSeries*>& ranks);

  StepSeries& operator[](Quantile q) { return quantiles_[q]; }
  const StepSeries& operator[](Quantile q) const { return quantiles_[q]; }
  uint64_t endStep() const { return quantiles_[Highest].endStep(); }
  size_t bytesHeld() const;

 private:
  std::array<StepSeries, kQuantiles> quantiles_;
  std::vector<double> values_;  // one step's values, reused
};

}  // namespace ringmaster::console
