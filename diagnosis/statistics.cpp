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

namespace {

// The points a Theil–Sen fit uses: all of them, or `maxPoints` spread evenly.
std::vector<size_t> pickedPoints(size_t n, size_t maxPoints) {
  std::vector<size_t> picked;
  const size_t keep = std::min(n, std::max<size_t>(maxPoints, 2));
  picked.reserve(keep);
  for (size_t i = 0; i < keep; ++i) {
    picked.push_back(
        keep == n ? i : static_cast<size_t>(std::llround(double(i) * double(n - 1) / double(keep - 1))));
  }
  return picked;
}

// The rank, among `pairs` slopes sorted, of the lower end of Sen's interval for `points` points.
size_t senLowerRank(size_t points, size_t pairs, double confidence) {
  const double n = static_cast<double>(points);
  const double c = normalQuantile(0.5 + confidence / 2) * std::sqrt(n * (n - 1) * (2 * n + 5) / 18);
  return size_t(std::clamp(std::floor((static_cast<double>(pairs) - c) / 2), 0.0, double(pairs - 1)));
}

}  // namespace

SlopeEstimate theilSen(const std::vector<double>& x, const std::vector<double>& y, double confidence,
                       size_t maxPoints) {
  assert(x.size() == y.size());
  SlopeEstimate result;
  const std::vector<size_t> picked = pickedPoints(x.size(), maxPoints);
  const size_t keep = picked.size();
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
  double c = normalQuantile(0.5 + confidence / 2) * std::sqrt(points * (points - 1) * (2 * points + 5) / 18);
  double highRank = std::ceil((static_cast<double>(pairs) + c) / 2);
  result.lower = rankValue(senLowerRank(picked.size(), pairs, confidence));
  result.upper = rankValue(size_t(std::clamp(highRank, 0.0, double(pairs - 1))));

  std::vector<double> intercepts;
  intercepts.reserve(picked.size());
  for (size_t i : picked) intercepts.push_back(y[i] - result.slope * x[i]);
  result.intercept = median(std::move(intercepts));
  return result;
}

bool theilSenLowerAboveZero(const std::vector<double>& x, const std::vector<double>& y, double confidence,
                            size_t maxPoints) {
  assert(x.size() == y.size());
  const std::vector<size_t> picked = pickedPoints(x.size(), maxPoints);
  const size_t n = picked.size();
  // Pairs with distinct x (theilSen's slopes), and those among them whose slope is positive.
  uint64_t pairs = 0, positive = 0;
  const bool sorted =
      std::is_sorted(picked.begin(), picked.end(), [&](size_t a, size_t b) { return x[a] < x[b]; });
  if (sorted) {
    // x never falls: a pair's slope is positive when the later point, at a larger x, has a larger y. Count
    // them with a Fenwick tree over y's ranks, each run of equal x queried before it is added.
    std::vector<double> ys;
    ys.reserve(n);
    for (size_t i : picked) ys.push_back(y[i]);
    std::sort(ys.begin(), ys.end());
    ys.erase(std::unique(ys.begin(), ys.end()), ys.end());
    std::vector<uint32_t> tree(ys.size() + 1, 0);
    auto rankOf = [&](double v) { return size_t(std::lower_bound(ys.begin(), ys.end(), v) - ys.begin()); };
    size_t added = 0;
    for (size_t begin = 0; begin < n;) {
      size_t end = begin;
      while (end < n && x[picked[end]] == x[picked[begin]]) ++end;
      for (size_t i = begin; i < end; ++i) {
        for (size_t r = rankOf(y[picked[i]]); r > 0; r &= r - 1) positive += tree[r];  // added below this y
      }
      pairs += uint64_t(added) * (end - begin);
      for (size_t i = begin; i < end; ++i) {
        for (size_t r = rankOf(y[picked[i]]) + 1; r < tree.size(); r += r & (~r + 1)) ++tree[r];
      }
      added += end - begin;
      begin = end;
    }
  } else {
    for (size_t a = 0; a < n; ++a) {
      for (size_t b = a + 1; b < n; ++b) {
        const double dx = x[picked[b]] - x[picked[a]], dy = y[picked[b]] - y[picked[a]];
        if (dx == 0) continue;
        ++pairs;
        positive += (dx > 0 && dy > 0) || (dx < 0 && dy < 0);
      }
    }
  }
  if (pairs == 0) return false;
  // The slope at the interval's lower rank is positive when fewer slopes than that rank + 1 are not.
  return pairs - positive <= senLowerRank(n, size_t(pairs), confidence);
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
