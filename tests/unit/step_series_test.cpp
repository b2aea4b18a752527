// SPDX-License-Identifier: GPL-3.0-or-later
#include "console/models/step_series.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace ringmaster::console {
namespace {

TEST(StepSeries, StoresValuesAcrossChunksWithGaps) {
  StepSeries s;
  EXPECT_TRUE(s.empty());
  s.set(3, 1.5f);
  s.set(StepSeries::kChunkSize * 2 + 7, 4.0f);
  EXPECT_EQ(s.count(), 2);
  EXPECT_EQ(s.endStep(), StepSeries::kChunkSize * 2 + 8);
  EXPECT_FLOAT_EQ(s.at(3), 1.5f);
  EXPECT_TRUE(std::isnan(s.at(4)));
  EXPECT_TRUE(std::isnan(s.at(1'000'000)));
  s.add(3, 1.0f);
  s.add(5, 2.0f);
  EXPECT_FLOAT_EQ(s.at(3), 2.5f);
  EXPECT_FLOAT_EQ(s.at(5), 2.0f);
  s.set(5, std::nanf(""));
  EXPECT_EQ(s.count(), 2);
}

TEST(StepSeries, ExtentAndMeanMatchAScan) {
  StepSeries s;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> value(-100, 100);
  std::vector<float> truth(3 * StepSeries::kChunkSize + 100, std::nanf(""));
  for (size_t i = 0; i < truth.size(); ++i) {
    if (i % 7 == 3) continue;  // gaps
    truth[i] = value(rng);
    s.set(i, truth[i]);
  }
  // Replace the largest value so that a whole chunk's cached extent goes stale.
  size_t top = 0;
  for (size_t i = 0; i < StepSeries::kChunkSize; ++i) {
    if (!std::isnan(truth[i]) && (std::isnan(truth[top]) || truth[i] > truth[top])) top = i;
  }
  truth[top] = 0;
  s.set(top, 0);
  for (auto [from, to] : std::vector<std::pair<size_t, size_t>>{
           {0, truth.size()}, {10, 5000}, {StepSeries::kChunkSize, 2 * StepSeries::kChunkSize}, {100, 101}}) {
    float lo = INFINITY, hi = -INFINITY;
    double sum = 0;
    int n = 0;
    for (size_t i = from; i < to; ++i) {
      if (std::isnan(truth[i])) continue;
      lo = std::min(lo, truth[i]);
      hi = std::max(hi, truth[i]);
      sum += truth[i];
      ++n;
    }
    const auto e = s.extent(from, to);
    EXPECT_FLOAT_EQ(e.min, lo) << from << ".." << to;
    EXPECT_FLOAT_EQ(e.max, hi) << from << ".." << to;
    EXPECT_NEAR(s.mean(from, to), sum / n, 1e-3) << from << ".." << to;
  }
  EXPECT_TRUE(s.extent(truth.size(), truth.size() + 10).empty());
  EXPECT_TRUE(std::isnan(s.mean(3, 4)));
}

TEST(StepSeries, DecimatesPerColumnWithEdges) {
  StepSeries s;
  for (uint64_t i = 0; i < 1000; ++i) s.set(i, static_cast<float>(i % 10));
  const QList<QPointF> out = s.decimated(PixelGrid{100, 200, 10});
  ASSERT_EQ(out.size(), 1 + 2 * 10 + 1);  // each column: first (also min), last (also max)
  EXPECT_EQ(out.front(), QPointF(99, 9));
  EXPECT_EQ(out[1], QPointF(100, 0));
  EXPECT_EQ(out[2], QPointF(109, 9));
  EXPECT_EQ(out.back(), QPointF(200, 0));
}

TEST(StepSeries, IncrementalDecimationEqualsAFreshOne) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> value(0, 50);
  const PixelGrid grid{0, 20000, 333};
  StepSeries live;
  std::vector<float> values;
  for (int burst = 0; burst < 40; ++burst) {
    for (int i = 0; i < 397; ++i) {
      values.push_back(value(rng));
      live.set(values.size() - 1, values.back());
    }
    if (burst == 20) {
      values[1234] = 999;  // an old step changes: columns from there on are redone
      live.set(1234, 999);
    }
    StepSeries fresh;
    for (size_t i = 0; i < values.size(); ++i) fresh.set(i, values[i]);
    ASSERT_EQ(live.decimated(grid), fresh.decimated(grid)) << "after burst " << burst;
  }
  EXPECT_LE(live.decimated(grid).size(), 4 * 333 + 2);
}

TEST(StepSeries, HoldsAboutFourBytesAStep) {
  StepSeries s;
  for (uint64_t i = 0; i < 100'000; ++i) s.set(i, 1.0f);
  EXPECT_LT(s.bytesHeld(), 100'000 * 4 + 4 * StepSeries::kChunkSize + 8192);
}

// Each column of many steps gives the points a walk over its every step gives: its first value, its lowest
// and highest (the first of equal ones) in step order, its last; across gaps, and after extremes were
// replaced or cleared.
TEST(StepSeries, EachColumnGivesItsFirstLowestHighestAndLastValue) {
  std::mt19937 rng(3);
  std::uniform_int_distribution<int> level(0, 19);  // few levels: many equal values
  const uint64_t n = 3 * StepSeries::kChunkSize + 1000;
  std::vector<float> truth(n, std::nanf(""));
  StepSeries s;
  for (uint64_t i = 0; i < n; ++i) {
    if (rng() % 10 == 0) continue;
    truth[i] = static_cast<float>(level(rng));
    s.set(i, truth[i]);
  }
  for (uint64_t i = 100; i < n; i += 997) {  // replace and clear values, extremes among them
    truth[i] = i % 2 ? std::nanf("") : -5.0f;
    s.set(i, truth[i]);
  }
  for (int columns : {7, 37, 160}) {
    const PixelGrid grid{0, double(n), columns};
    QList<QPointF> expected;
    for (int c = 0; c < columns; ++c) {
      int64_t first = -1, last = -1, minAt = -1, maxAt = -1;
      for (uint64_t i = 0; i < n; ++i) {
        if (grid.columnOf(double(i)) != c || std::isnan(truth[i])) continue;
        if (first < 0) first = int64_t(i);
        last = int64_t(i);
        if (minAt < 0 || truth[i] < truth[size_t(minAt)]) minAt = int64_t(i);
        if (maxAt < 0 || truth[i] > truth[size_t(maxAt)]) maxAt = int64_t(i);
      }
      if (first < 0) continue;
      int64_t written = -1;
      for (int64_t at : {first, std::min(minAt, maxAt), std::max(minAt, maxAt), last}) {
        if (at != written) expected.append(QPointF(double(at), truth[size_t(at)]));
        written = at;
      }
    }
    EXPECT_EQ(s.decimated(grid), expected) << columns << " columns";
  }
}

// A long run: the recent steps at full resolution, the ones before as block summaries, in memory that stays
// the same from 100 000 to 1 000 000 steps. The extremes stay exact, the means close, and a chart of the
// whole run still reaches its lowest and highest value.
TEST(StepSeries, ALongRunKeepsItsRecentStepsWholeAndItsMemoryFlat) {
  auto valueOf = [](uint64_t step) {
    return static_cast<float>(std::sin(double(step) / 5000.0) * 10 + step % 7);
  };
  StepSeries s;
  size_t heldAt100k = 0;
  double lo = INFINITY, hi = -INFINITY, sum = 0;
  constexpr uint64_t kSteps = 1'000'000;
  for (uint64_t step = 0; step < kSteps; ++step) {
    s.set(step, valueOf(step));
    lo = std::min<double>(lo, valueOf(step));
    hi = std::max<double>(hi, valueOf(step));
    sum += valueOf(step);
    if (step + 1 == 100'000) heldAt100k = s.bytesHeld();
  }
  EXPECT_EQ(s.count(), int64_t(kSteps));
  EXPECT_EQ(s.endStep(), kSteps);
  const size_t bound =
      StepSeries::kFullChunks * StepSeries::kChunkSize * sizeof(float) + StepSeries::kMaxBlocks * 32 + 4096;
  EXPECT_LT(heldAt100k, bound);
  EXPECT_LT(s.bytesHeld(), bound);
  EXPECT_LE(s.bytesHeld(), heldAt100k + 1024) << "flat from 100 000 to 1 000 000 steps";
  EXPECT_EQ(s.summarisedEnd(), kSteps / StepSeries::kChunkSize * StepSeries::kChunkSize -
                                   (StepSeries::kFullChunks - 1) * StepSeries::kChunkSize);

  // Recent steps exact; a summarised step reads as its block's mean.
  for (uint64_t step : {kSteps - 1, kSteps - 5000, s.summarisedEnd()}) EXPECT_EQ(s.at(step), valueOf(step));
  EXPECT_NEAR(s.at(12'345), valueOf(12'345), 12.0);
  const auto e = s.extent(0, kSteps);
  EXPECT_FLOAT_EQ(e.min, float(lo));
  EXPECT_FLOAT_EQ(e.max, float(hi));
  EXPECT_NEAR(s.mean(0, kSteps), sum / kSteps, 1e-3);
  // Half a block counts half.
  EXPECT_NEAR(s.mean(0, 500'000), s.mean(0, 250'000) / 2 + s.mean(250'000, 500'000) / 2, 0.05);

  const QList<QPointF>& points = s.decimated(PixelGrid{0, double(kSteps), 400});
  EXPECT_LE(points.size(), 4 * 400 + 2);
  double drawnLo = INFINITY, drawnHi = -INFINITY;
  for (const QPointF& p : points) {
    drawnLo = std::min(drawnLo, p.y());
    drawnHi = std::max(drawnHi, p.y());
  }
  EXPECT_FLOAT_EQ(float(drawnLo), float(lo));
  EXPECT_FLOAT_EQ(float(drawnHi), float(hi));
  for (qsizetype i = 1; i < points.size(); ++i) EXPECT_LE(points[i - 1].x(), points[i].x()) << i;

  // A value late for its chunk joins its block; a later step clears nothing of the window.
  const int64_t before = s.count();
  s.set(10, 1000.0f);
  EXPECT_EQ(s.count(), before + 1);
  EXPECT_FLOAT_EQ(s.extent(0, 100).max, 1000.0f);
  EXPECT_EQ(s.decimated(PixelGrid{0, double(kSteps), 400}).front().x(), 0);
}

// A chart following a long run draws what a chart drawn afresh would, as steps move from chunks to blocks.
TEST(StepSeries, IncrementalDecimationOfALongRunEqualsAFreshOne) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> value(0, 50);
  const PixelGrid grid{0, 120'000, 300};
  StepSeries live;
  std::vector<float> values;
  for (int burst = 0; burst < 12; ++burst) {
    for (int i = 0; i < 9'973; ++i) {
      values.push_back(value(rng));
      live.set(values.size() - 1, values.back());
    }
    StepSeries fresh;
    for (size_t i = 0; i < values.size(); ++i) fresh.set(i, values[i]);
    ASSERT_EQ(live.decimated(grid), fresh.decimated(grid)) << "after burst " << burst;
  }
  EXPECT_GT(live.summarisedEnd(), 0u);
}

// A step far beyond the others summarises what lies between without holding it.
TEST(StepSeries, AJumpAheadSummarisesTheStepsBetween) {
  StepSeries s;
  s.set(3, 1.5f);
  s.set(900'000, 2.0f);
  EXPECT_EQ(s.count(), 2);
  EXPECT_FLOAT_EQ(s.at(3), 1.5f);
  EXPECT_TRUE(std::isnan(s.at(500'000)));
  EXPECT_FLOAT_EQ(s.at(900'000), 2.0f);
  EXPECT_FLOAT_EQ(s.extent(0, 1'000'000).min, 1.5f);
  EXPECT_NEAR(s.mean(0, 1'000'000), 1.75, 1e-6);
  EXPECT_LT(s.bytesHeld(), StepSeries::kFullChunks * StepSeries::kChunkSize * sizeof(float) +
                               StepSeries::kMaxBlocks * 32 + 4096);
}

}  // namespace
}  // namespace ringmaster::console
