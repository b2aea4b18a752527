// SPDX-License-Identifier: GPL-3.0-or-later
#include "gui/views/series_chart.h"

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

void SeriesChart::setLines(std::vector<Line> lines) {
  while (series_.size() > lines.size()) {
    chart()->removeSeries(series_.back());
    delete series_.back();
    series_.pop_back();
  }
  while (series_.size() < lines.size()) {
    auto* s = new QLineSeries(chart());
    chart()->addSeries(s);
    s->attachAxis(xAxis_);
    s->attachAxis(yAxis_);
    series_.push_back(s);
  }
  if (side_) {
    // The side line stays after the lines, in the legend too.
    chart()->removeSeries(side_);
    chart()->addSeries(side_);
    side_->attachAxis(xAxis_);
    side_->attachAxis(sideAxis_);
  }
  lines_ = std::move(lines);
  for (size_t i = 0; i < lines_.size(); ++i) series_[i]->setName(lines_[i].name);
  chart()->legend()->setVisible((lines_.size() > 1 && lines_.size() <= 8) || (side_ && !lines_.empty()));
  // A few names fit under the plot; more would be elided there ("ran…"), so they stand beside it.
  chart()->legend()->setAlignment(lines_.size() > 4 ? Qt::AlignRight : Qt::AlignBottom);
  applyPens();
}

void SeriesChart::applyPens() {
  for (size_t i = 0; i < lines_.size() && i < series_.size(); ++i) {
    const Line& line = lines_[i];
    QColor color = line.color;
    double width = lines_.size() > 16 ? 1.0 : 1.6;
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
  auto* s = new QLineSeries(chart());
  chart()->addSeries(s);
  s->attachAxis(xAxis_);
  s->attachAxis(yAxis_);
  s->setName(name);
  QPen pen(color);
  pen.setStyle(style);
  pen.setWidthF(width);
  s->setPen(pen);
  return s;
}

void SeriesChart::setSideLine(const QString& name, const QList<QPointF>& points, double lo, double hi,
                              const QColor& color) {
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
      side_->setPointsVisible(true);
    }
    sideLo_ = lo;
    sideHi_ = hi;
    setRoundTicks(sideAxis_, lo, hi, yIntervals_);
    sideAxis_->setLabelsColor(color);
    QPen pen(color);
    pen.setWidthF(1.6);
    pen.setStyle(Qt::DashLine);
    side_->setPen(pen);
    side_->setName(name);
    side_->replace(points);
  }
  // Two quantities need their names under the plot.
  chart()->legend()->setVisible((lines_.size() > 1 && lines_.size() <= 8) || (side_ && !lines_.empty()));
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
  return series_.at(static_cast<size_t>(line))->count();
}

qsizetype SeriesChart::refresh(double x0, double x1) {
  const QRectF plot = chart()->plotArea();
  const int columns = plot.width() >= 10 ? static_cast<int>(plot.width()) : kFallbackColumns;
  const console::PixelGrid grid{x0, x1, columns};
  double lo = yMin_;
  double hi = yMax_;
  qsizetype pushed = 0;
  int rankLines = 0;
  for (const Line& line : lines_) rankLines += line.rank >= 0 ? 1 : 0;
  const bool band = rankLines > kMaxRankLines;
  std::vector<double> low, high;
  if (band) {
    low.assign(static_cast<size_t>(columns), std::numeric_limits<double>::infinity());
    high.assign(static_cast<size_t>(columns), -std::numeric_limits<double>::infinity());
  }
  bool anyValue = false;
  for (size_t i = 0; i < lines_.size(); ++i) {
    const QList<QPointF>& points = lines_[i].series->decimated(grid);
    const auto extent =
        lines_[i].series->extent(static_cast<uint64_t>(std::max(0.0, x0)), static_cast<uint64_t>(x1));
    anyValue = anyValue || !lines_[i].series->empty();
    if (!extent.empty()) {
      hi = std::max(hi, static_cast<double>(extent.max));
      lo = std::min(lo, static_cast<double>(extent.min));
    }
    const bool drawn = !band || lines_[i].rank < 0 || lines_[i].rank == highlighted_;
    if (band && lines_[i].rank >= 0) {
      // Points come in x order: walk the column edges alongside instead of dividing for every point.
      const double width = (x1 - x0) / columns;
      int c = 0;
      double edge = x0 + width;
      for (const QPointF& p : points) {
        if (p.x() < x0) continue;
        while (c < columns && p.x() >= edge) edge = x0 + (++c + 1) * width;
        if (c >= columns) break;
        low[static_cast<size_t>(c)] = std::min(low[static_cast<size_t>(c)], p.y());
        high[static_cast<size_t>(c)] = std::max(high[static_cast<size_t>(c)], p.y());
      }
    }
    if (drawn) {
      series_[i]->replace(points);
      pushed += points.size();
    } else if (series_[i]->count() > 0) {
      series_[i]->clear();
    }
  }
  if (band) {
    if (!bandHigh_) {
      for (QLineSeries** s : {&bandHigh_, &bandLow_}) {
        *s = new QLineSeries(chart());
        chart()->addSeries(*s);
        (*s)->attachAxis(xAxis_);
        (*s)->attachAxis(yAxis_);
        QPen pen(palette().color(QPalette::Mid));
        pen.setWidthF(1.2);
        (*s)->setPen(pen);
      }
      bandHigh_->setName(tr("highest rank"));
      bandLow_->setName(tr("lowest rank"));
    }
    QList<QPointF> upper, lower;
    const double width = (x1 - x0) / columns;
    for (int c = 0; c < columns; ++c) {
      if (!(low[static_cast<size_t>(c)] <= high[static_cast<size_t>(c)])) continue;
      const double x = x0 + (c + 0.5) * width;
      upper.append(QPointF(x, high[static_cast<size_t>(c)]));
      lower.append(QPointF(x, low[static_cast<size_t>(c)]));
    }
    pushed += upper.size() + lower.size();
    bandHigh_->replace(upper);
    bandLow_->replace(lower);
  } else if (bandHigh_) {
    bandHigh_->clear();
    bandLow_->clear();
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
