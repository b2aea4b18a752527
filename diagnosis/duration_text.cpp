// SPDX-License-Identifier: GPL-3.0-or-later
#include "diagnosis/duration_text.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

// lupdate collects the patterns marked with Qt's QT_TRANSLATE_NOOP from this file; diagnosis has no Qt, so
// here the marker is the text itself.
#define QT_TRANSLATE_NOOP(context, text) text

namespace ringmaster {

std::string formatDuration(double ns) {
  struct Unit {
    double ns;
    const char* name;
  };
  static constexpr Unit kUnits[] = {{86400e9, "d"}, {3600e9, "h"}, {60e9, "min"}, {1e9, "s"},
                                    {1e6, "ms"},    {1e3, "µs"},   {1, "ns"}};
  if (!std::isfinite(ns)) return "unknown";
  const double size = std::abs(ns);
  if (size < 0.5) return "0 ns";  // an axis tick at zero computed as -1e-9 is still zero
  const Unit* unit = &kUnits[6];
  for (const Unit& u : kUnits) {
    if (size >= u.ns) {
      unit = &u;
      break;
    }
  }
  const double value = ns / unit->ns;
  char text[64];
  std::snprintf(text, sizeof text, std::abs(value) >= 100 ? "%.0f %s" : "%.3g %s", value, unit->name);
  return text;
}

Sentence elapsedSentence(double seconds) {
  // Beyond a million years the figure is a mistake anyway; the cap keeps the rounding defined.
  const long long s = std::isfinite(seconds) && seconds > 0 ? std::llround(std::min(seconds, 3.2e13)) : 0;
  if (s < 60) return sentence(kDurationContext, QT_TRANSLATE_NOOP("ringmaster::Duration", "%1 s"), {s});
  if (s < 3600) {
    return sentence(kDurationContext, QT_TRANSLATE_NOOP("ringmaster::Duration", "%1 min %2 s"),
                    {s / 60, s % 60});
  }
  return sentence(kDurationContext, QT_TRANSLATE_NOOP("ringmaster::Duration", "%1 h %2 min"),
                  {s / 3600, s % 3600 / 60});
}

Sentence spanSentence(double seconds) {
  const double ns = seconds * 1e9;
  const double size = std::abs(ns);
  if (!std::isfinite(ns) || size < 1e9) return sentence(kDurationContext, "%1", {formatDuration(ns)});
  struct Unit {
    double seconds;
    const char* pattern;
  };
  static const Unit kUnits[] = {{86400, QT_TRANSLATE_NOOP("ringmaster::Duration", "%1 d")},
                                {3600, QT_TRANSLATE_NOOP("ringmaster::Duration", "%1 h")},
                                {60, QT_TRANSLATE_NOOP("ringmaster::Duration", "%1 min")},
                                {1, QT_TRANSLATE_NOOP("ringmaster::Duration", "%1 s")}};
  const Unit* unit = &kUnits[3];
  for (const Unit& u : kUnits) {
    if (std::abs(seconds) >= u.seconds) {
      unit = &u;
      break;
    }
  }
  // formatDuration's figures: three significant digits, whole numbers from 100 on.
  const double value = seconds / unit->seconds;
  char figure[64];
  std::snprintf(figure, sizeof figure, std::abs(value) >= 100 ? "%.0f" : "%.3g", value);
  return sentence(kDurationContext, unit->pattern, {std::string(figure)});
}

std::string formatElapsed(double seconds) {
  return toText(elapsedSentence(seconds));
}

TimeUnit timeUnitFor(double largestNs, double resolutionNs) {
  // Minutes and hours would need sexagesimal decimals: an axis of a long run reads "7200 s".
  static constexpr TimeUnit kUnits[] = {{1e9, "s", 0}, {1e6, "ms", 0}, {1e3, "µs", 0}, {1, "ns", 0}};
  const double size = std::isfinite(largestNs) ? std::abs(largestNs) : 0;
  const double resolution = std::isfinite(resolutionNs) && resolutionNs > 0 ? resolutionNs : 1;
  // A point below the resolution reads as zero in the resolution's own unit ("0 µs" between "-2 µs" and
  // "2 µs").
  const double reach = std::max(size, resolution);
  TimeUnit unit = kUnits[3];
  for (const TimeUnit& u : kUnits) {
    if (reach >= u.ns) {
      unit = u;
      break;
    }
  }
  // Decimals down to the resolution (never below a nanosecond); 1e-9 absorbs rounding of exact powers of ten.
  const double digits = std::ceil(std::log10(unit.ns / std::max(resolution, 1.0)) - 1e-9);
  unit.decimals = static_cast<int>(std::clamp(digits, 0.0, 9.0));
  return unit;
}

std::string formatTimeIn(double ns, const TimeUnit& unit) {
  if (!std::isfinite(ns)) return "unknown";
  double value = ns / unit.ns;
  if (std::abs(value) < 0.5 * std::pow(10.0, -unit.decimals)) value = 0;  // no "-0"
  char text[64];
  std::snprintf(text, sizeof text, "%.*f %s", unit.decimals, value, unit.name);
  return text;
}

std::string formatTimePoint(double ns, double resolutionNs) {
  return formatTimeIn(ns, timeUnitFor(ns, resolutionNs));
}

}  // namespace ringmaster
