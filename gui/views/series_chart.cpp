// SPDX-License-Identifier: GPL-3.0-or-later
#include "gui/views/series_chart.h"

#include <QAreaSeries>
#include <QCategoryAxis>
#include <QFontMetricsF>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QPainter>
#include <algorithm>
#include <cmath>
#include <limits>

#include "console/models/axis_scale.h"
#include "gui/views/chart_export.h"

namespace ringmaster::gui {
namespace {

constexpr int kFallbackColumns = 600;
constexpr int kXIntervals = 5;
constexpr int kYIntervals = 5;
// How often the rank furthest from the median is looked for again while the steps shown stay the same.
constexpr qint64 kOutlierRefreshMs = 2000;
// Qt Charts cuts a category label ("...") taller than the space to the next tick: keep two lines of text
// between ticks.
int yIntervalsFor(const QRectF& plot, const QFont& font) {
  if (plot.height() < 10) return kYIntervals;
  const int fit = static_cast<int>(plot.height() / (2.0 * QFontMetricsF(font).height()));
  return std::clamp(fit, 2, kYIntervals);
}

}  // namespace

double niceCeil(double v) {
  if (!(v > 0)) return 1;
  const double power = std::pow(10.0, std::floor(std::log10(v)));
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    if (m * power >= v * (1 - 1e-12)) return m * power;
  }
  return 10 * power;
}

void setRoundTicks(QCategoryAxis* axis, double lo, double hi, int maxIntervals, bool force) {
  if (!force && axis->min() == lo && axis->max() == hi && !axis->categoriesLabels().isEmpty()) return;
  for (const QString& label : axis->categoriesLabels()) axis->remove(label);
  const std::vector<double> ticks = console::niceTicks(lo, hi, maxIntervals);
  const double step = ticks.size() > 1 ? ticks[1] - ticks[0] : 0;
  // Each label stands on its tick; the axis starts just below the first so that it can carry one too.
  axis->setStartValue(lo - std::max(std::abs(hi - lo), 1.0) * 1e-9);
  for (double t : ticks) axis->append(QString::fromStdString(console::siNumber(t, step)), t);
  axis->setRange(lo, hi);
}

SeriesChart::SeriesChart(const QString& title, const QString& unit, QWidget* parent)
    : QChartView(new QChart(), parent), unit_(unit), limitValue_(std::nan("")) {
  // The view owns the chart it is made with; one given later with setChart() would leave the view's first
  // chart to no one.
  QChart* chart = this->chart();
  // The unit beside the title rather than along the y axis: Qt Charts turns a vertical axis title on its
  // side, and Chinese and Japanese text turned on its side overlaps its glyphs (fallback fonts laid out along
  // the rotated baseline) or is cut to "..." where the axis is narrow.
  chart->setTitle(unit.isEmpty() ? title : tr("%1 (%2)").arg(title, unit));
  chart->legend()->setVisible(false);
  chart->setMargins(QMargins(4, 4, 4, 4));
  chart->setBackgroundRoundness(0);
  xAxis_ = new QCategoryAxis(chart);
  xAxis_->setTitleText(tr("step"));
  yAxis_ = new QCategoryAxis(chart);
  for (QCategoryAxis* axis : {xAxis_, yAxis_})
    axis->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
  chart->addAxis(xAxis_, Qt::AlignBottom);
  chart->addAxis(yAxis_, Qt::AlignLeft);
  setRoundTicks(xAxis_, 0, 10, kXIntervals);
  setRoundTicks(yAxis_, 0, 1, kYIntervals);
  yAxis_->setLabelsVisible(false);  // until a line holds a value
  setRenderHint(QPainter::Antialiasing, true);
  setMinimumSize(kMinimumSize);
  addChartExport(this, title);
}

void SeriesChart::setDarkTheme(bool dark) {
  chart()->setTheme(dark ? QChart::ChartThemeDark : QChart::ChartThemeLight);
  applyPens();
}

void SeriesChart::addToChart(QAbstractSeries* series) {
  chart()->addSeries(series);
  series->attachAxis(xAxis_);
  series->attachAxis(yAxis_);
}

QLineSeries* SeriesChart::addLineSeries() {
  auto* s = new QLineSeries(chart());
  addToChart(s);
  return s;
}

void SeriesChart::removeLineSeries(QLineSeries*& series) {
  if (!series) return;
  chart()->removeSeries(series);
  delete series;
  series = nullptr;
}

void SeriesChart::setLines(std::vector<Line> lines) {
  int rankLines = 0;
  for (const Line& line : lines) rankLines += line.rank >= 0 ? 1 : 0;
  const bool manyRanks = rankLines > kMaxRankLines;
  // A series for every line, except the ranks the band stands for: those get one while drawn over it.
  // Series are reused where a line keeps its place.
  while (series_.size() > lines.size()) {
    removeLineSeries(series_.back());
    series_.pop_back();
  }
  series_.resize(lines.size(), nullptr);
  if (manyRanks && !outerBand_) {
    // The band is drawn first, under every line: the lines there already are added again after it.
    for (QLineSeries* s : series_) {
      if (s) chart()->removeSeries(s);
    }
    for (QLineSeries*& edge : bandLines_) edge = new QLineSeries(chart());
    outerBand_ =
        new QAreaSeries(bandLines_[console::RankSpread::Highest], bandLines_[console::RankSpread::Lowest]);
    innerBand_ = new QAreaSeries(bandLines_[console::RankSpread::UpperQuartile],
                                 bandLines_[console::RankSpread::LowerQuartile]);
    outerBand_->setName(tr("all ranks"));
    innerBand_->setName(tr("middle half"));
    for (QAbstractSeries* s : std::initializer_list<QAbstractSeries*>{
             outerBand_, innerBand_, bandLines_[console::RankSpread::Median]})
      addToChart(s);
    bandLines_[console::RankSpread::Median]->setName(tr("median"));
    for (QLineSeries* s : series_) {
      if (s) addToChart(s);
    }
  }
  for (QAbstractSeries* s : std::initializer_list<QAbstractSeries*>{
           outerBand_, innerBand_, bandLines_[console::RankSpread::Median]}) {
    if (s) s->setVisible(manyRanks);
  }
  manyRanks_ = manyRanks;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (manyRanks && lines[i].rank >= 0) {
      removeLineSeries(series_[i]);
    } else if (!series_[i]) {
      series_[i] = addLineSeries();
    }
  }
  overBand_.clear();
  outlier_ = -1;
  outlierFound_.invalidate();
  if (side_) {
    // The side line stays after the lines, in the legend too.
    chart()->removeSeries(side_);
    chart()->addSeries(side_);
    side_->attachAxis(xAxis_);
    side_->attachAxis(sideAxis_);
  }
  lines_ = std::move(lines);
  for (size_t i = 0; i < lines_.size(); ++i) {
    if (series_[i]) series_[i]->setName(lines_[i].name);
  }
  showLegend();
  applyPens();
}

void SeriesChart::showLegend() {
  // A few names fit under the plot; more would be elided there ("ran…"), so they stand beside it: the band's
  // three and the ranks drawn over it too.
  chart()->legend()->setVisible(manyRanks_ || (lines_.size() > 1 && lines_.size() <= 8) ||
                                (side_ && !lines_.empty()));
  chart()->legend()->setAlignment(lines_.size() > 4 ? Qt::AlignRight : Qt::AlignBottom);
}

void SeriesChart::applyPens() {
  for (size_t i = 0; i < lines_.size() && i < series_.size(); ++i) {
    if (!series_[i]) continue;
    const Line& line = lines_[i];
    QColor color = line.color;
    double width = lines_.size() > 16 && !manyRanks_ ? 1.0 : 1.6;
    if (highlighted_ >= 0 && line.rank >= 0) {
      if (line.rank == highlighted_) {
        width = 3.0;
      } else {
        color.setAlphaF(0.25f);
      }
    }
    QPen pen(color);
    pen.setWidthF(width);
    series_[i]->setPen(pen);
  }
  if (outerBand_) {
    QColor band = palette().color(QPalette::Text);
    band.setAlphaF(0.12f);
    outerBand_->setBrush(band);
    outerBand_->setPen(Qt::NoPen);
    band.setAlphaF(0.28f);
    innerBand_->setBrush(band);
    innerBand_->setPen(Qt::NoPen);
    QPen median(palette().color(QPalette::Text));
    median.setWidthF(1.2);
    bandLines_[console::RankSpread::Median]->setPen(median);
  }
}

void SeriesChart::highlightRank(int rank) {
  if (rank == highlighted_) return;
  highlighted_ = rank;
  applyPens();
}

void SeriesChart::resetAxes() {
  yMax_ = 0;
  yMin_ = 0;
  setRoundTicks(xAxis_, 0, 10, kXIntervals);
  setRoundTicks(yAxis_, 0, 1, kYIntervals);
}

void SeriesChart::setTrends(std::vector<Trend> trends) {
  for (QLineSeries* s : trendSeries_) {
    chart()->removeSeries(s);
    delete s;
  }
  trendSeries_.clear();
  trends_ = std::move(trends);
  for (const Trend& t : trends_) {
    trendSeries_.push_back(addOverlay(t.name, t.color, Qt::DashLine, 2.0));
  }
}

QLineSeries* SeriesChart::addOverlay(const QString& name, const QColor& color, Qt::PenStyle style,
                                     double width) {
  QLineSeries* s = addLineSeries();
  s->setName(name);
  QPen pen(color);
  pen.setStyle(style);
  pen.setWidthF(width);
  s->setPen(pen);
  return s;
}

void SeriesChart::setSideLine(const QString& name, const QList<QPointF>& points, double lo, double hi,
                              const QColor& color, SideLine look) {
  if (points.isEmpty()) {
    if (side_) {
      chart()->removeSeries(side_);
      chart()->removeAxis(sideAxis_);
      delete side_;
      delete sideAxis_;
      side_ = nullptr;
      sideAxis_ = nullptr;
    }
  } else {
    if (!side_) {
      sideAxis_ = new QCategoryAxis(chart());
      sideAxis_->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
      sideAxis_->setGridLineVisible(false);
      chart()->addAxis(sideAxis_, Qt::AlignRight);
      side_ = new QLineSeries(chart());
      chart()->addSeries(side_);
      side_->attachAxis(xAxis_);
      side_->attachAxis(sideAxis_);
    }
    if (side_->pointsVisible() != (look == SideLine::Measurements))
      side_->setPointsVisible(look == SideLine::Measurements);
    sideLo_ = lo;
    sideHi_ = hi;
    setRoundTicks(sideAxis_, lo, hi, yIntervals_);
    // A live chart calls this every frame: what did not change is not set again (each would lay out anew).
    if (sideAxis_->labelsColor() != color) sideAxis_->setLabelsColor(color);
    QPen pen(color);
    pen.setWidthF(1.6);
    pen.setStyle(look == SideLine::Measurements ? Qt::DashLine : Qt::SolidLine);
    if (side_->pen() != pen) side_->setPen(pen);
    if (side_->name() != name) side_->setName(name);
    side_->replace(points);
  }
  // Two quantities need their names under the plot.
  showLegend();
}

void SeriesChart::setLimit(double value, const QString& label) {
  if (std::isnan(value)) {
    if (limit_) {
      chart()->removeSeries(limit_);
      delete limit_;
      limit_ = nullptr;
    }
    limitValue_ = value;
    return;
  }
  if (!limit_) {
    limit_ = addOverlay(label, QColor(0xd6, 0x28, 0x28), Qt::DashLine, 1.5);
  }
  limit_->setName(label);
  limitValue_ = value;
}

void SeriesChart::setMarkers(const std::vector<double>& steps, const QString& label) {
  if (steps == markerSteps_) return;
  for (QLineSeries* s : markerSeries_) {
    chart()->removeSeries(s);
    delete s;
  }
  markerSeries_.clear();
  markerSteps_ = steps;
  for (size_t i = 0; i < steps.size(); ++i) {
    QLineSeries* s = addOverlay(label, QColor(0xe0, 0x8a, 0x00), Qt::DashDotLine, 1.5);
    // One entry in the legend says what the lines are.
    if (i > 0) {
      for (QLegendMarker* m : chart()->legend()->markers(s)) m->setVisible(false);
    }
    markerSeries_.push_back(s);
  }
}

QList<QPointF> SeriesChart::markerPoints(size_t i) const {
  return markerSeries_.at(i)->points();
}

qsizetype SeriesChart::pointCount(int line) const {
  const QLineSeries* s = series_.at(static_cast<size_t>(line));
  return s ? s->count() : 0;
}

void SeriesChart::setSpread(console::RankSpread* spread) {
  spread_ = spread;
}

void SeriesChart::setNamedRanks(std::vector<int> ranks) {
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  namedRanks_ = std::move(ranks);
}

std::vector<int> SeriesChart::ranksToDraw(double x0, double x1) {
  std::vector<int> ranks = namedRanks_;
  if (highlighted_ >= 0) ranks.push_back(highlighted_);
  const std::pair<double, double> window{x0, x1};
  // The worst ranks are those the findings name; without any, the one the band hides best.
  if (!namedRanks_.empty()) {
    outlier_ = -1;
  } else if (window != outlierWindow_ || !outlierFound_.isValid() ||
             outlierFound_.elapsed() >= kOutlierRefreshMs) {
    // The rank whose mean over the steps shown lies furthest from the median rank's: what the band hides.
    const auto from = static_cast<uint64_t>(std::max(0.0, x0));
    const auto to = static_cast<uint64_t>(std::max(0.0, x1));
    std::vector<std::pair<double, int>> means;
    for (const Line& line : lines_) {
      if (line.rank < 0) continue;
      const double m = line.series->mean(from, to);
      if (!std::isnan(m)) means.emplace_back(m, line.rank);
    }
    outlier_ = -1;
    if (means.size() > 2) {
      auto middle = means.begin() + static_cast<std::ptrdiff_t>(means.size() / 2);
      std::nth_element(means.begin(), middle, means.end());
      const double median = middle->first;
      double furthest = 0;
      for (const auto& [m, rank] : means) {
        if (std::abs(m - median) > furthest) {
          furthest = std::abs(m - median);
          outlier_ = rank;
        }
      }
    }
    outlierWindow_ = window;
    outlierFound_.start();
  }
  if (outlier_ >= 0) ranks.push_back(outlier_);
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  return ranks;
}

qsizetype SeriesChart::refreshBand(const console::PixelGrid& grid) {
  using Q = console::RankSpread::Quantile;
  qsizetype pushed = 0;
  for (int q = 0; q < console::RankSpread::kQuantiles; ++q) {
    const QList<QPointF>& points = (*spread_)[Q(q)].decimated(grid);
    if (q == console::RankSpread::Median) {
      bandLines_[q]->replace(points);
      pushed += points.size();
      continue;
    }
    // An edge of a band: per column, the lowest value of a lower edge, the highest of an upper one, at the
    // column's middle.
    const bool upper = q > console::RankSpread::Median;
    const double width = (grid.x1 - grid.x0) / grid.columns;
    QList<QPointF> edge;
    edge.reserve(grid.columns);
    int64_t column = -1;
    for (const QPointF& p : points) {
      const int64_t c = grid.columnOf(p.x());
      if (c < 0 || c >= grid.columns) continue;
      if (c != column) {
        column = c;
        edge.append(QPointF(grid.x0 + (static_cast<double>(c) + 0.5) * width, p.y()));
      } else if (upper ? p.y() > edge.back().y() : p.y() < edge.back().y()) {
        edge.back().setY(p.y());
      }
    }
    pushed += edge.size();
    bandLines_[q]->replace(edge);
  }
  return pushed;
}

qsizetype SeriesChart::refresh(double x0, double x1) {
  const QRectF plot = chart()->plotArea();
  const int columns = plot.width() >= 10 ? static_cast<int>(plot.width()) : kFallbackColumns;
  const console::PixelGrid grid{x0, x1, columns};
  double lo = yMin_;
  double hi = yMax_;
  qsizetype pushed = 0;
  banded_ = manyRanks_ && spread_;
  if (manyRanks_) {
    // The ranks drawn over the band get a series; the others give theirs back.
    std::vector<int> draw = ranksToDraw(x0, x1);
    if (draw != overBand_) {
      overBand_ = std::move(draw);
      for (size_t i = 0; i < lines_.size(); ++i) {
        if (lines_[i].rank < 0) continue;
        const bool drawn = std::binary_search(overBand_.begin(), overBand_.end(), lines_[i].rank);
        if (drawn && !series_[i]) {
          series_[i] = addLineSeries();
          series_[i]->setName(lines_[i].name);
        } else if (!drawn) {
          removeLineSeries(series_[i]);
        }
      }
      applyPens();
    }
  }
  bool anyValue = false;
  for (size_t i = 0; i < lines_.size(); ++i) {
    anyValue = anyValue || !lines_[i].series->empty();
    // A rank the band stands for costs nothing here: the band's extent covers it.
    if (!series_[i]) continue;
    const QList<QPointF>& points = lines_[i].series->decimated(grid);
    const auto extent =
        lines_[i].series->extent(static_cast<uint64_t>(std::max(0.0, x0)), static_cast<uint64_t>(x1));
    if (!extent.empty()) {
      hi = std::max(hi, static_cast<double>(extent.max));
      lo = std::min(lo, static_cast<double>(extent.min));
    }
    series_[i]->replace(points);
    pushed += points.size();
  }
  if (banded_) {
    const uint64_t from = static_cast<uint64_t>(std::max(0.0, x0)), to = static_cast<uint64_t>(x1);
    const auto top = (*spread_)[console::RankSpread::Highest].extent(from, to);
    const auto bottom = (*spread_)[console::RankSpread::Lowest].extent(from, to);
    if (!top.empty()) hi = std::max(hi, static_cast<double>(top.max));
    if (!bottom.empty()) lo = std::min(lo, static_cast<double>(bottom.min));
    pushed += refreshBand(grid);
  }
  for (size_t i = 0; i < trends_.size(); ++i) {
    const Trend& t = trends_[i];
    const double from = std::max(t.fromX, x0);
    if (from >= x1) {
      trendSeries_[i]->clear();
      continue;
    }
    const double yEnd = t.intercept + t.slope * x1;
    trendSeries_[i]->replace(QList<QPointF>{{from, t.intercept + t.slope * from}, {x1, yEnd}});
    hi = std::max(hi, yEnd);
  }
  if (limit_) {
    limit_->replace(QList<QPointF>{{x0, limitValue_}, {x1, limitValue_}});
    hi = std::max(hi, limitValue_);
  }
  setRoundTicks(xAxis_, x0, x1, kXIntervals);
  // Axes only widen, to round numbers, so the picture does not wobble as samples arrive.
  if (hi > yMax_ || lo < yMin_) {
    yMax_ = hi > 0 ? niceCeil(hi * 1.05) : 0;
    yMin_ = lo < 0 ? -niceCeil(-lo * 1.05) : 0;
    yIntervals_ = yIntervalsFor(plot, yAxis_->labelsFont());
    setRoundTicks(yAxis_, yMin_, std::max(yMax_, yMin_ + 1e-9), yIntervals_);
  } else if (yIntervalsFor(plot, yAxis_->labelsFont()) != yIntervals_) {
    // The plot changed height (the window was resized, a legend came): as many ticks as fit now.
    yIntervals_ = yIntervalsFor(plot, yAxis_->labelsFont());
    setRoundTicks(yAxis_, yMin_, std::max(yMax_, yMin_ + 1e-9), yIntervals_, true);
    if (sideAxis_) setRoundTicks(sideAxis_, sideLo_, sideHi_, yIntervals_, true);
  }
  anyValue = anyValue || (side_ && side_->count() > 0);
  if (empty_ != !anyValue) {
    empty_ = !anyValue;
    yAxis_->setLabelsVisible(anyValue);
    viewport()->update();
  }
  for (size_t i = 0; i < markerSteps_.size(); ++i) {
    const double x = markerSteps_[i];
    if (x < x0 || x > x1) {
      markerSeries_[i]->clear();
      continue;
    }
    markerSeries_[i]->replace(QList<QPointF>{{x, yMin_}, {x, std::max(yMax_, yMin_ + 1e-9)}});
  }
  return pushed;
}

void SeriesChart::setEmptyText(const QString& text) {
  emptyText_ = text;
  viewport()->update();
}

void SeriesChart::drawForeground(QPainter* painter, const QRectF& rect) {
  QChartView::drawForeground(painter, rect);
  if (!empty_ || emptyText_.isEmpty()) return;
  painter->save();
  painter->setPen(palette().color(QPalette::PlaceholderText));
  painter->drawText(chart()->mapRectToScene(chart()->plotArea()), Qt::AlignCenter | Qt::TextWordWrap,
                    emptyText_);
  painter->restore();
}

}  // namespace ringmaster::gui
