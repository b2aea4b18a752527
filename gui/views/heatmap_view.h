// SPDX-License-Identifier: GPL-3.0-or-later
// Rank x step heatmap of compute time (forward + backward): a straggler shows as a bright stripe. With more
// ranks than the plot has pixel rows, each row shows the slowest of the ranks it stands for, so a straggler's
// stripe stays in sight. A live refresh redoes only the columns whose steps changed.
#pragma once

#include <QImage>
#include <QWidget>
#include <utility>
#include <vector>

#include "console/models/live_series.h"

namespace ringmaster::gui {

class HeatmapView : public QWidget {
  Q_OBJECT

 public:
  explicit HeatmapView(QWidget* parent = nullptr);

  // Brings the cells up to date for steps [x0, x1) at the current size.
  void refresh(console::LiveSeries& series, double x0, double x1);
  // The image drawn (one row per rank, or per group of ranks when they outnumber the plot's pixel rows) and
  // the colour scale's ends (tests).
  const QImage& image() const { return image_; }
  std::pair<float, float> scale() const { return {low_, high_}; }
  // The value a pixel row of the image shows for a column (the highest of its ranks'), NaN for none.
  float rowValue(int row, int column) const;
  // The steps and pixel columns the cells show.
  const console::PixelGrid& grid() const { return grid_; }
  // The steps [x0, x1) the cells show.
  std::pair<double, double> stepRange() const { return {x0_, x1_}; }
  void highlightRank(int rank);
  void clear();
  QSize sizeHint() const override { return {480, 240}; }
  // Where the colour scale's two labels (highest and lowest value) are drawn, together.
  QRect scaleLabelsRect() const;

 Q_SIGNALS:
  void rankClicked(int rank);

 protected:
  void paintEvent(QPaintEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;

 private:
  QRect plotRect() const;
  // The colour bar, and its top (highest) and bottom (lowest) labels beside it.
  QRect scaleRect() const;
  QRect highLabelRect() const;
  QRect lowLabelRect() const;
  // A colour-scale label: "117.7 ms".
  QString scaleLabel(float ms) const;

  // Colours columns [from, end) of the image from rows_.
  void paintColumns(int from);

  QImage image_;
  std::vector<float> cells_;  // per rank and column (LiveSeries::updateHeatmap)
  std::vector<float> rows_;   // per image row and column: the highest of the row's ranks
  console::PixelGrid grid_;
  int ranks_ = 0;
  int imageRows_ = 0;
  double x0_ = 0;
  double x1_ = 0;
  float low_ = 0;
  float high_ = 0;
  int highlighted_ = -1;
};

}  // namespace ringmaster::gui
