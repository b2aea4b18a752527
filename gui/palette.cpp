// SPDX-License-Identifier: GPL-3.0-or-later
#include "gui/palette.h"

#include "console/models/palette.h"

namespace ringmaster::gui {

namespace {

QColor qColor(const console::Rgb& rgb) {
  return QColor(rgb.r, rgb.g, rgb.b);
}

}  // namespace

QColor accuracyColor(bool dark) {
  return qColor(console::accuracyColor(dark));
}

QColor rankColor(int rank, int rankCount, bool dark) {
  return qColor(console::rankColor(rank, rankCount, dark));
}

QColor phaseColor(const QString& phase) {
  return qColor(console::phaseColor(phase.toStdString()));
}

QColor failureColor(bool dark) {
  return qColor(console::failureColor(dark));
}

QColor failureTextColor(bool dark) {
  return qColor(console::failureTextColor(dark));
}

QColor severityColor(v1::Finding::Severity severity) {
  return qColor(console::severityColor(severity));
}

bool isDark(const QPalette& palette) {
  return palette.color(QPalette::Window).lightnessF() < 0.5;
}

QColor heatColor(double t) {
  return qColor(console::heatColor(t));
}

}  // namespace ringmaster::gui
