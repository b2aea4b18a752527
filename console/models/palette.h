// SPDX-License-Identifier: GPL-3.0-or-later
// Ringmaster's colours, in one place for the window (gui/palette wraps them as QColor) and the reports
// (report_chart draws with them), so a rank, a phase or a failure looks the same on screen and on paper.
// Plain C++: colours as RGB triples and "#rrggbb".
#pragma once

#include <cstdint>
#include <string>

#include "ringmaster/v1/records.pb.h"

namespace ringmaster::console {

struct Rgb {
  uint8_t r = 0, g = 0, b = 0;
  std::string hex() const;  // "#rrggbb"
  bool operator==(const Rgb& o) const { return r == o.r && g == o.g && b == o.b; }
  bool operator!=(const Rgb& o) const { return !(*this == o); }
};

// A distinct colour per rank (hues spread evenly, lighter on dark backgrounds). Compare colours runs alike.
Rgb rankColor(int rank, int rankCount, bool dark);
// Timeline and step-phase colours by Horovod's phase names (DATA, FORWARD, BACKWARD, COMM_WAIT, OPTIMIZER,
// OTHER, NEGOTIATE_ALLREDUCE, ...); a name it does not know gets a stable colour of its own.
Rgb phaseColor(const std::string& phase);
// The kind of event a name numbers ("ProfilerStep#12" → "ProfilerStep#N"): events of one kind share a colour
// and one legend entry. Other names are their own kind.
std::string phaseKind(const std::string& name);
// A failed rank's row or mark: a background tint and the text on it.
Rgb failureColor(bool dark);
Rgb failureTextColor(bool dark);
// A finding's mark by its severity: critical, warning, info.
Rgb severityColor(v1::Finding::Severity severity);
// A job-wide line among per-rank lines ("total"), and a trend drawn over its rank's line.
Rgb totalColor(bool dark);
// The test accuracy drawn beside the loss.
Rgb accuracyColor(bool dark);
Rgb trendColor(const Rgb& lineColor);
// Viridis-like colour for t in [0, 1] (heatmaps); NaN reads as 0.
Rgb heatColor(double t);

}  // namespace ringmaster::console
