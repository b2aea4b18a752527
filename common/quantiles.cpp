// SPDX-License-Identifier: GPL-3.0-or-later
#include "common/quantiles.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace ringmaster::stats {

double mean(const std::vector<double>& values) {
  if (values.empty()) return 0;
  return std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
}

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  size_t mid = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + mid, values.end());
  double upper = values[mid];
  if (values.size() % 2 == 1) return upper;
  double lower = *std::max_element(values.begin(), values.begin() + mid);
  return (lower + upper) / 2;
}

double quantile(std::vector<double> values, double q) {
  std::sort(values.begin(), values.end());
  return quantileOfSorted(values, q);
}

double quantileOfSorted(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  double position = std::clamp(q, 0.0, 1.0) * static_cast<double>(sorted.size() - 1);
  size_t below = static_cast<size_t>(std::floor(position));
  size_t above = std::min(below + 1, sorted.size() - 1);
  double fraction = position - static_cast<double>(below);
  return sorted[below] + (sorted[above] - sorted[below]) * fraction;
}

}  // namespace ringmaster::stats
