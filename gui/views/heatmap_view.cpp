// SPDX-License-Identifier: GPL-3.0-or-later
#include "gui/views/heatmap_view.h"

#include <QMouseEvent>
#include <QPainter>
#include <algorithm>
#include <cmath>

#include "gui/palette.h"
#include "gui/views/chart_export.h"

namespace ringmaster::gui {

HeatmapView::HeatmapView(QWidget* parent) : QWidget(parent) {
  setMinimumSize(320, 110);  // room for the charts above it on a 768-pixel-high screen
  setToolTip(
      tr("Compute time per rank and step: a slow rank is a bright stripe. Click a row to select the rank."));
  addChartExport(this, tr("Compute time per rank and step"));
}

QString HeatmapView::scaleLabel(float ms) const {
  return tr("%1 ms").arg(ms, 0, 'f', 1);
}

QRect HeatmapView::plotRect() const {
  // Room for the widest rank label ("rank 1023"), and at least a three-digit one's.
  const int left = fontMetrics().horizontalAdvance(tr("rank %1").arg(std::max(ranks_ - 1, 999))) + 8;
  const int top = fontMetrics().height() + 8;
  const int bottom = fontMetrics().height() * 2 + 8;
  // Right of the plot: a gap, the colour scale, and its labels as wide as they are now.
  int labels = fontMetrics().horizontalAdvance(scaleLabel(999.9f));
  for (float ms : {low_, high_}) {
    if (std::isfinite(ms)) labels = std::max(labels, fontMetrics().horizontalAdvance(scaleLabel(ms)));
  }
  const int right = 12 + 12 + 4 + labels + 1 + 6;
  return QRect(left, top, std::max(10, width() - left - right), std::max(10, height() - top - bottom));
}

QRect HeatmapView::scaleRect() const {
  const QRect plot = plotRect();
  return QRect(plot.right() + 12, plot.top(), 12, plot.height());
}

QRect HeatmapView::highLabelRect() const {
  const QRect scale = scaleRect();
  const QString text = scaleLabel(high_);
  return QRect(scale.right() + 4, scale.top(), fontMetrics().horizontalAdvance(text) + 1,
               fontMetrics().height());
}

QRect HeatmapView::lowLabelRect() const {
  const QRect scale = scaleRect();
  const QString text = scaleLabel(low_);
  return QRect(scale.right() + 4, scale.bottom() - fontMetrics().height() + 1,
               fontMetrics().horizontalAdvance(text) + 1, fontMetrics().height());
}

QRect HeatmapView::scaleLabelsRect() const {
  return highLabelRect().united(lowLabelRect());
}

void HeatmapView::clear() {
  image_ = QImage();
  cells_.clear();
  rows_.clear();
  grid_ = {};
  ranks_ = 0;
  imageRows_ = 0;
  update();
}

void HeatmapView::refresh(console::LiveSeries& series, double x0, double x1) {
  const QRect plot = plotRect();
  const int ranks = series.rankCount();
  // A cell a pixel wide, or two with many ranks: every rank's steps are reduced to each column.
  const int columns = std::max(1, ranks > console::kRanksDrawnOneByOne ? plot.width() / 2 : plot.width());
  const console::PixelGrid grid{x0, x1, columns};
  const int imageRows = std::clamp(plot.height(), 1, std::max(ranks, 1));
  const bool whole = grid != grid_ || ranks != ranks_ || imageRows != imageRows_;
  ranks_ = ranks;
  imageRows_ = imageRows;
  grid_ = grid;
  x0_ = x0;
  x1_ = x1;
  const auto from = static_cast<int>(series.updateHeatmap(grid, cells_, whole));
  if (whole) rows_.assign(static_cast<size_t>(imageRows) * static_cast<size_t>(columns), NAN);
  // Each image row: the highest value of its ranks, column by column from the first that changed.
  for (int row = 0; row < imageRows && from < columns; ++row) {
    const int first = row * ranks / imageRows;
    const int last = std::max(first + 1, (row + 1) * ranks / imageRows);
    float* out = rows_.data() + static_cast<size_t>(row) * static_cast<size_t>(columns);
    std::fill(out + from, out + columns, NAN);
    for (int r = first; r < last && r < ranks; ++r) {
      const float* in = cells_.data() + static_cast<size_t>(r) * static_cast<size_t>(columns);
      for (int c = from; c < columns; ++c) {
        if (!std::isnan(in[c]) && !(in[c] <= out[c])) out[c] = in[c];
      }
    }
  }
  float low = INFINITY;
  float high = -INFINITY;
  for (float v : rows_) {
    if (std::isnan(v)) continue;
    low = std::min(low, v);
    high = std::max(high, v);
  }
  const bool rescaled = whole || low != low_ || high != high_;
  low_ = low;
  high_ = high;
  if (whole) image_ = QImage(columns, imageRows, QImage::Format_ARGB32);
  if (rescaled) {
    paintColumns(0);
  } else if (from < columns) {
    paintColumns(from);
  } else {
    return;
  }
  update();
}

void HeatmapView::paintColumns(int from) {
  const int columns = image_.width();
  const float span = high_ > low_ ? high_ - low_ : 1.0f;
  for (int row = 0; row < image_.height(); ++row) {
    auto* line = reinterpret_cast<QRgb*>(image_.scanLine(row));
    const float* values = rows_.data() + static_cast<size_t>(row) * static_cast<size_t>(columns);
    for (int c = from; c < columns; ++c) {
      line[c] = std::isnan(values[c]) ? qRgba(0, 0, 0, 0) : heatColor((values[c] - low_) / span).rgb();
    }
  }
}

float HeatmapView::rowValue(int row, int column) const {
  if (row < 0 || row >= imageRows_ || column < 0 || column >= grid_.columns) return NAN;
  return rows_[static_cast<size_t>(row) * static_cast<size_t>(grid_.columns) + static_cast<size_t>(column)];
}

void HeatmapView::highlightRank(int rank) {
  highlighted_ = rank;
  update();
}

void HeatmapView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  const QRect plot = plotRect();
  p.setPen(palette().color(QPalette::WindowText));
  p.drawText(QRect(0, 2, width(), fontMetrics().height() + 4), Qt::AlignHCenter,
             tr("Compute time per rank and step"));
  if (ranks_ == 0 || image_.isNull()) {
    p.drawText(plot, Qt::AlignCenter, tr("No steps yet"));
    return;
  }
  p.drawImage(plot, image_);
  const double rowHeight = static_cast<double>(plot.height()) / ranks_;
  // Rank labels: every row when they fit, otherwise a few.
  const int every = std::max(1, static_cast<int>(std::ceil(fontMetrics().height() / rowHeight)));
  for (int r = 0; r < ranks_; r += every) {
    const QRectF row(0, plot.top() + r * rowHeight, plot.left() - 4,
                     std::max(rowHeight, 1.0 * fontMetrics().height()));
    p.drawText(row, Qt::AlignRight | Qt::AlignTop, tr("rank %1").arg(r));
  }
  if (highlighted_ >= 0 && highlighted_ < ranks_) {
    p.setPen(QPen(palette().color(QPalette::Highlight), 2));
    p.setBrush(Qt::NoBrush);
    p.drawRect(QRectF(plot.left(), plot.top() + highlighted_ * rowHeight, plot.width(), rowHeight));
  }
  // Step axis.
  p.setPen(palette().color(QPalette::WindowText));
  const int baseline = plot.bottom() + fontMetrics().height() + 2;
  p.drawText(plot.left(), baseline, QString::number(x0_, 'f', 0));
  const QString last = QString::number(x1_, 'f', 0);
  p.drawText(plot.right() - fontMetrics().horizontalAdvance(last), baseline, last);
  p.drawText(QRect(plot.left(), plot.bottom() + 2, plot.width(), fontMetrics().height() * 2 + 4),
             Qt::AlignHCenter | Qt::AlignBottom, tr("step"));
  // Colour scale.
  const QRect scale = scaleRect();
  for (int y = 0; y < scale.height(); ++y) {
    p.setPen(heatColor(1.0 - static_cast<double>(y) / scale.height()));
    p.drawLine(scale.left(), scale.top() + y, scale.right(), scale.top() + y);
  }
  p.setPen(palette().color(QPalette::WindowText));
  p.drawText(highLabelRect(), Qt::AlignLeft | Qt::AlignTop | Qt::TextDontClip, scaleLabel(high_));
  p.drawText(lowLabelRect(), Qt::AlignLeft | Qt::AlignBottom | Qt::TextDontClip, scaleLabel(low_));
}

void HeatmapView::mousePressEvent(QMouseEvent* event) {
  const QRect plot = plotRect();
  if (ranks_ == 0 || !plot.contains(event->position().toPoint())) return;
  const int rank = static_cast<int>((event->position().y() - plot.top()) * ranks_ / plot.height());
  Q_EMIT rankClicked(std::clamp(rank, 0, ranks_ - 1));
}

}  // namespace ringmaster::gui
