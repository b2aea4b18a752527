// SPDX-License-Identifier: GPL-3.0-or-later
// Axis ticks on round steps and SI-prefixed values.
#include "console/models/axis_scale.h"

#include <gtest/gtest.h>

#include <cmath>

namespace ringmaster::console {
namespace {

TEST(AxisScale, TicksFallOnOneTwoOrFiveTimesAPowerOfTen) {
  EXPECT_EQ(niceTicks(0, 200, 5), (std::vector<double>{0, 50, 100, 150, 200}));
  EXPECT_EQ(niceTicks(0, 10, 5), (std::vector<double>{0, 2, 4, 6, 8, 10}));
  EXPECT_EQ(niceTicks(0, 50, 5), (std::vector<double>{0, 10, 20, 30, 40, 50}));
  // A range that is not a round number keeps round ticks inside it.
  EXPECT_EQ(niceTicks(0, 137, 5), (std::vector<double>{0, 50, 100}));
  EXPECT_EQ(niceTicks(-20, 20, 4), (std::vector<double>{-20, -10, 0, 10, 20}));
  EXPECT_EQ(niceTicks(5, 5, 5), (std::vector<double>{5}));
  for (double span : {0.003, 0.7, 13.0, 380.0, 1.2e5}) {
    const double step = niceStep(span, 5);
    const double mantissa = step / std::pow(10.0, std::floor(std::log10(step)));
    EXPECT_TRUE(std::abs(mantissa - 1) < 1e-9 || std::abs(mantissa - 2) < 1e-9 ||
                std::abs(mantissa - 5) < 1e-9)
        << span << " -> " << step;
    EXPECT_LE(span / step, 5 + 1e-9) << span;
    EXPECT_GT(span / step, 1) << span;
  }
}

TEST(AxisScale, ValuesCarrySiPrefixesNotExponents) {
  EXPECT_EQ(siNumber(12345), "12.3 k");
  EXPECT_EQ(siNumber(10000), "10.0 k");
  EXPECT_EQ(siNumber(450), "450");
  EXPECT_EQ(siNumber(0.25), "0.250");
  EXPECT_EQ(siNumber(1.5e6), "1.50 M");
  EXPECT_EQ(siNumber(-2500), "-2.50 k");
  EXPECT_EQ(siNumber(0), "0");
  // With an axis' tick step: as many decimals as tell the ticks apart, no more.
  EXPECT_EQ(siNumber(102000, 2000), "102 k");
  EXPECT_EQ(siNumber(1500, 500), "1.5 k");
  EXPECT_EQ(siNumber(500, 500), "500");
  EXPECT_EQ(siNumber(0, 500), "0");
  EXPECT_EQ(siNumber(0.04, 0.02), "0.04");
  EXPECT_EQ(siNumber(-1e-12, 0.5), "0.0");  // never "-0.0"
  for (double v : {1e4, 3.3e7, 2.2e10}) EXPECT_EQ(siNumber(v).find('e'), std::string::npos) << v;
}

}  // namespace
}  // namespace ringmaster::console
