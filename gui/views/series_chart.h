// SPDX-License-Identifier: GPL-3.0-or-later
// A line chart over steps fed from StepSeries: each refresh decimates every line to the plot's pixel width
// before its QLineSeries sees it, pushes with QXYSeries::replace, and only ever widens the y axis (to round
// numbers), so a live chart does not jump on every sample. Ticks fall on round steps and read with SI
// prefixes ("12.3 k"). Beyond kMaxRankLines ranks the chart draws how the ranks spread instead (a
// console::RankSpread: a band from the lowest to the highest rank, a darker one over the middle half of the
// ranks, the median) plus the own lines of a few ranks: the highlighted one, those the findings name and the
// one furthest from the median over the steps shown. 64 overlapping lines say less than a band, and a line
// per rank would make a frame's cost grow with the ranks.
#pragma once

#include <QChartView>
#include <QColor>
#include <QElapsedTimer>
#include <QString>
#include <utility>
#include <vector>

#include "console/models/rank_spread.h"
#include "console/models/step_series.h"

class QAbstractSeries;
class QAreaSeries;
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

  static constexpr int kMaxRankLines = console::kRanksDrawnOneByOne;
  // Three side by side fit a 1024-pixel-wide screen.
  static constexpr QSize kMinimumSize{260, 180};

  SeriesChart(const QString& title, const QString& unit, QWidget* parent = nullptr);

  // Replaces the set of lines (series objects are reused when the count is unchanged).
  void setLines(std::vector<Line> lines);
  // How the rank lines spread across ranks (the same metric), drawn as a band when there are more than
  // kMaxRankLines of them; without one every line is drawn.
  void setSpread(console::RankSpread* spread);
  // Ranks drawn with their own line over the band: those the findings name (without any, the rank furthest
  // from the median over the steps shown).
  void setNamedRanks(std::vector<int> ranks);
  // Whether the last refresh drew the band, and the ranks whose own lines it drew over it, in rank order.
  bool drawsBand() const { return banded_; }
  const std::vector<int>& ranksOverBand() const { return overBand_; }
  // The band's edges as drawn (tests): per pixel column the lowest of `q` for the lower edges (Lowest,
  // LowerQuartile), the highest for the upper ones; the median's first, lowest, highest and last.
  const QLineSeries* bandLine(console::RankSpread::Quantile q) const { return bandLines_[q]; }
  // Decimates every line for steps [x0, x1) and pushes the points. Returns the points pushed.
  qsizetype refresh(double x0, double x1);
  // Points each line holds now (tests and benchmarks look at what the chart received).
  qsizetype pointCount(int line) const;
  // The points line `line` draws now (tests); null for a rank the band stands for.
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
  // A second quantity on an axis of its own at the right, over [lo, hi]: the test accuracy after each epoch
  // beside the loss (a few measurements, as dots joined by a dashed line), the ranks' total throughput beside
  // many ranks' spread (a series, a solid line). No points removes it. The points are (step, value).
  enum class SideLine { Measurements, Series };
  void setSideLine(const QString& name, const QList<QPointF>& points, double lo, double hi,
                   const QColor& color, SideLine look = SideLine::Measurements);
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
  // Adds `series` to the chart on its x and y axes.
  void addToChart(QAbstractSeries* series);
  QLineSeries* addLineSeries();
  // Takes a line series off the chart, deletes it and nulls the pointer (a null one is left as it is).
  void removeLineSeries(QLineSeries*& series);
  void showLegend();
  // Draws the band from the spread over `grid`; returns the points pushed.
  qsizetype refreshBand(const console::PixelGrid& grid);
  // The ranks drawn over the band now: highlighted, named and the one furthest from the median.
  std::vector<int> ranksToDraw(double x0, double x1);
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
  console::RankSpread* spread_ = nullptr;
  bool manyRanks_ = false;  // more rank lines than kMaxRankLines: a band stands for them
  bool banded_ = false;
  std::vector<int> namedRanks_;
  std::vector<int> overBand_;
  // The rank furthest from the median over the steps shown, found again when they change or after a while.
  int outlier_ = -1;
  std::pair<double, double> outlierWindow_{0, 0};
  QElapsedTimer outlierFound_;
  QLineSeries* bandLines_[console::RankSpread::kQuantiles] = {};
  QAreaSeries* outerBand_ = nullptr;  // lowest to highest
  QAreaSeries* innerBand_ = nullptr;  // the middle half
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
