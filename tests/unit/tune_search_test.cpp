// SPDX-License-Identifier: GPL-3.0-or-later
// The autotune search's decisions: the rounds a budget pays for, which settings the first round tries,
// which go on to the next, and what is recommended from measured throughputs.
#include "console/tune/tune_search.h"

#include <gtest/gtest.h>

#include <set>

#include "console/session/outcome_text.h"

using namespace ringmaster;
using namespace ringmaster::console;

namespace {

// A trial's figures: 50 steps around `samplesPerS`, spread by ±`spread` (a fraction) in a fixed pattern.
RunMetrics measured(double samplesPerS, double spread) {
  RunMetrics m;
  m.ranks = 2;
  for (int i = 0; i < 50; ++i) {
    const double t = samplesPerS * (1 + spread * ((i % 5) - 2) / 2);
    m.stepThroughput.push_back(t);
    m.stepTimesMs.push_back(1000.0 * 128 / t);
  }
  m.steps = m.stepTimesMs.size();
  m.throughput = samplesPerS;
  return m;
}

TrialResult trial(double bucketMb, double samplesPerS, double spread, int64_t runId, bool isDefault = false) {
  TrialResult t;
  t.setting = {TuneTarget::BucketCap, {bucketMb}};
  t.isDefault = isDefault;
  t.runId = runId;
  t.status = "finished";
  t.metrics = measured(samplesPerS, spread);
  return t;
}

// A round as TuneSession makes it: the default first, the others measured against it.
std::vector<TrialResult> round(std::vector<TrialResult> trials) {
  for (auto& t : trials) {
    if (!t.isDefault && t.measured()) t.againstDefault = throughputDelta(trials.front().metrics, t.metrics);
  }
  return trials;
}

}  // namespace

TEST(TuneSearch, ABudgetTooSmallToHalveIsOneRoundAndALargerOneHalvesToTheDefaultAndOneOther) {
  EXPECT_EQ(halvingRounds(2, 8), (std::vector<size_t>{2}));
  EXPECT_EQ(halvingRounds(4, 8), (std::vector<size_t>{4}));
  EXPECT_EQ(halvingRounds(5, 8), (std::vector<size_t>{5}));
  EXPECT_EQ(halvingRounds(6, 8), (std::vector<size_t>{4, 2}));
  EXPECT_EQ(halvingRounds(9, 8), (std::vector<size_t>{4, 2}));  // 5 first would take 5 + 3 + 2
  EXPECT_EQ(halvingRounds(10, 8), (std::vector<size_t>{5, 3, 2}));
  EXPECT_EQ(halvingRounds(14, 8), (std::vector<size_t>{8, 4, 2}));
  // No more settings than the grid holds.
  EXPECT_EQ(halvingRounds(100, 9), (std::vector<size_t>{9, 5, 3, 2}));
  EXPECT_EQ(halvingRounds(5, 3), (std::vector<size_t>{3}));
}

TEST(TuneSearch, TheFirstRoundStartsWithTheDefaultAndSpreadsOverTheGrid) {
  const TuneSetting bucket{TuneTarget::BucketCap, {25}};
  const auto three = spreadCandidates(bucket, 3);
  ASSERT_EQ(three.size(), 3u);
  EXPECT_EQ(three[0], bucket);
  // The ends of the grid are farthest from 25 MiB and from each other on a log scale.
  EXPECT_EQ(three[1].values, std::vector<double>{1});
  EXPECT_EQ(three[2].values, std::vector<double>{200});

  // A default off the grid is tried too; no setting twice; never more than there are.
  const TuneSetting odd{TuneTarget::BucketCap, {30}};
  const auto all = spreadCandidates(odd, 100);
  EXPECT_EQ(all.size(), tuneGrid(TuneTarget::BucketCap).size() + 1);
  EXPECT_EQ(all[0], odd);
  std::set<std::vector<double>> distinct;
  for (const auto& s : all) distinct.insert(s.values);
  EXPECT_EQ(distinct.size(), all.size());

  const TuneSetting fusion{TuneTarget::Fusion, {128, 1}};
  const auto four = spreadCandidates(fusion, 4);
  ASSERT_EQ(four.size(), 4u);
  EXPECT_EQ(four[0], fusion);
  for (size_t i = 1; i < four.size(); ++i) EXPECT_FALSE(four[i] == fusion);
  EXPECT_EQ(four[1].flags(), "--fusion-threshold-mb 8 --cycle-time-ms 10");
}

TEST(TuneSearch, ASettingIsTheFlagsItSetsOnTheJob) {
  const TuneSetting fusion{TuneTarget::Fusion, {32, 2.5}};
  EXPECT_EQ(fusion.flags(), "--fusion-threshold-mb 32 --cycle-time-ms 2.5");
  v1::JobSpec spec;
  fusion.applyTo(spec);
  EXPECT_EQ(spec.hyper().fusion_threshold_mb(), 32);
  EXPECT_EQ(spec.hyper().cycle_time_ms(), 2.5);
  EXPECT_EQ(currentSetting(TuneTarget::Fusion, spec), fusion);
  EXPECT_EQ((TuneSetting{TuneTarget::BucketCap, {10}}).flags(), "--bucket-cap-mb 10");
}

TEST(TuneSearch, EachEngineTunesItsOwnSettings) {
  v1::JobSpec ddp;
  ddp.set_engine(v1::ENGINE_DDP);
  v1::JobSpec horovod;
  horovod.set_engine(v1::ENGINE_HOROVOD);
  EXPECT_EQ(defaultTuneTarget(ddp), TuneTarget::BucketCap);
  EXPECT_EQ(defaultTuneTarget(horovod), TuneTarget::Fusion);
  EXPECT_EQ(tuneTargetProblem(TuneTarget::BucketCap, ddp), "");
  EXPECT_EQ(tuneTargetProblem(TuneTarget::Fusion, horovod), "");
  EXPECT_NE(tuneTargetProblem(TuneTarget::Fusion, ddp).find("--tune bucket-cap"), std::string::npos);
  EXPECT_NE(tuneTargetProblem(TuneTarget::BucketCap, horovod).find("--tune fusion"), std::string::npos);
  EXPECT_EQ(tuneTargetFromName("fusion"), TuneTarget::Fusion);
  EXPECT_EQ(tuneTargetFromName("bucket"), std::nullopt);
}

TEST(TuneSearch, TheNextRoundKeepsTheDefaultAndTheFastestOthers) {
  auto failed = trial(5, 0, 0, 4);
  failed.failure =
      outcomeSentence(text::kRankOnHostEnded, {1, "node2", outcomeSentence(text::kExitedWithCode, {1})});
  failed.metrics = {};
  const auto next = survivors(round({trial(25, 900, 0.01, 1, true), trial(1, 950, 0.01, 2),
                                     trial(200, 1100, 0.01, 3), failed, trial(10, 1000, 0.01, 5)}),
                              3);
  ASSERT_EQ(next.size(), 3u);
  EXPECT_EQ(next[0].values, std::vector<double>{25}) << "the default even when it is the slowest";
  EXPECT_EQ(next[1].values, std::vector<double>{200});
  EXPECT_EQ(next[2].values, std::vector<double>{10});
}

TEST(TuneSearch, TheRecommendationIsTheFastestTrialWithItsIntervalAgainstTheDefault) {
  // Clearly faster: 10 % with a 1 % spread.
  const std::string best = recommendation(
      round({trial(25, 1000, 0.01, 1, true), trial(50, 1100, 0.01, 2), trial(5, 1050, 0.01, 3)}));
  EXPECT_EQ(best.rfind("best: --bucket-cap-mb 50, +10.0 % [+", 0), 0u) << best;
  EXPECT_NE(best.find("over the default (run 2 against run 1)"), std::string::npos) << best;
  EXPECT_EQ(recommendedSetting(
                round({trial(25, 1000, 0.01, 1, true), trial(50, 1100, 0.01, 2), trial(5, 1050, 0.01, 3)})),
            (TuneSetting{TuneTarget::BucketCap, {50}}));

  // Faster by less than the noise: the default is as good.
  const std::string noise =
      recommendation(round({trial(25, 1000, 0.4, 1, true), trial(50, 1010, 0.4, 2), trial(5, 990, 0.4, 3)}));
  EXPECT_EQ(
      noise.rfind("the default is as good as any trial: the best, --bucket-cap-mb 50, measured +1.0 % [-", 0),
      0u)
      << noise;
  EXPECT_NE(noise.find("within the noise (run 2 against run 1)"), std::string::npos) << noise;
  EXPECT_EQ(recommendedSetting(
                round({trial(25, 1000, 0.4, 1, true), trial(50, 1010, 0.4, 2), trial(5, 990, 0.4, 3)})),
            std::nullopt)
      << "the default stays";

  // The default measured best.
  const std::string fastestDefault = recommendation(
      round({trial(25, 1200, 0.01, 1, true), trial(50, 1100, 0.01, 2), trial(5, 1000, 0.01, 3)}));
  EXPECT_EQ(
      fastestDefault.rfind("the default is as good as any trial: it measured the highest throughput (run "
                           "1); the next best, --bucket-cap-mb 50, measured -8.3 % [-",
                           0),
      0u)
      << fastestDefault;
  EXPECT_EQ(recommendedSetting(
                round({trial(25, 1200, 0.01, 1, true), trial(50, 1100, 0.01, 2), trial(5, 1000, 0.01, 3)})),
            std::nullopt);
}
