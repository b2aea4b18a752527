// SPDX-License-Identifier: GPL-3.0-or-later
#include "console/models/series_decimator.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace ringmaster::console {

int64_t PixelGrid::columnOf(double x) const {
  const double column = std::floor((x - x0) / (x1 - x0) * columns);
  // Far outside the grid every x lands in one of two sentinel columns, which is all a caller needs.
  return static_cast<int64_t>(std::clamp(column, -1.0, static_cast<double>(columns)));
}

void ColumnReducer::add(double x, double y) {
  if (std::isnan(y)) return;
  const int64_t column = grid_.columnOf(x);
  const QPointF point(x, y);
  if (!open_ || column != column_) {
    finish();
    open_ = true;
    column_ = column;
    count_ = 0;
    first_ = min_ = max_ = last_ = Pick{0, point};
  }
  const Pick pick{count_++, point};
  if (y < min_.point.y()) min_ = pick;
  if (y > max_.point.y()) max_ = pick;
  last_ = pick;
}

void ColumnReducer::finish() {
  if (!open_) return;
  open_ = false;
  std::array<Pick, 4> picks{first_, min_, max_, last_};
  std::sort(picks.begin(), picks.end(), [](const Pick& a, const Pick& b) { return a.order < b.order; });
  int64_t written = -1;
  for (const Pick& p : picks) {
    if (p.order == written) continue;
    out_.append(p.point);
    written = p.order;
  }
}

QList<QPointF> decimate(const QList<QPointF>& points, const PixelGrid& grid) {
  QList<QPointF> out;
  if (!grid.valid() || points.isEmpty()) return out;
  const auto byX = [](const QPointF& p, double x) { return p.x() < x; };
  auto begin = std::lower_bound(points.begin(), points.end(), grid.x0, byX);
  auto end = std::lower_bound(begin, points.end(), grid.x1, byX);
  if (begin != points.begin()) --begin;
  if (end != points.end()) ++end;
  ColumnReducer reducer(grid, out);
  for (auto it = begin; it != end; ++it) reducer.add(it->x(), it->y());
  reducer.finish();
  return out;
}

}  // namespace ringmaster::console
