// SPDX-License-Identifier: GPL-3.0-or-later
// Charts for reports, described once and drawn on any canvas: as inline SVG for HTML reports, and with
// QPainter for PDF (report_pdf.cpp). Long series are reduced to first/min/max/last per pixel column first.
// Axes read as the window's do (console/axis_scale: round ticks, SI labels); colours are the window's
// (console/palette), chosen by whoever builds the chart.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ringmaster::console {

struct ChartSeries {
  std::string name;
  std::vector<std::pair<double, double>> points;  // ascending x
  std::string color;                              // "#rrggbb"
  bool dashed = false;                            // trend lines
  bool dots = false;                              // a mark at each point: values far apart (per epoch)
};

// One bar of a stacked bar chart (e.g. one rank's step phases).
struct StackedBar {
  std::string label;
  std::vector<double> values;  // one per stack segment
};

struct Chart {
  enum class Kind { Lines, StackedBars };
  Kind kind = Kind::Lines;
  std::string title;
  std::string xLabel;
  std::string yLabel;
  std::vector<ChartSeries> series;         // Lines
  std::vector<std::string> segmentNames;   // StackedBars: what each segment is
  std::vector<std::string> segmentColors;  // StackedBars: each segment's "#rrggbb"
  std::vector<StackedBar> bars;            // StackedBars
  // Lines: ranges the axes cover whatever the points (a run's steps, 0 to 100 %), when set.
  std::optional<std::pair<double, double>> xSpan, ySpan;
};

// What a chart is drawn on. Coordinates are in pixels from the top left.
class ChartCanvas {
 public:
  enum class Anchor { Start, Middle, End };
  virtual ~ChartCanvas() = default;
  virtual void polyline(const std::vector<std::pair<double, double>>& points, const std::string& color,
                        double width, bool dashed) = 0;
  virtual void rect(double x, double y, double w, double h, const std::string& fill) = 0;
  virtual void text(double x, double y, const std::string& text, double size, const std::string& color,
                    Anchor anchor, bool vertical = false) = 0;
};

// Lays out and draws `chart` in a width x height box.
void drawChart(const Chart& chart, ChartCanvas& canvas, double width, double height);
// The chart as a standalone <svg> element.
std::string chartSvg(const Chart& chart, int width, int height);
// Escapes text for HTML and SVG; control characters are written as visible text (see common/printable.h).
std::string escapeXml(const std::string& text);

}  // namespace ringmaster::console
