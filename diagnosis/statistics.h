// SPDX-License-Identifier: GPL-3.0-or-later
// Robust statistics for diagnosis and comparison (medians and quantiles are the core's: common/quantiles.h):
// the median absolute deviation,
// the Theil–Sen slope with its rank-based confidence interval, and bootstrap confidence intervals.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/quantiles.h"

namespace ringmaster::stats {

// Scales a median absolute deviation to a normal distribution's standard deviation.
inline constexpr double kMadToSigma = 1.482602218505602;

// Median of |x - center|, unscaled.
double medianAbsoluteDeviation(const std::vector<double>& values, double center);

// z such that P(Z <= z) = p for a standard normal Z.
double normalQuantile(double p);

// A robust straight line y = intercept + slope * x.
struct SlopeEstimate {
  double slope = 0;
  double intercept = 0;
  double lower = 0;  // confidence interval of the slope
  double upper = 0;
  size_t points = 0;  // points used (after thinning)
};

// Theil–Sen: the median of the slopes of all pairs of points, with the distribution-free interval from
// Kendall's tau (Sen 1968). Above `maxPoints` points the series is thinned evenly, which keeps the cost at
// maxPoints² / 2 pairs. x and y must have the same length; fewer than 2 distinct x give slope 0.
SlopeEstimate theilSen(const std::vector<double>& x, const std::vector<double>& y, double confidence = 0.95,
                       size_t maxPoints = 400);

// Whether theilSen(x, y, confidence, maxPoints).lower > 0, the same answer for the same points, found by
// counting the pairs whose slope is positive (Kendall's concordant pairs) in O(n log n) instead of selecting
// among every pair's slope: a series that does not grow is told so cheaply.
bool theilSenLowerAboveZero(const std::vector<double>& x, const std::vector<double>& y,
                            double confidence = 0.95, size_t maxPoints = 400);

struct Interval {
  double estimate = 0;
  double lower = 0;
  double upper = 0;
};

enum class Statistic { Mean, Median, P95 };

// Relative difference of `statistic` between two samples, (b - a) / a, with a percentile-bootstrap interval:
// both samples are resampled with replacement `resamples` times. Deterministic for a given seed.
Interval bootstrapRelativeDifference(const std::vector<double>& a, const std::vector<double>& b,
                                     Statistic statistic = Statistic::Mean, double confidence = 0.95,
                                     int resamples = 2000, uint64_t seed = 1);

}  // namespace ringmaster::stats
