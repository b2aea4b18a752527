// SPDX-License-Identifier: GPL-3.0-or-later
#include "console/models/axis_scale.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace ringmaster::console {

double niceStep(double span, int maxIntervals) {
  const double raw = span / std::max(1, maxIntervals);
  if (!(raw > 0) || !std::isfinite(raw)) return 1;
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0}) {
    if (m * power >= raw * (1 - 1e-9)) return m * power;
  }
  return 10 * power;
}

std::vector<double> niceTicks(double lo, double hi, int maxIntervals) {
  if (!(hi > lo)) return {lo};
  const double step = niceStep(hi - lo, maxIntervals);
  std::vector<double> ticks;
  for (double k = std::ceil(lo / step - 1e-9); k * step <= hi + step * 1e-9; ++k) {
    const double t = k * step;
    ticks.push_back(std::fabs(t) < step * 1e-9 ? 0.0 : t);  // no "-0"
  }
  return ticks;
}

std::string siNumber(double value, double resolution) {
  if (!std::isfinite(value)) return value != value ? "–" : (value > 0 ? "∞" : "-∞");
  static const char* const kPrefixes[] = {"", " k", " M", " G", " T"};
  const double magnitude = std::fabs(value);
  int prefix = 0;
  double scale = 1;
  while (prefix < 4 && magnitude >= scale * 1000 * (1 - 1e-9)) {
    scale *= 1000;
    ++prefix;
  }
  const double scaled = value / scale;
  int decimals = 0;
  if (resolution > 0) {
    decimals = static_cast<int>(std::ceil(-std::log10(resolution / scale) - 1e-9));
  } else if (scaled != 0) {
    decimals = 2 - static_cast<int>(std::floor(std::log10(std::fabs(scaled)) + 1e-9));
  }
  decimals = std::clamp(decimals, 0, 6);
  // What rounds to zero reads "0", not "-0".
  const double shown = std::fabs(scaled) < 0.5 * std::pow(10.0, -decimals) ? 0.0 : scaled;
  char text[64];
  std::snprintf(text, sizeof text, "%.*f%s", decimals, shown, kPrefixes[prefix]);
  const std::string out = text;
  return out;
}

}  // namespace ringmaster::console
