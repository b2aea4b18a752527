// SPDX-License-Identifier: GPL-3.0-or-later
#include "common/duration_text.h"

#include <cmath>
#include <cstdio>

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

}  // namespace ringmaster
