// SPDX-License-Identifier: GPL-3.0-or-later
// The one warm-up rule the worker, the run summary, autotune and the leak detector share.
#include "common/warmup.h"

#include <gtest/gtest.h>

namespace ringmaster {
namespace {

TEST(Warmup, IsTheFirstTenthOfTheStepsAtLeastFiveNeverMoreThanHalf) {
  struct Case {
    uint64_t steps, warmup;
  };
  for (const Case& c : {Case{0, 0}, Case{1, 0}, Case{2, 1}, Case{9, 4}, Case{10, 5}, Case{20, 5}, Case{50, 5},
                        Case{51, 6}, Case{60, 6}, Case{100, 10}, Case{1001, 101}}) {
    EXPECT_EQ(warmupSteps(c.steps), c.warmup) << c.steps << " steps";
  }
}

TEST(Warmup, LeavesSomeStepsToMeasureOfAnyRunLongerThanOne) {
  for (uint64_t steps = 2; steps < 5000; ++steps) {
    ASSERT_LT(warmupSteps(steps), steps);
    ASSERT_GE(steps - warmupSteps(steps), steps / 2);
  }
}

}  // namespace
}  // namespace ringmaster
