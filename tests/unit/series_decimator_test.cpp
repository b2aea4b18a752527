// SPDX-License-Identifier: GPL-3.0-or-later
#include "console/models/series_decimator.h"

#include <gtest/gtest.h>

#include <cmath>

namespace ringmaster::console {
namespace {

QList<QPointF> sawtooth(int n) {
  QList<QPointF> points;
  for (int i = 0; i < n; ++i) points.append(QPointF(i, i % 10));
  return points;
}

TEST(PixelGrid, MapsXToColumns) {
  const PixelGrid grid{100, 200, 10};
  EXPECT_EQ(grid.columnOf(100), 0);
  EXPECT_EQ(grid.columnOf(109.99), 0);
  EXPECT_EQ(grid.columnOf(110), 1);
  EXPECT_EQ(grid.columnOf(199.9), 9);
  EXPECT_EQ(grid.columnOf(200), 10);
  EXPECT_EQ(grid.columnOf(99), -1);
  EXPECT_EQ(grid.columnOf(-1e300), -1);
  EXPECT_EQ(grid.columnOf(1e300), 10);
  EXPECT_FALSE((PixelGrid{5, 5, 10}.valid()));
  EXPECT_FALSE((PixelGrid{0, 5, 0}.valid()));
}

TEST(Decimate, KeepsFirstMinMaxLastPerColumn) {
  // 100 points per column, y = x mod 10: the first point is also the minimum, so three points remain per
  // column.
  const QList<QPointF> out = decimate(sawtooth(1000), PixelGrid{0, 1000, 10});
  ASSERT_EQ(out.size(), 30);
  for (int c = 0; c < 10; ++c) {
    EXPECT_EQ(out[3 * c], QPointF(c * 100, 0));
    EXPECT_EQ(out[3 * c + 1], QPointF(c * 100 + 9, 9));
    EXPECT_EQ(out[3 * c + 2], QPointF(c * 100 + 99, 9));
  }
}

TEST(Decimate, KeepsASingleSpike) {
  QList<QPointF> points = sawtooth(1000);
  points[555].setY(1000);
  points[556].setY(-50);
  const QList<QPointF> out = decimate(points, PixelGrid{0, 1000, 10});
  EXPECT_TRUE(out.contains(QPointF(555, 1000)));
  EXPECT_TRUE(out.contains(QPointF(556, -50)));
  for (int i = 1; i < out.size(); ++i) EXPECT_LT(out[i - 1].x(), out[i].x()) << "points must stay in x order";
}

TEST(Decimate, WritesMinBeforeMaxWhenItComesFirst) {
  QList<QPointF> out;
  {
    ColumnReducer reducer(PixelGrid{0, 10, 1}, out);
    reducer.add(0, 5);
    reducer.add(1, 9);  // max
    reducer.add(2, 1);  // min, after the max
    reducer.add(3, 4);
  }
  const QList<QPointF> expected{{0, 5}, {1, 9}, {2, 1}, {3, 4}};
  EXPECT_EQ(out, expected);
}

TEST(Decimate, SkipsGapsAndKeepsOnePointBeyondEachEdge) {
  QList<QPointF> points = sawtooth(100);
  points[50].setY(std::nan(""));
  const QList<QPointF> out = decimate(points, PixelGrid{40, 60, 20});
  ASSERT_FALSE(out.isEmpty());
  EXPECT_EQ(out.front(), QPointF(39, 9));
  EXPECT_EQ(out.back(), QPointF(60, 0));
  for (const QPointF& p : out) EXPECT_NE(p.x(), 50);
  // One point per column inside, plus the two edges, less the gap.
  EXPECT_EQ(out.size(), 20 + 2 - 1);
}

TEST(Decimate, EmptyInputOrGridGivesNothing) {
  EXPECT_TRUE(decimate({}, PixelGrid{0, 10, 5}).isEmpty());
  EXPECT_TRUE(decimate(sawtooth(10), PixelGrid{0, 0, 5}).isEmpty());
}

}  // namespace
}  // namespace ringmaster::console
