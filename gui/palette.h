// SPDX-License-Identifier: GPL-3.0-or-later
// Colours shared by every view, so a rank and a phase look the same everywhere: console/palette's colours
// (which the reports draw with too) as QColor, and the theme the window runs in.
#pragma once

#include <QColor>
#include <QPalette>
#include <QString>

#include "ringmaster/v1/records.pb.h"

namespace ringmaster::gui {

// A distinct colour per rank (hues spread evenly, lighter on dark backgrounds).
QColor rankColor(int rank, int rankCount, bool dark);
QColor accuracyColor(bool dark);
// Timeline and step-phase colours by Horovod's phase names (DATA, FORWARD, ..., NEGOTIATE_ALLREDUCE, ...).
QColor phaseColor(const QString& phase);
// Whether the system palette is dark, so charts pick a matching theme.
bool isDark(const QPalette& palette);
// A failed rank's row or mark: a background tint and the text on it.
QColor failureColor(bool dark);
QColor failureTextColor(bool dark);
// A finding's mark by its severity.
QColor severityColor(v1::Finding::Severity severity);
// Viridis-like colour for t in [0, 1] (heatmaps).
QColor heatColor(double t);

}  // namespace ringmaster::gui
