// SPDX-License-Identifier: GPL-3.0-or-later
// Durations as people read them: "350 ns", "4.1 ms", "2.5 s", "3.2 min", "9.1 d", never "1e+05 s".
#pragma once

#include <string>

namespace ringmaster {

// `ns` nanoseconds in the largest unit (ns, µs, ms, s, min, h, d) that keeps the figure at 1 or more, with
// three significant digits (whole numbers from 100 on).
std::string formatDuration(double ns);

}  // namespace ringmaster
