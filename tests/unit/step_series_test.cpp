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

}  // namespace
}  // namespace ringmaster::console
