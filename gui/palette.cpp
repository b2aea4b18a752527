// SPDX-License-Identifier: GPL-3.0-or-later
#include "gui/palette.h"

#include <QHash>
#include <algorithm>
#include <array>
#include <cmath>

namespace ringmaster::gui {

QColor rankColor(int rank, int rankCount, bool dark) {
  const int n = std::max(rankCount, 1);
  // Golden-ratio hue steps keep neighbours apart even when ranks are many.
  const double hue = std::fmod(rank * 0.618033988749895 + (n <= 8 ? 0.0 : 0.05), 1.0);
  return QColor::fromHsvF(static_cast<float>(hue), dark ? 0.55f : 0.75f, dark ? 0.95f : 0.80f);
}

QColor phaseColor(const QString& phase) {
  static const QHash<QString, QColor> known{
      {QStringLiteral("DATA"), QColor(0x8d, 0x99, 0xae)},
      {QStringLiteral("FORWARD"), QColor(0x2a, 0x9d, 0x8f)},
      {QStringLiteral("BACKWARD"), QColor(0x26, 0x6d, 0xd3)},
      {QStringLiteral("COMM_WAIT"), QColor(0xe7, 0x6f, 0x51)},
      {QStringLiteral("OPTIMIZER"), QColor(0x9b, 0x5d, 0xe5)},
      {QStringLiteral("OTHER"), QColor(0xc9, 0xc9, 0xc9)},
      {QStringLiteral("ALLREDUCE"), QColor(0xf4, 0xa2, 0x61)},
      {QStringLiteral("ALLREDUCE_WAIT"), QColor(0xe7, 0x6f, 0x51)},
      {QStringLiteral("NEGOTIATE_ALLREDUCE"), QColor(0xe9, 0xc4, 0x6a)},
      {QStringLiteral("QUEUE"), QColor(0xb5, 0xb5, 0xb5)},
      {QStringLiteral("MEMCPY_IN_FUSION_BUFFER"), QColor(0x90, 0xbe, 0x6d)},
      {QStringLiteral("MEMCPY_OUT_FUSION_BUFFER"), QColor(0x57, 0xa7, 0x73)},
      {QStringLiteral("GLOO_ALLREDUCE"), QColor(0xf4, 0x84, 0x3b)},
      {QStringLiteral("NCCL_ALLREDUCE"), QColor(0x76, 0xb9, 0x00)},
  };
  auto it = known.find(phase);
  if (it != known.end()) return *it;
  // Unknown phases (imported traces) get a stable colour from their name.
  const uint hash = qHash(phase);
  return QColor::fromHsv(static_cast<int>(hash % 360), 90, 200);
}

QColor failureColor(bool dark) {
  return dark ? QColor(0x6b, 0x1d, 0x1d) : QColor(0xfb, 0xd5, 0xd5);
}

QColor failureTextColor(bool dark) {
  return dark ? QColor(0xff, 0xe4, 0xe4) : QColor(0x7a, 0x1f, 0x0f);
}

bool isDark(const QPalette& palette) {
  return palette.color(QPalette::Window).lightnessF() < 0.5;
}

QColor heatColor(double t) {
  static const std::array<QColor, 5> stops{QColor(0x44, 0x01, 0x54), QColor(0x3b, 0x52, 0x8b),
                                           QColor(0x21, 0x91, 0x8c), QColor(0x5e, 0xc9, 0x62),
                                           QColor(0xfd, 0xe7, 0x25)};
  if (!(t >= 0)) t = 0;  // NaN too
  t = std::min(t, 1.0) * (stops.size() - 1);
  const size_t i = std::min(static_cast<size_t>(t), stops.size() - 2);
  const double f = t - static_cast<double>(i);
  const QColor& a = stops[i];
  const QColor& b = stops[i + 1];
  return QColor::fromRgbF(static_cast<float>(a.redF() + (b.redF() - a.redF()) * f),
                          static_cast<float>(a.greenF() + (b.greenF() - a.greenF()) * f),
                          static_cast<float>(a.blueF() + (b.blueF() - a.blueF()) * f));
}

}  // namespace ringmaster::gui
