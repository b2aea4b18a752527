// SPDX-License-Identifier: GPL-3.0-or-later
// Saving a chart as an image: every chart of the console (series charts, phase bars, the heatmap, the
// timeline) is a widget, and saveChart() draws that widget into a PNG (raster, at the widget's size on
// screen) or an SVG (vector: lines and boxes stay paths, text stays text). Qt Charts views are drawn from
// their scene, so an SVG of a chart holds its series as paths rather than a screenshot. addChartExport() puts
// "Save as PNG…" and "Save as SVG…" on a widget's context menu; chartExportMenu() gives the same two actions
// for a toolbar button.
#pragma once

#include <QSize>
#include <QString>

class QMenu;
class QWidget;

namespace ringmaster::gui {

enum class ImageFormat { Png, Svg };

// Draws `chart` into `path`. Returns an empty string on success, otherwise what went wrong (naming the file).
QString saveChart(QWidget* chart, const QString& path, ImageFormat format);

// The size in pixels of a PNG that saveChart() writes for `chart` (its size times the screen's pixel ratio).
QSize pngSize(const QWidget* chart);

// Adds "Save as PNG…" and "Save as SVG…" to the context menu of `chart`; `name` suggests the file name.
// (Not for widgets that use the right button themselves: give those a button with chartExportMenu().)
void addChartExport(QWidget* chart, const QString& name);

// A menu with the same two actions for `chart`, owned by `parent`.
QMenu* chartExportMenu(QWidget* chart, const QString& name, QWidget* parent);

}  // namespace ringmaster::gui
