// SPDX-License-Identifier: GPL-3.0-or-later
// Chart axes as people read them: ticks on round steps (1, 2 or 5 x 10^k: 0/50/100/150/200, never 0/3/5/8)
// and values with SI prefixes ("12.3 k", never "1e+04"). Plain C++, so charts in the GUI and in reports
// can label alike.
#pragma once

#include <string>
#include <vector>

namespace ringmaster::console {

// The smallest 1, 2 or 5 x 10^k that is at least `span / maxIntervals` (span > 0, maxIntervals >= 1).
double niceStep(double span, int maxIntervals);
// The multiples of niceStep(hi - lo, maxIntervals) within [lo, hi]; {lo} when the range is empty.
std::vector<double> niceTicks(double lo, double hi, int maxIntervals);
// `value` with an SI prefix (k, M, G, T) from 1000 on: "12.3 k", "450", "0.25", "1.5 M". With `resolution`
// > 0 (an axis' tick step) it shows the decimals that tell ticks apart ("102 k", "1.5 k"); without, three
// significant digits.
std::string siNumber(double value, double resolution = 0);

}  // namespace ringmaster::console
