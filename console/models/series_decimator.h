// SPDX-License-Identifier: GPL-3.0-or-later
// Reduces a line to what a screen can show: per pixel column the first, lowest, highest and last point, in x
// order. Peaks survive and a series of any length draws with at most four points per column (PlotJuggler's
// way).
#pragma once

#include <QList>
#include <QPointF>
#include <cstdint>

namespace ringmaster::console {

// The x interval a chart shows and how many pixel columns it spans.
struct PixelGrid {
  double x0 = 0;
  double x1 = 1;
  int columns = 1;

  // The column holding x; below 0 or at/after `columns` for x outside [x0, x1).
  int64_t columnOf(double x) const;
  bool valid() const { return columns > 0 && x1 > x0; }
  bool operator==(const PixelGrid& o) const { return x0 == o.x0 && x1 == o.x1 && columns == o.columns; }
  bool operator!=(const PixelGrid& o) const { return !(*this == o); }
};

// Takes points in ascending x and writes each column's first/min/max/last to `out` (each point once, x
// order). Points with a NaN y are skipped: they are gaps, not values.
class ColumnReducer {
 public:
  ColumnReducer(const PixelGrid& grid, QList<QPointF>& out) : grid_(grid), out_(out) {}
  ~ColumnReducer() { finish(); }

  void add(double x, double y);
  // Writes the open column; called by the destructor too.
  void finish();

 private:
  struct Pick {
    int64_t order = 0;  // arrival order within the column, to write the picks in x order
    QPointF point;
  };

  PixelGrid grid_;
  QList<QPointF>& out_;
  bool open_ = false;
  int64_t column_ = 0;
  int64_t count_ = 0;
  Pick first_, min_, max_, last_;
};

// Reduces `points` (ascending x) to the grid: the points inside [x0, x1] plus the nearest one beyond each
// edge, so the line reaches the chart's borders.
QList<QPointF> decimate(const QList<QPointF>& points, const PixelGrid& grid);

}  // namespace ringmaster::console
