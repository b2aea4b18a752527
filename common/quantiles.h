// SPDX-License-Identifier: GPL-3.0-or-later
// Means, medians and quantiles of measured values: one definition for the ranks' own figures (the worker's
// communication benchmark), the run summary, diagnosis and comparison.
#pragma once

#include <vector>

namespace ringmaster::stats {

// The arithmetic mean; 0 for an empty set.
double mean(const std::vector<double>& values);
// The middle value (mean of the two middle ones for an even count); 0 for an empty set.
double median(std::vector<double> values);
// Linear-interpolated quantile, q in [0, 1]; 0 for an empty set.
double quantile(std::vector<double> values, double q);
// The same of values already sorted ascending, for several quantiles of one set.
double quantileOfSorted(const std::vector<double>& sorted, double q);

}  // namespace ringmaster::stats
