// SPDX-License-Identifier: GPL-3.0-or-later
#include "diagnosis/statistics.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <numeric>
#include <random>

namespace ringmaster::stats {

double medianAbsoluteDeviation(const std::vector<double>& values, double center) {
  std::vector<double> deviations;
  deviations.reserve(values.size());
  for (double v : values) deviations.push_back(std::fabs(v - center));
  return median(std::move(deviations));
}

double normalQuantile(double p) {
  assert(p > 0 && p < 1);
  // Bisection on the normal CDF, written with erfc: plenty fast for the few calls we make, exact to 1e-12.
  double low = -40, high = 40;
  for (int i = 0; i < 200 && high - low > 1e-12; ++i) {
    double mid = (low + high) / 2;
    double cdf = 0.5 * std::erfc(-mid / std::sqrt(2.0));
    (cdf < p ? low : high) = mid;
  }
  return (low + high) / 2;
}

SlopeEstimate theilSen(const std::vector<double>& x, const std::vector<double>& y, double confidence,
                       size_t maxPoints) {
  assert(x.size() == y.size());
  SlopeEstimate result;
  std::vector<size_t> picked;
  size_t n = x.size();
  size_t keep = std::min(n, std::max<size_t>(maxPoints, 2));
  picked.reserve(keep);
  for (size_t i = 0; i < keep; ++i) {
    picked.push_back(
        keep == n ? i : static_cast<size_t>(std::llround(double(i) * double(n - 1) / double(keep - 1))));
  }
  result.points = picked.size();

  std::vector<double> slopes;
  slopes.reserve(keep * (keep - 1) / 2);
  for (size_t a = 0; a < picked.size(); ++a) {
    for (size_t b = a + 1; b < picked.size(); ++b) {
      double dx = x[picked[b]] - x[picked[a]];
      if (dx != 0) slopes.push_back((y[picked[b]] - y[picked[a]]) / dx);
    }
  }
  if (slopes.empty()) return result;

  // Three order statistics of the pairwise slopes (the median and the interval's ends): selection, not
  // sorting.
  size_t pairs = slopes.size();
  auto rankValue = [&](size_t rank) {
    std::nth_element(slopes.begin(), slopes.begin() + long(rank), slopes.end());
    return slopes[rank];
  };
  double upperMiddle = rankValue(pairs / 2);
  double lowerMiddle =
      pairs % 2 == 1 ? upperMiddle : *std::max_element(slopes.begin(), slopes.begin() + long(pairs / 2));
  result.slope = (lowerMiddle + upperMiddle) / 2;

  // Sen's interval: the slopes ranked (N - C)/2 and (N + C)/2, C = z * sqrt(var(Kendall's S)).
  double points = static_cast<double>(picked.size());
  double z = normalQuantile(0.5 + confidence / 2);
  double c = z * std::sqrt(points * (points - 1) * (2 * points + 5) / 18);
  double lowRank = std::floor((static_cast<double>(pairs) - c) / 2);
  double highRank = std::ceil((static_cast<double>(pairs) + c) / 2);
  result.lower = rankValue(size_t(std::clamp(lowRank, 0.0, double(pairs - 1))));
  result.upper = rankValue(size_t(std::clamp(highRank, 0.0, double(pairs - 1))));

  std::vector<double> intercepts;
  intercepts.reserve(picked.size());
  for (size_t i : picked) intercepts.push_back(y[i] - result.slope * x[i]);
  result.intercept = median(std::move(intercepts));
  return result;
}

namespace {

double apply(Statistic statistic, std::vector<double> values) {
  switch (statistic) {
    case Statistic::Mean:
      return mean(values);
    case Statistic::Median:
      return median(std::move(values));
    case Statistic::P95:
      return quantile(std::move(values), 0.95);
  }
  return mean(values);
}

}  // namespace

Interval bootstrapRelativeDifference(const std::vector<double>& a, const std::vector<double>& b,
                                     Statistic statistic, double confidence, int resamples, uint64_t seed) {
  Interval result;
  if (a.empty() || b.empty()) return result;
  double base = apply(statistic, a);
  if (base == 0) return result;
  result.estimate = (apply(statistic, b) - base) / base;

  std::mt19937_64 random(seed);
  std::vector<double> sampleA(a.size()), sampleB(b.size()), differences;
  differences.reserve(static_cast<size_t>(resamples));
  std::uniform_int_distribution<size_t> pickA(0, a.size() - 1), pickB(0, b.size() - 1);
  for (int r = 0; r < resamples; ++r) {
    for (double& v : sampleA) v = a[pickA(random)];
    for (double& v : sampleB) v = b[pickB(random)];
    double resampledBase = apply(statistic, sampleA);
    if (resampledBase != 0)
      differences.push_back((apply(statistic, sampleB) - resampledBase) / resampledBase);
  }
  double tail = (1 - confidence) / 2;
  result.lower = quantile(differences, tail);
  result.upper = quantile(differences, 1 - tail);
  return result;
}

}  // namespace ringmaster::stats
