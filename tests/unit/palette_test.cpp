// SPDX-License-Identifier: GPL-3.0-or-later
#include "console/models/palette.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>

using namespace ringmaster::console;

TEST(Palette, RanksGetDistinctColoursLighterOnDark) {
  std::set<std::string> colours;
  for (int rank = 0; rank < 16; ++rank) colours.insert(rankColor(rank, 16, false).hex());
  EXPECT_EQ(colours.size(), 16u);
  // Rank 0's hue is red: as QColor::fromHsvF(0, 0.75, 0.8).
  EXPECT_EQ(rankColor(0, 4, false), (Rgb{204, 51, 51}));
  const Rgb light = rankColor(3, 4, false), dark = rankColor(3, 4, true);
  EXPECT_GT(dark.r + dark.g + dark.b, light.r + light.g + light.b);
}

TEST(Palette, PhasesByHorovodNamesAndStableForOthers) {
  EXPECT_EQ(phaseColor("FORWARD").hex(), "#2a9d8f");
  EXPECT_EQ(phaseColor("NCCL_ALLREDUCE").hex(), "#76b900");
  EXPECT_EQ(phaseColor("my_custom_span"), phaseColor("my_custom_span"));
  EXPECT_NE(phaseColor("my_custom_span"), phaseColor("another_span"));
}

// A profiler trace numbers its steps: ProfilerStep#1, #2, … are one kind of event with one colour.
TEST(Palette, NumberedEventsAreOneKindWithOneColour) {
  EXPECT_EQ(phaseKind("ProfilerStep#12"), "ProfilerStep#N");
  EXPECT_EQ(phaseColor("ProfilerStep#1"), phaseColor("ProfilerStep#250"));
  EXPECT_EQ(phaseColor("ProfilerStep#1"), phaseColor("ProfilerStep#N"));
  for (const char* own : {"FORWARD", "#3", "step#", "a#1b", "aten::add_"}) EXPECT_EQ(phaseKind(own), own);
  EXPECT_NE(phaseColor("ProfilerStep#1"), phaseColor("Optimizer.step#SGD.step"));
}

TEST(Palette, DerivedColours) {
  EXPECT_EQ((Rgb{0x0a, 0xff, 0x00}).hex(), "#0aff00");
  EXPECT_EQ(trendColor(Rgb{130, 65, 0}), (Rgb{100, 50, 0}));
  EXPECT_EQ(heatColor(0).hex(), "#440154");
  EXPECT_EQ(heatColor(1).hex(), "#fde725");
  EXPECT_EQ(heatColor(std::nan("")), heatColor(0));
  EXPECT_NE(failureColor(false), failureColor(true));
}
