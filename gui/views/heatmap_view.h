// SPDX-License-Identifier: GPL-3.0-or-later
// Rank x step heatmap of compute time (forward + backward): a straggler shows as a bright stripe.
#pragma once

#include <QImage>
#include <QWidget>
#include <utility>

#include "console/models/live_series.h"

namespace ringmaster::gui {

class HeatmapView : public QWidget {
  Q_OBJECT

 public:
  explicit HeatmapView(QWidget* parent = nullptr);

  // Recomputes the cells for steps [x0, x1) at the current width.
  void refresh(console::LiveSeries& series, double x0, double x1);
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

  QImage image_;
  int ranks_ = 0;
  double x0_ = 0;
  double x1_ = 0;
  float low_ = 0;
  float high_ = 0;
  int highlighted_ = -1;
};

}  // namespace ringmaster::gui
