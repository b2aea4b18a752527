// SPDX-License-Identifier: GPL-3.0-or-later
#include "console/models/palette.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <map>

namespace ringmaster::console {

namespace {

uint8_t channel(double v) {
  return static_cast<uint8_t>(std::clamp(std::lround(v * 255.0), 0L, 255L));
}

// Hue, saturation and value in [0, 1], as QColor::fromHsvF reads them.
Rgb fromHsv(double h, double s, double v) {
  const double sector = std::fmod(h, 1.0) * 6.0;
  const int i = static_cast<int>(std::floor(sector)) % 6;
  const double f = sector - std::floor(sector);
  const double p = v * (1 - s), q = v * (1 - s * f), t = v * (1 - s * (1 - f));
  switch (i) {
    case 0:
      return {channel(v), channel(t), channel(p)};
    case 1:
      return {channel(q), channel(v), channel(p)};
    case 2:
      return {channel(p), channel(v), channel(t)};
    case 3:
      return {channel(p), channel(q), channel(v)};
    case 4:
      return {channel(t), channel(p), channel(v)};
    default:
      return {channel(v), channel(p), channel(q)};
  }
}

}  // namespace

std::string Rgb::hex() const {
  char text[8];
  std::snprintf(text, sizeof text, "#%02x%02x%02x", r, g, b);
  return text;
}

Rgb rankColor(int rank, int rankCount, bool dark) {
  const int n = std::max(rankCount, 1);
  // Golden-ratio hue steps keep neighbours apart even when ranks are many.
  const double hue = std::fmod(rank * 0.618033988749895 + (n <= 8 ? 0.0 : 0.05), 1.0);
  return fromHsv(hue, dark ? 0.55 : 0.75, dark ? 0.95 : 0.80);
}

std::string phaseKind(const std::string& name) {
  const size_t hash = name.rfind('#');
  if (hash == std::string::npos || hash == 0 || hash + 1 == name.size()) return name;
  for (size_t i = hash + 1; i < name.size(); ++i) {
    if (name[i] < '0' || name[i] > '9') return name;
  }
  return name.substr(0, hash + 1) + "N";
}

Rgb phaseColor(const std::string& name) {
  const std::string phase = phaseKind(name);
  static const std::map<std::string, Rgb> known{
      {"DATA", {0x8d, 0x99, 0xae}},
      {"FORWARD", {0x2a, 0x9d, 0x8f}},
      {"BACKWARD", {0x26, 0x6d, 0xd3}},
      {"COMM_WAIT", {0xe7, 0x6f, 0x51}},
      {"OPTIMIZER", {0x9b, 0x5d, 0xe5}},
      {"OTHER", {0xc9, 0xc9, 0xc9}},
      {"ALLREDUCE", {0xf4, 0xa2, 0x61}},
      {"ALLREDUCE_WAIT", {0xe7, 0x6f, 0x51}},
      {"NEGOTIATE_ALLREDUCE", {0xe9, 0xc4, 0x6a}},
      {"QUEUE", {0xb5, 0xb5, 0xb5}},
      {"MEMCPY_IN_FUSION_BUFFER", {0x90, 0xbe, 0x6d}},
      {"MEMCPY_OUT_FUSION_BUFFER", {0x57, 0xa7, 0x73}},
      {"GLOO_ALLREDUCE", {0xf4, 0x84, 0x3b}},
      {"NCCL_ALLREDUCE", {0x76, 0xb9, 0x00}},
  };
  auto it = known.find(phase);
  if (it != known.end()) return it->second;
  // Unknown phases (imported traces) get a stable colour from their name (FNV-1a).
  uint32_t hash = 2166136261u;
  for (unsigned char c : phase) hash = (hash ^ c) * 16777619u;
  return fromHsv(double(hash % 360) / 360.0, 90.0 / 255.0, 200.0 / 255.0);
}

Rgb failureColor(bool dark) {
  return dark ? Rgb{0x6b, 0x1d, 0x1d} : Rgb{0xfb, 0xd5, 0xd5};
}

Rgb failureTextColor(bool dark) {
  return dark ? Rgb{0xff, 0xe4, 0xe4} : Rgb{0x7a, 0x1f, 0x0f};
}

Rgb severityColor(v1::Finding::Severity severity) {
  switch (severity) {
    case v1::Finding::SEVERITY_CRITICAL:
      return {0xd6, 0x28, 0x28};
    case v1::Finding::SEVERITY_WARNING:
      return {0xf4, 0xa2, 0x61};
    default:
      return {0x26, 0x6d, 0xd3};
  }
}

Rgb totalColor(bool dark) {
  return dark ? Rgb{0xff, 0xff, 0xff} : Rgb{0x00, 0x00, 0x00};
}

Rgb accuracyColor(bool dark) {
  return dark ? Rgb{0x6f, 0xb8, 0xff} : Rgb{0x1f, 0x6f, 0xc4};
}

Rgb trendColor(const Rgb& line) {
  // As QColor::darker(130): the same hue and saturation, 100/130 of the value.
  auto darker = [](uint8_t c) { return static_cast<uint8_t>(std::lround(c * 100.0 / 130.0)); };
  return {darker(line.r), darker(line.g), darker(line.b)};
}

Rgb heatColor(double t) {
  static const std::array<Rgb, 5> stops{Rgb{0x44, 0x01, 0x54}, Rgb{0x3b, 0x52, 0x8b}, Rgb{0x21, 0x91, 0x8c},
                                        Rgb{0x5e, 0xc9, 0x62}, Rgb{0xfd, 0xe7, 0x25}};
  if (!(t >= 0)) t = 0;  // NaN too
  t = std::min(t, 1.0) * (stops.size() - 1);
  const size_t i = std::min(static_cast<size_t>(t), stops.size() - 2);
  const double f = t - static_cast<double>(i);
  const Rgb& a = stops[i];
  const Rgb& b = stops[i + 1];
  auto mix = [f](uint8_t x, uint8_t y) { return channel((x + (y - x) * f) / 255.0); };
  return {mix(a.r, b.r), mix(a.g, b.g), mix(a.b, b.b)};
}

}  // namespace ringmaster::console
