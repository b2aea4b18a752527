// SPDX-License-Identifier: GPL-3.0-or-later
// A line chart over steps fed from StepSeries: each refresh decimates every line to the plot's pixel width
// before its QLineSeries sees it, pushes with QXYSeries::replace, and only ever widens the y axis (to round
// numbers), so a live chart does not jump on every sample. Ticks fall on round steps and read with SI
// prefixes ("12.3 k"). Beyond kMaxRankLines ranks the chart draws the
// band between the lowest and highest rank per pixel column plus the highlighted rank's own line: 64
// overlapping lines say less than a band, and Qt Charts' per-point cost would not keep a frame short.
#pragma once

#include <QChartView>
#include <QColor>
#include <QString>
#include <vector>

#include "console/models/step_series.h"

class QCategoryAxis;
class QLineSeries;

namespace ringmaster::gui {

class SeriesChart : public QChartView {
  Q_OBJECT

 public:
  struct Line {
    QString name;
    console::StepSeries* series = nullptr;
    QColor color;
    int rank = -1;  // -1 for lines that belong to no rank (totals, buckets)
  };

  static constexpr int kMaxRankLines = 16;
  // Three side by side fit a 1024-pixel-wide screen.
  static constexpr QSize kMinimumSize{260, 180};

  SeriesChart(const QString& title, const QString& unit, QWidget* parent = nullptr);

  // Replaces the set of lines (series objects are reused when the count is unchanged).
  void setLines(std::vector<Line> lines);
  // Decimates every line for steps [x0, x1) and pushes the points. Returns the points pushed.
  qsizetype refresh(double x0, double x1);
  // Points each line holds now (tests and benchmarks look at what the chart received).
  qsizetype pointCount(int line) const;
  // The points line `line` draws now (tests).
  const QLineSeries* lineSeries(int line) const { return series_.at(static_cast<size_t>(line)); }
  int lineCount() const { return static_cast<int>(lines_.size()); }
  // Emphasises one rank's line and fades the others; -1 shows all alike.
  void highlightRank(int rank);
  // Forgets the axis ranges (a different run is shown).
  void resetAxes();
  // A fitted straight line y = intercept + slope * x from fromX to the right edge (e.g. a memory leak's
  // trend).
  struct Trend {
    QString name;
    double intercept = 0;
    double slope = 0;
    double fromX = 0;
    QColor color;
  };
  void setTrends(std::vector<Trend> trends);
  // Draws a horizontal reference line (e.g. the host memory limit); NaN removes it.
  void setLimit(double value, const QString& label);
  // Draws a vertical line across the plot at each step (e.g. where a job restarted); empty removes them.
  void setMarkers(const std::vector<double>& steps, const QString& label);
  const std::vector<double>& markers() const { return markerSteps_; }
  // The points of marker `i` as drawn by the last refresh (tests look at what the user sees).
  QList<QPointF> markerPoints(size_t i) const;
  // A second quantity on an axis of its own at the right, over [lo, hi], as points joined by a line: the test
  // accuracy after each epoch beside the loss. No points removes it. The points are (step, value).
  void setSideLine(const QString& name, const QList<QPointF>& points, double lo, double hi,
                   const QColor& color);
  const QLineSeries* sideLine() const { return side_; }
  QCategoryAxis* sideAxis() const { return sideAxis_; }
  void setDarkTheme(bool dark);
  // What the chart says over its plot while no line holds a value ("not measured", "no steps yet"); its y
  // axis then has no labels, rather than a range it never measured.
  void setEmptyText(const QString& text);
  // Whether the last refresh found no value to draw.
  bool showsNothing() const { return empty_; }
  // The axes as drawn: their ranges and tick labels (tests look at what the user reads).
  QCategoryAxis* xAxis() const { return xAxis_; }
  QCategoryAxis* yAxis() const { return yAxis_; }

 protected:
  void drawForeground(QPainter* painter, const QRectF& rect) override;

 private:
  void applyPens();
  // A line drawn over the data (trend, limit, marker) on the chart's axes, with its legend name and pen.
  QLineSeries* addOverlay(const QString& name, const QColor& color, Qt::PenStyle style, double width);

  QString unit_;
  QString emptyText_;
  bool empty_ = true;
  std::vector<Line> lines_;
  std::vector<QLineSeries*> series_;
  QLineSeries* limit_ = nullptr;
  QLineSeries* side_ = nullptr;
  QCategoryAxis* sideAxis_ = nullptr;
  double sideLo_ = 0;
  double sideHi_ = 1;
  QLineSeries* bandHigh_ = nullptr;  // across ranks, when there are too many rank lines to draw each
  QLineSeries* bandLow_ = nullptr;
  std::vector<Trend> trends_;
  std::vector<QLineSeries*> trendSeries_;
  std::vector<double> markerSteps_;
  std::vector<QLineSeries*> markerSeries_;
  double limitValue_;
  QCategoryAxis* xAxis_;
  QCategoryAxis* yAxis_;
  double yMax_ = 0;
  double yMin_ = 0;
  int yIntervals_ = 5;
  int highlighted_ = -1;
};

// The smallest 1, 2 or 5 times a power of ten that is at least v (v > 0).
double niceCeil(double v);
// Sets `axis` to [lo, hi] with labelled ticks on round steps (console::niceTicks), each read with an SI
// prefix; the labels are redone only when the range changed (or when `force`d).
void setRoundTicks(QCategoryAxis* axis, double lo, double hi, int maxIntervals, bool force = false);

}  // namespace ringmaster::gui
