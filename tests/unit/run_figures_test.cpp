// SPDX-License-Identifier: GPL-3.0-or-later
// The rules of a run's headline figures that `show` and `--summary-json` share.
#include "diagnosis/run_figures.h"

#include <gtest/gtest.h>

namespace ringmaster::diagnosis {
namespace {

v1::StepSample step(int rank, uint64_t number, uint32_t samples, int64_t totalMs) {
  v1::StepSample s;
  s.set_rank(rank);
  s.set_step(number);
  s.set_samples(samples);
  s.set_total_ns(totalMs * 1'000'000);
  return s;
}

TEST(JobSteps, AJobStepLastsAsLongAsItsSlowestRankAndCountsOnceEveryRankFinishedIt) {
  JobSteps steps;
  for (uint64_t n = 0; n < 4; ++n) {
    steps.add(step(0, n, 32, 100));
    steps.add(step(1, n, 32, 400));  // the straggler
  }
  steps.add(step(0, 4, 32, 100));  // rank 1 never finished step 4
  EXPECT_EQ(steps.complete(), 4u);
  // 4 steps of 64 samples, each 0.4 s long: 160 samples/s, not the ranks' own rates summed (320 + 80).
  EXPECT_DOUBLE_EQ(steps.throughput(), 160.0);
  EXPECT_EQ(steps.stepTimesMs(), (std::vector<double>{400, 400, 400, 400}));
  EXPECT_EQ(steps.stepThroughput(), (std::vector<double>{160, 160, 160, 160}));
}

TEST(JobSteps, WithoutACompleteStepThereIsNoThroughput) {
  JobSteps steps;
  EXPECT_EQ(steps.throughput(), 0);
  steps.add(step(0, 0, 32, 0));
  EXPECT_EQ(steps.complete(), 1u);
  EXPECT_EQ(steps.throughput(), 0) << "a step of no measured time";
  EXPECT_TRUE(steps.stepThroughput().empty());
}

TEST(FinalLoss, IsTheLowestRanksReportedLossElseItsLastSteps) {
  EXPECT_FALSE(finalLoss({}).has_value());
  EXPECT_FALSE(finalLoss({{0, std::nullopt, std::nullopt}}).has_value());
  EXPECT_EQ(finalLoss({{1, 0.5, 0.6}, {0, std::nullopt, 0.9}}), 0.9) << "rank 0, though only its last step";
  EXPECT_EQ(finalLoss({{2, 0.4, 0.3}, {1, 0.7, 0.8}}), 0.7) << "rank 1 where rank 0 reported nothing";
  EXPECT_EQ(finalLoss({{0, std::nullopt, std::nullopt}, {3, std::nullopt, 0.2}}), 0.2);
}

}  // namespace
}  // namespace ringmaster::diagnosis
