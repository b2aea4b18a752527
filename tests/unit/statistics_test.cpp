// SPDX-License-Identifier: GPL-3.0-or-later
#include "diagnosis/statistics.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <random>

namespace stats = ringmaster::stats;

TEST(Statistics, MedianAndQuantiles) {
  EXPECT_DOUBLE_EQ(stats::median({5, 1, 3}), 3);
  EXPECT_DOUBLE_EQ(stats::median({4, 1, 3, 2}), 2.5);
  EXPECT_DOUBLE_EQ(stats::median({}), 0);
  EXPECT_DOUBLE_EQ(stats::quantile({1, 2, 3, 4, 5}, 0.5), 3);
  EXPECT_DOUBLE_EQ(stats::quantile({1, 2, 3, 4, 5}, 0.95), 4.8);
  EXPECT_DOUBLE_EQ(stats::quantile({10, 20}, 0.25), 12.5);
}

TEST(Statistics, MadIgnoresOutliers) {
  std::vector<double> values = {10, 10.5, 9.5, 10.2, 9.8, 1000};
  double m = stats::median(values);
  EXPECT_NEAR(m, 10.1, 1e-9);
  EXPECT_LT(stats::medianAbsoluteDeviation(values, m), 0.5);
}

TEST(Statistics, NormalQuantile) {
  EXPECT_NEAR(stats::normalQuantile(0.975), 1.959964, 1e-5);
  EXPECT_NEAR(stats::normalQuantile(0.5), 0, 1e-9);
  EXPECT_NEAR(stats::normalQuantile(0.05), -1.644854, 1e-5);
}

TEST(Statistics, TheilSenRecoversSlopeDespiteOutliers) {
  std::mt19937_64 random(7);
  std::normal_distribution<double> noise(0, 2);
  std::vector<double> x, y;
  for (int i = 0; i < 300; ++i) {
    x.push_back(i);
    y.push_back(100 + 3 * i + noise(random) + (i % 37 == 0 ? 500 : 0));
  }
  auto fit = stats::theilSen(x, y);
  EXPECT_NEAR(fit.slope, 3, 0.05);
  EXPECT_NEAR(fit.intercept, 100, 2);
  EXPECT_LT(fit.lower, fit.slope);
  EXPECT_GT(fit.upper, fit.slope);
  EXPECT_GT(fit.lower, 2.9);
}

TEST(Statistics, TheilSenThinsLongSeries) {
  std::vector<double> x, y;
  for (int i = 0; i < 20000; ++i) {
    x.push_back(i);
    y.push_back(-0.5 * i);
  }
  auto fit = stats::theilSen(x, y, 0.95, 300);
  EXPECT_EQ(fit.points, 300u);
  EXPECT_NEAR(fit.slope, -0.5, 1e-9);
}

TEST(Statistics, TheilSenIntervalCoversZeroForFlatNoise) {
  std::mt19937_64 random(11);
  std::normal_distribution<double> noise(0, 5);
  std::vector<double> x, y;
  for (int i = 0; i < 200; ++i) {
    x.push_back(i);
    y.push_back(1000 + noise(random));
  }
  auto fit = stats::theilSen(x, y);
  EXPECT_LE(fit.lower, 0);
  EXPECT_GE(fit.upper, 0);
}

// The leak detector's cheap screen answers as the whole fit would, on every kind of series it may meet: flat
// noise, slow and fast growth near the interval's edge, values repeated (quantised memory), x repeated or
// falling (steps again after a restart), and long series thinned.
TEST(Statistics, TheLowerBoundScreenAgreesWithTheWholeTheilSenFit) {
  std::mt19937_64 random(5);
  int above = 0, notAbove = 0;
  for (int trial = 0; trial < 600; ++trial) {
    const int n = 2 + int(random() % 700);
    const double slope = std::array<double, 5>{0, 0.01, 0.05, 0.2, -0.05}[trial % 5];
    std::normal_distribution<double> noise(0, 1 + double(trial % 3));
    std::vector<double> x, y;
    for (int i = 0; i < n; ++i) {
      double xi = trial % 7 == 0 ? double(i / 3) : trial % 11 == 0 ? double((i * 7919) % n) : double(i);
      double yi = 100 + slope * xi + noise(random);
      if (trial % 4 == 0) yi = std::round(yi);  // many equal values
      x.push_back(xi);
      y.push_back(yi);
    }
    const size_t maxPoints = trial % 2 ? 400 : 50;
    const bool expected = stats::theilSen(x, y, 0.95, maxPoints).lower > 0;
    ASSERT_EQ(stats::theilSenLowerAboveZero(x, y, 0.95, maxPoints), expected)
        << "trial " << trial << ", " << n << " points, slope " << slope;
    (expected ? above : notAbove)++;
  }
  // Both answers were met often enough for the comparison to mean something.
  EXPECT_GT(above, 100);
  EXPECT_GT(notAbove, 100);
}

TEST(Statistics, BootstrapFindsATenPercentDifference) {
  std::mt19937_64 random(3);
  std::normal_distribution<double> a(100, 5), b(110, 5);
  std::vector<double> sa, sb;
  for (int i = 0; i < 400; ++i) {
    sa.push_back(a(random));
    sb.push_back(b(random));
  }
  auto ci = stats::bootstrapRelativeDifference(sa, sb);
  EXPECT_NEAR(ci.estimate, 0.10, 0.01);
  EXPECT_LT(ci.lower, ci.estimate);
  EXPECT_GT(ci.upper, ci.estimate);
  EXPECT_GT(ci.lower, 0.08);
  EXPECT_LT(ci.upper, 0.12);
  // Same seed, same interval.
  auto again = stats::bootstrapRelativeDifference(sa, sb);
  EXPECT_DOUBLE_EQ(again.lower, ci.lower);
}

TEST(Statistics, BootstrapIntervalSpansZeroForEqualSamples) {
  std::mt19937_64 random(5);
  std::normal_distribution<double> d(100, 5);
  std::vector<double> sa, sb;
  for (int i = 0; i < 200; ++i) {
    sa.push_back(d(random));
    sb.push_back(d(random));
  }
  auto ci = stats::bootstrapRelativeDifference(sa, sb, stats::Statistic::Median);
  EXPECT_LT(ci.lower, 0);
  EXPECT_GT(ci.upper, 0);
}
