// SPDX-License-Identifier: GPL-3.0-or-later
#include <gtest/gtest.h>

#include <csignal>
#include <cstdio>
#include <limits>

#include "diagnosis/run_diagnosis.h"
#include "tests/support/diagnosis_synthetic.h"

using namespace ringmaster::diagnosis;
using ringmaster::test::generate;
using ringmaster::test::SyntheticRun;

namespace {

std::vector<v1::Finding> ofKind(const std::vector<v1::Finding>& all, v1::Finding::Kind kind) {
  std::vector<v1::Finding> out;
  for (const auto& f : all) {
    if (f.kind() == kind) out.push_back(f);
  }
  return out;
}

// Feeds the run record by record and returns the step at which rank `rank` was first flagged (-1 if never).
int firstFlaggedStep(const SyntheticRun& run, int rank, v1::Finding* finding = nullptr) {
  RunDiagnosis diagnosis(run.ranks);
  int flagged = -1;
  for (const auto& record : generate(run).records) {
    diagnosis.observe(record);
    if (flagged < 0 && record.has_step() && record.step().rank() == run.ranks - 1) {
      for (const auto& f : ofKind(diagnosis.findings(), v1::Finding::KIND_STRAGGLER)) {
        if (f.rank() == rank) flagged = int(record.step().step());
      }
    }
  }
  if (finding) {
    for (const auto& f : ofKind(diagnosis.findings(), v1::Finding::KIND_STRAGGLER)) {
      if (f.rank() == rank) *finding = f;
    }
  }
  return flagged;
}

}  // namespace

TEST(Stragglers, ARankTwentyPercentSlowerIsFlaggedWithinTenSteps) {
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    SyntheticRun run;
    run.seed = seed;
    run.steps = 120;
    run.slowRank = 3;
    run.slowFrom = 50;
    run.slowCompute = 0.20;
    v1::Finding finding;
    int flagged = firstFlaggedStep(run, 3, &finding);
    ASSERT_GE(flagged, 50) << "seed " << seed;
    EXPECT_LT(flagged, 60) << "seed " << seed;
    EXPECT_EQ(finding.cause(), "compute");
    EXPECT_GE(finding.since_step(), 50u);
    EXPECT_LE(finding.since_step(), 53u);
    // Own time is data + compute, so 20% more compute is ~19% more own time.
    EXPECT_NEAR(finding.evidence().at("slowdown_pct"), 19, 4) << finding.summary();
    EXPECT_GT(finding.evidence().at("throughput_lost_pct"), 5);
    EXPECT_GT(finding.evidence().at("others_wait_ms_per_step"), 8);
  }
}

TEST(Stragglers, NoFindingSaysTheOthersWaitLessThanNothing) {
  // Noisy ranks, two (where the median is the mean of the two) or four, where episodes come and go: whatever
  // is found, the wait it quotes is a wait.
  int findings = 0;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    SyntheticRun run;
    run.ranks = seed % 2 ? 2 : 4;
    run.seed = seed;
    run.jitter = 0.15;
    run.spikeChance = 0.05;
    run.slowRank = int(seed % 2);
    run.slowFrom = 40;
    run.slowCommUs = seed % 3 == 0 ? 3000 : 0;
    run.slowCompute = seed % 3 == 1 ? 0.1 : 0;
    RunDiagnosis diagnosis(run.ranks);
    for (const auto& record : generate(run).records) diagnosis.observe(record);
    for (const auto& f : ofKind(diagnosis.findings(), v1::Finding::KIND_STRAGGLER)) {
      ++findings;
      EXPECT_GE(f.evidence().at("others_wait_ms_per_step"), 0) << "seed " << seed << ": " << f.summary();
      EXPECT_GE(f.evidence().at("throughput_lost_pct"), 0) << "seed " << seed << ": " << f.summary();
      EXPECT_EQ(f.summary().find("wait -"), std::string::npos) << "seed " << seed << ": " << f.summary();
    }
  }
  EXPECT_GT(findings, 10) << "the runs are meant to give findings to check";
}

TEST(Stragglers, WorksWithFourAndTwoRanks) {
  for (int ranks : {4, 2}) {
    SyntheticRun run;
    run.ranks = ranks;
    run.steps = 100;
    run.slowRank = ranks - 1;
    run.slowFrom = 30;
    run.slowCompute = 0.20;
    int flagged = firstFlaggedStep(run, ranks - 1);
    EXPECT_GE(flagged, 30) << ranks << " ranks";
    EXPECT_LT(flagged, 40) << ranks << " ranks";
  }
}

TEST(Stragglers, SlowDataLoadingIsBlamedOnData) {
  SyntheticRun run;
  run.steps = 100;
  run.slowRank = 5;
  run.slowFrom = 20;
  run.slowData = 15;  // ms per step waiting for batches
  v1::Finding finding;
  ASSERT_GE(firstFlaggedStep(run, 5, &finding), 20);
  EXPECT_EQ(finding.cause(), "data");
}

TEST(Stragglers, SlowLinkAtEqualComputeIsBlamedOnCommunication) {
  SyntheticRun run;
  run.steps = 100;
  run.slowRank = 2;
  run.slowFrom = 20;
  run.slowCommUs = 6000;
  v1::Finding finding;
  ASSERT_GE(firstFlaggedStep(run, 2, &finding), 20);
  EXPECT_EQ(finding.cause(), "communication");
}

TEST(Stragglers, FalsePositiveRateOnCleanRunsIsUnderOnePercent) {
  constexpr int kRuns = 1000;
  int runsWithFalseAlarm = 0;
  for (int i = 0; i < kRuns; ++i) {
    SyntheticRun run;
    run.seed = 1000 + uint64_t(i);
    run.steps = 150;
    StragglerDetector detector(run.ranks);
    for (const auto& record : generate(run).records) {
      if (record.has_step()) detector.add(record.step());
      if (record.has_allreduce()) detector.add(record.allreduce());
    }
    if (!detector.findings().empty()) ++runsWithFalseAlarm;
  }
  double rate = double(runsWithFalseAlarm) / kRuns;
  std::printf("straggler false-positive rate: %d of %d clean 8-rank runs (150 steps each) = %.2f%%\n",
              runsWithFalseAlarm, kRuns, 100 * rate);
  RecordProperty("false_positive_rate_pct", std::to_string(100 * rate));
  EXPECT_LT(rate, 0.01);
}

// Four ranks sharing two cores: every step scatters by a quarter, one rank in twenty has a spike, and the
// ranks differ a little for good. Each window of steps says little; evidence over the run says enough.
SyntheticRun crowdedRun(uint64_t seed) {
  SyntheticRun run;
  run.ranks = 4;
  run.steps = 150;
  run.seed = seed;
  run.jitter = 0.25;
  run.jobJitter = 0.1;
  run.spikeChance = 0.05;
  run.rankBias = 0.02;
  return run;
}

bool accused(const std::vector<v1::Finding>& findings, int rank) {
  for (const auto& f : ofKind(findings, v1::Finding::KIND_STRAGGLER)) {
    if (f.rank() == rank && f.severity() >= v1::Finding::SEVERITY_WARNING) return true;
  }
  return false;
}

TEST(Stragglers, ASustainedModerateStragglerAmongFourNoisyRanksIsFoundWithinAHundredSteps) {
  int found = 0, othersAccused = 0, latest = 0;
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    SyntheticRun run = crowdedRun(seed);
    run.slowRank = 1;
    run.slowFrom = 5;
    run.slowCompute = 0.22;  // 44.9 ms of compute against 36.8
    RunDiagnosis diagnosis(run.ranks);
    int foundAt = -1;
    for (const auto& record : generate(run).records) {
      diagnosis.observe(record);
      if (foundAt < 0 && record.has_step() && record.step().rank() == run.ranks - 1 &&
          accused(diagnosis.findings(), 1)) {
        foundAt = int(record.step().step());
      }
    }
    if (foundAt >= 0 && foundAt < 100) ++found;
    for (int rank : {0, 2, 3}) othersAccused += accused(diagnosis.findings(), rank);
    // The longest accusation describes the straggler; the first says since when.
    const v1::Finding* longest = nullptr;
    uint64_t since = UINT64_MAX;
    const auto findings = ofKind(diagnosis.findings(), v1::Finding::KIND_STRAGGLER);
    for (const auto& f : findings) {
      if (f.rank() != 1 || f.severity() < v1::Finding::SEVERITY_WARNING) continue;
      since = std::min<uint64_t>(since, f.since_step());
      if (!longest || f.evidence().at("steps_slow") > longest->evidence().at("steps_slow")) longest = &f;
    }
    if (foundAt < 0) continue;
    latest = std::max(latest, foundAt);
    EXPECT_EQ(longest->cause(), "compute") << "seed " << seed;
    // Where the evidence began to add up is an estimate of where the slowness began (step 5).
    EXPECT_LE(since, 60u) << "seed " << seed << ": " << longest->summary();
    EXPECT_GE(longest->evidence().at("slowdown_pct"), 8) << "seed " << seed << ": " << longest->summary();
    EXPECT_LE(longest->evidence().at("slowdown_pct"), 30) << "seed " << seed << ": " << longest->summary();
  }
  std::printf("moderate straggler among 4 noisy ranks: found within 100 steps in %d of 20 runs, by step %d\n",
              found, latest);
  EXPECT_GE(found, 18);
  EXPECT_EQ(othersAccused, 0);
}

TEST(Stragglers, ArrivalOrderFindsASmallerStragglerThanOwnTimeAlone) {
  // 12 % more compute among four crowded ranks is within the noise of any one step's own time, but the rank
  // reaches the all-reduce last far more often than one step in four.
  int found = 0, othersAccused = 0;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    SyntheticRun run = crowdedRun(seed);
    run.steps = 100;
    run.slowRank = 1;
    run.slowFrom = 5;
    run.slowCompute = 0.12;
    RunDiagnosis diagnosis(run.ranks);
    for (const auto& record : generate(run).records) diagnosis.observe(record);
    found += accused(diagnosis.findings(), 1);
    for (int rank : {0, 2, 3}) othersAccused += accused(diagnosis.findings(), rank);
  }
  std::printf("12 %% straggler among 4 noisy ranks: found within 100 steps in %d of 40 runs\n", found);
  EXPECT_GE(found, 25);  // own time alone: 20
  EXPECT_EQ(othersAccused, 0);
}

TEST(Stragglers, CleanNoisyRanksAndShortBurstsAccuseNoRank) {
  int accusations = 0;
  for (uint64_t seed = 100; seed < 300; ++seed) {
    SyntheticRun run = crowdedRun(seed);
    // Every other run has a rank that is 60% slower for two bursts of six steps.
    std::vector<v1::Record> records = generate(run).records;
    if (seed % 2) {
      for (auto& record : records) {
        auto* s = record.mutable_step();
        if (!record.has_step() || s->rank() != 2 || s->step() % 60 < 40 || s->step() % 60 >= 46) continue;
        s->set_backward_ns(
            int64_t(double(s->backward_ns()) + 0.6 * double(s->forward_ns() + s->backward_ns())));
      }
    }
    RunDiagnosis diagnosis(run.ranks);
    for (const auto& record : records) diagnosis.observe(record);
    for (const auto& f : ofKind(diagnosis.findings(), v1::Finding::KIND_STRAGGLER)) {
      if (f.severity() < v1::Finding::SEVERITY_WARNING) continue;
      ++accusations;
      ADD_FAILURE() << "seed " << seed << ": " << f.summary();
    }
  }
  EXPECT_EQ(accusations, 0);
}

// Two ranks on a machine's two cores, beside the console and the agent, take turns at being slowed by their
// neighbours for a dozen steps or a few dozen, and a run may end during such a turn: information, not a
// straggler. One of two ranks slowed as much for good is one.
TEST(Stragglers, TwoRanksTakingTurnsAtAModerateSlowdownAccuseNeitherButOneThatStaysSlowIsFound) {
  struct Turn {
    int rank;
    uint64_t from, to;  // steps [from, to) 20 % slower
  };
  auto run = [](uint64_t seed, const std::vector<Turn>& turns) {
    SyntheticRun shape;
    shape.ranks = 2;
    shape.steps = 150;
    shape.seed = seed;
    std::vector<v1::Record> records = generate(shape).records;
    for (auto& record : records) {
      if (!record.has_step()) continue;
      auto* s = record.mutable_step();
      for (const Turn& t : turns) {
        if (s->rank() != t.rank || s->step() < t.from || s->step() >= t.to) continue;
        s->set_forward_ns(int64_t(double(s->forward_ns()) * 1.2));
        s->set_backward_ns(int64_t(double(s->backward_ns()) * 1.2));
      }
    }
    RunDiagnosis diagnosis(2);
    for (const auto& record : records) diagnosis.observe(record);
    std::vector<v1::Finding> accused;
    for (const auto& f : ofKind(diagnosis.findings(), v1::Finding::KIND_STRAGGLER)) {
      if (f.severity() >= v1::Finding::SEVERITY_WARNING) accused.push_back(f);
    }
    return accused;
  };
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    for (const auto& f : run(seed, {{0, 50, 62}, {1, 79, 93}, {0, 114, 126}, {1, 138, 150}}))
      ADD_FAILURE() << "seed " << seed << ": " << f.summary();
    const auto found = run(seed, {{1, 30, 150}});
    ASSERT_EQ(found.size(), 1u) << "seed " << seed;
    EXPECT_EQ(found[0].rank(), 1);
  }
}

TEST(MemoryLeaks, TwoMiBPerStepIsEstimatedWithinTwentyFivePercent) {
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    SyntheticRun run;
    run.seed = seed;
    run.steps = 150;
    run.leakRank = 1;
    run.leakMiBPerStep = 2;
    RunDiagnosis diagnosis(run.ranks);
    for (const auto& record : generate(run).records) diagnosis.observe(record);
    auto leaks = ofKind(diagnosis.findings(), v1::Finding::KIND_MEMORY_LEAK);
    ASSERT_EQ(leaks.size(), 1u) << "seed " << seed;
    EXPECT_EQ(leaks[0].rank(), 1);
    EXPECT_NEAR(leaks[0].evidence().at("mib_per_step"), 2, 0.5);
    EXPECT_GT(leaks[0].evidence().at("mib_per_min"), 0);
    EXPECT_GT(leaks[0].evidence().at("minutes_to_limit"), 0);
    EXPECT_NE(leaks[0].summary().find("MiB per step"), std::string::npos);
  }
}

TEST(MemoryLeaks, NoLeakForAFlatNoisySeries) {
  int reported = 0;
  for (uint64_t seed = 1; seed <= 200; ++seed) {
    MemoryLeakDetector detector;
    std::mt19937_64 random(seed);
    std::normal_distribution<double> noise(0, 8);
    for (int step = 0; step < 300; ++step) {
      v1::MemorySample m;
      m.set_rank(0);
      m.set_step(uint64_t(step));
      m.set_time_ns(int64_t(step) * 100'000'000);
      // A warm-up ramp, then a flat, noisy level with allocator steps up and back down.
      double mib = step < 20 ? 500 + 50 * step : 1500 + noise(random) + ((step / 40) % 2 ? 24 : 0);
      m.set_rss_bytes(uint64_t(mib * 1024 * 1024));
      detector.add(m);
    }
    if (!detector.findings().empty()) ++reported;
  }
  EXPECT_EQ(reported, 0);
}

TEST(Stalls, StallReportsNameTheMissingRankAndTensors) {
  RunDiagnosis diagnosis(4);
  v1::Record record;
  auto* state = record.mutable_rank_state();
  state->set_rank(2);
  state->set_host("gpu-node-2");
  state->set_state(v1::RankState::STATE_RUNNING);
  diagnosis.observe(record);
  auto* stall = record.mutable_stall();
  stall->set_reporting_rank(0);
  stall->add_missing_ranks(2);
  stall->add_tensors("grad.layer4.weight");
  stall->set_waited_s(7.5);
  diagnosis.observe(record);
  auto stalls = ofKind(diagnosis.findings(), v1::Finding::KIND_STALL);
  ASSERT_EQ(stalls.size(), 1u);
  EXPECT_EQ(stalls[0].rank(), 2);
  EXPECT_EQ(stalls[0].host(), "gpu-node-2");
  EXPECT_EQ(stalls[0].severity(), v1::Finding::SEVERITY_CRITICAL);
  EXPECT_NE(stalls[0].summary().find("grad.layer4.weight"), std::string::npos) << stalls[0].summary();
  EXPECT_NE(stalls[0].summary().find("0,1,3"), std::string::npos) << stalls[0].summary();
}

TEST(Stalls, ARankThatStopsBehindTheOthersIsNamedWithinSeconds) {
  StallDetector detector(4, StallConfig{5});
  const int64_t second = 1'000'000'000;
  for (int step = 0; step <= 10; ++step) {
    for (int r = 0; r < 4; ++r) {
      if (r == 2 && step == 10) continue;  // rank 2 never finishes step 10
      v1::StepSample s;
      s.set_rank(r);
      s.set_step(uint64_t(step));
      detector.progress(s, step * second / 10);
    }
  }
  EXPECT_TRUE(detector.findings(3 * second).empty());
  auto found = detector.findings(7 * second);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].rank(), 2);
  EXPECT_EQ(found[0].since_step(), 10u);
  EXPECT_NE(found[0].summary().find("stopped after step 9"), std::string::npos) << found[0].summary();
}

namespace {

// Ranks 0 and 1 both finish step 4, arriving one second in.
void bothFinishStepFour(StallDetector& detector) {
  v1::StepSample s;
  s.set_step(4);
  detector.progress(s, 1'000'000'000);
  s.set_rank(1);
  detector.progress(s, 1'000'000'000);
}

}  // namespace

TEST(Stalls, AWholeJobThatStopsIsAJobWideFinding) {
  StallDetector detector(2, StallConfig{5});
  bothFinishStepFour(detector);
  auto found = detector.findings(8'000'000'000);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].rank(), -1);
}

namespace {

v1::Heartbeat beat(int rank, int64_t lastStep, const std::string& phase, int64_t sinceNs, int64_t timeNs) {
  v1::Heartbeat b;
  b.set_rank(rank);
  b.set_last_step(lastStep);
  b.set_phase(phase);
  b.set_phase_since_ns(sinceNs);
  b.set_time_ns(timeNs);
  return b;
}

// Every one of the `ranks` first ranks finished `step`, its record arriving at `arrivalNs`.
void allFinished(StallDetector& detector, int ranks, uint64_t step, int64_t arrivalNs) {
  v1::StepSample s;
  for (int rank = 0; rank < ranks; ++rank) {
    s.set_rank(rank);
    s.set_step(step);
    detector.progress(s, arrivalNs);
  }
}

}  // namespace

TEST(Stalls, HeartbeatsNameTheRankThatStoppedCallingCollectives) {
  // Three ranks completed step 7; ranks 0 and 2 wait in all-reduce for step 8, rank 1 never reached it.
  StallDetector detector(3, StallConfig{5});
  const int64_t second = 1'000'000'000;
  v1::StepSample s;
  s.set_step(7);
  for (int r = 0; r < 3; ++r) {
    s.set_rank(r);
    if (r != 1) detector.progress(s, 1 * second);  // rank 1's last step is on its way: its heartbeat says it
  }
  for (int64_t t = 2; t <= 9; ++t) {
    detector.heartbeat(beat(0, 7, "comm_wait", 1 * second, t * second), t * second);
    detector.heartbeat(beat(1, 7, "data", 1 * second, t * second), t * second);
    detector.heartbeat(beat(2, 7, "comm_wait", 1 * second, t * second), t * second);
  }
  EXPECT_TRUE(detector.findings(3 * second).empty());
  auto found = detector.findings(9 * second);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].rank(), 1);
  EXPECT_EQ(found[0].since_step(), 8u);
  EXPECT_NE(found[0].summary().find("stopped calling collectives after step 7"), std::string::npos)
      << found[0].summary();
  EXPECT_NE(found[0].summary().find("in data for 8.0 s"), std::string::npos) << found[0].summary();
  EXPECT_NE(found[0].summary().find("ranks 0,2 wait in all-reduce"), std::string::npos) << found[0].summary();

  // Rank 0 gives up waiting and fails: the stall it ended stays, naming rank 1.
  for (int64_t t = 10; t < 30; ++t) {
    for (int r = 0; r < 3; ++r)
      detector.heartbeat(beat(r, 7, r == 1 ? "data" : "comm_wait", second, t * second), t * second);
  }
  detector.exited(0, true, 30 * second);
  detector.exited(1, true, 30 * second);
  detector.exited(2, true, 30 * second);
  found = detector.findings(40 * second);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].rank(), 1);
}

// A rank whose wait in all-reduce holds the interpreter stops beating there: it still waits, and the rank
// that beats on from outside any collective is the one named.
TEST(Stalls, ARankSilentInsideACollectiveWaitsForTheOneThatBeatsOutsideIt) {
  StallDetector detector(2, StallConfig{5});
  const int64_t second = 1'000'000'000;
  allFinished(detector, 2, 7, second);
  for (int64_t t = 2; t <= 12; ++t) {
    if (t <= 3) detector.heartbeat(beat(0, 7, "comm_wait", 2 * second, t * second), t * second);
    detector.heartbeat(beat(1, 7, "data", second, t * second), t * second);
  }
  auto found = detector.findings(12 * second);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].rank(), 1);
  EXPECT_NE(found[0].summary().find("stopped calling collectives after step 7"), std::string::npos)
      << found[0].summary();
  EXPECT_NE(found[0].summary().find("while rank 0 waits in all-reduce"), std::string::npos)
      << found[0].summary();
  // Rank 0 gives up and fails while rank 1 beats on: the stall stays rank 1's.
  for (int64_t t = 13; t < 30; ++t) detector.heartbeat(beat(1, 7, "data", second, t * second), t * second);
  detector.exited(0, true, 30 * second);
  found = detector.findings(31 * second);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].rank(), 1);

  // Both silent: the one gone silent inside the collective is no longer known to wait; the other is named.
  StallDetector frozen(2, StallConfig{5});
  allFinished(frozen, 2, 7, second);
  frozen.heartbeat(beat(0, 7, "comm_wait", 2 * second, 2 * second), 2 * second);
  for (int64_t t = 2; t <= 12; ++t)
    frozen.heartbeat(beat(1, 7, "comm_wait", 2 * second, t * second), t * second);
  found = frozen.findings(12 * second);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].rank(), 0) << "a rank frozen inside a collective, the other waiting there";
}

TEST(Stalls, ARankWhoseHeartbeatsStopIsNamed) {
  StallDetector detector(2, StallConfig{5});
  const int64_t second = 1'000'000'000;
  v1::StepSample s;
  s.set_step(3);
  detector.progress(s, second);
  for (int64_t t = 1; t <= 12; ++t) {
    detector.heartbeat(beat(0, 3, "comm_wait", second, t * second), t * second);
    if (t <= 2) detector.heartbeat(beat(1, 3, "forward", second, t * second), t * second);
  }
  auto found = detector.findings(12 * second);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].rank(), 1);
  EXPECT_NE(found[0].summary().find("has sent nothing for 10.0 s"), std::string::npos) << found[0].summary();
}

TEST(Stalls, AFrozenRankWhoseLastBeatCameBeforeItsStepsIsSaidToStopAfterItsLastStep) {
  // Rank 1 beat once at start (no step yet), then reported steps up to 40 and froze before beating again.
  StallDetector detector(2, StallConfig{5});
  const int64_t second = 1'000'000'000;
  detector.heartbeat(beat(1, -1, "", 0, 1 * second), 1 * second);
  allFinished(detector, 2, 40, 2 * second);
  for (int64_t t = 2; t <= 12; ++t) detector.heartbeat(beat(0, 40, "", 0, t * second), t * second);
  auto during = detector.findings(12 * second);
  ASSERT_EQ(during.size(), 1u);
  EXPECT_NE(during[0].summary().find("rank 1 went silent after step 40"), std::string::npos)
      << during[0].summary();
}

TEST(Stalls, ARankFrozenBeforeItsFirstBeatIsNamedFromItsLastStepRecord) {
  // Rank 1 reported steps up to 3 and froze before it ever beat; rank 0 beats, waiting in step 4.
  StallDetector detector(2, StallConfig{5});
  const int64_t second = 1'000'000'000;
  allFinished(detector, 2, 3, 2 * second);
  for (int64_t t = 1; t <= 12; ++t) detector.heartbeat(beat(0, 3, "", 0, t * second), t * second);
  auto during = detector.findings(12 * second);
  ASSERT_EQ(during.size(), 1u);
  EXPECT_EQ(during[0].rank(), 1);
  EXPECT_NE(during[0].summary().find("rank 1 went silent after step 3: it has sent nothing for 10.0 s"),
            std::string::npos)
      << during[0].summary();
  // It goes on: the stall is kept, as that rank's.
  v1::StepSample s;
  s.set_rank(1);
  s.set_step(4);
  detector.progress(s, 14 * second);
  auto after = detector.findings(15 * second);
  ASSERT_EQ(after.size(), 1u);
  EXPECT_EQ(after[0].rank(), 1);
  EXPECT_NE(after[0].summary().find("then it went on"), std::string::npos) << after[0].summary();
}

TEST(Stalls, AFrozenRankIsNamedWhileItIsSilentAndRememberedOnceTheJobGoesOn) {
  // Ringmaster's own ranks beat without a phase; rank 1 is stopped (SIGSTOP) from second 2 to second 14.
  StallDetector detector(2, StallConfig{5});
  const int64_t second = 1'000'000'000;
  allFinished(detector, 2, 40, 2 * second);
  for (int64_t t = 2; t <= 12; ++t) {
    detector.heartbeat(beat(0, 40, "", 0, t * second), t * second);
    if (t <= 2) detector.heartbeat(beat(1, 40, "", 0, t * second), t * second);
  }
  auto during = detector.findings(12 * second);
  ASSERT_EQ(during.size(), 1u);
  EXPECT_EQ(during[0].rank(), 1);
  EXPECT_EQ(during[0].severity(), v1::Finding::SEVERITY_CRITICAL);
  EXPECT_NE(during[0].summary().find("rank 1 went silent after step 40"), std::string::npos)
      << during[0].summary();
  EXPECT_NE(during[0].summary().find("rank 0 waits for it"), std::string::npos) << during[0].summary();

  // SIGCONT: rank 1 beats again, then both ranks finish steps.
  detector.heartbeat(beat(1, 40, "", 0, 14 * second), 14 * second);
  allFinished(detector, 2, 41, 14 * second + 100);
  auto after = detector.findings(15 * second);
  ASSERT_EQ(after.size(), 1u);
  EXPECT_EQ(after[0].rank(), 1);
  EXPECT_EQ(after[0].severity(), v1::Finding::SEVERITY_WARNING);
  EXPECT_NE(after[0].summary().find("then it went on"), std::string::npos) << after[0].summary();
  EXPECT_GE(after[0].evidence().at("quiet_s"), 11.9);
}

TEST(Stalls, APauseOfTheWholeJobIsForgottenOnceItGoesOn) {
  // Every rank beats through a 10 s evaluation: no one held the job up.
  StallDetector detector(2, StallConfig{5});
  const int64_t second = 1'000'000'000;
  v1::StepSample s;
  for (int64_t t = 0; t <= 12; ++t) {
    for (int rank = 0; rank < 2; ++rank) {
      detector.heartbeat(beat(rank, 9, "", 0, t * second), t * second);
      s.set_rank(rank);
      s.set_step(t < 2 ? 9 : 10);
      if (t < 2 || t == 12) detector.progress(s, t * second);
    }
    if (t == 8) {
      auto during = detector.findings(8 * second);
      ASSERT_EQ(during.size(), 1u);
      EXPECT_EQ(during[0].rank(), -1) << during[0].summary();  // the job as a whole, while it lasts
    }
  }
  EXPECT_TRUE(detector.findings(12 * second + 1).empty());
}

TEST(Stalls, ACleanEndLatchesNothing) {
  StallDetector detector(2, StallConfig{5});
  bothFinishStepFour(detector);
  detector.exited(0, false, 9'000'000'000);
  detector.exited(1, false, 9'000'000'000);
  EXPECT_TRUE(detector.findings(20'000'000'000).empty());
}

TEST(Communication, ARankWithHalfTheBandwidthIsFlagged) {
  CommunicationMonitor monitor;
  for (int step = 0; step < 50; ++step) {
    for (int r = 0; r < 4; ++r) {
      v1::AllreduceOp op;
      op.set_rank(r);
      op.set_step(uint64_t(step));
      op.set_bytes(1 << 24);
      op.set_latency_us(1000);
      op.set_busbw_gbps(r == 3 ? 2.0 : 5.0 + 0.01 * step);
      monitor.add(op);
    }
  }
  std::vector<v1::Finding> ranked;
  for (const auto& f : monitor.findings()) {
    if (f.rank() >= 0) ranked.push_back(f);
  }
  ASSERT_EQ(ranked.size(), 1u);
  EXPECT_EQ(ranked[0].rank(), 3);
  EXPECT_EQ(ranked[0].kind(), v1::Finding::KIND_COMMUNICATION);
  EXPECT_NEAR(monitor.summary().rankBusbwGbps.at(3), 2.0, 1e-9);
}

namespace {

// Ops of one collective, one per rank: rank 1's reaches it `lateMs` after rank 0's, and the transfer itself
// takes `transferMs` once both are there.
void addCollective(CommunicationMonitor& monitor, uint64_t step, double lateMs, double transferMs) {
  for (int r = 0; r < 2; ++r) {
    v1::AllreduceOp op;
    op.set_rank(r);
    op.set_step(step);
    op.set_bytes(1 << 20);
    const double ms = transferMs + (r == 0 ? lateMs : 0);
    op.set_latency_us(ms * 1e3);
    op.set_busbw_gbps(double(1 << 20) / (ms * 1e-3) / 1e9);  // two ranks: busbw = algbw
    monitor.add(op);
  }
}

int slowOpFindings(const CommunicationMonitor& monitor) {
  int found = 0;
  for (const auto& f : monitor.findings()) found += f.evidence().count("slow_ops") ? 1 : 0;
  return found;
}

}  // namespace

TEST(Communication, OpsSlowOnlyBecauseAPeerArrivedLateAreNoCongestion) {
  CommunicationMonitor late;
  late.setRanks(2);
  for (uint64_t step = 0; step < 200; ++step) addCollective(late, step, step % 3 == 0 ? 20 : 0, 2);
  EXPECT_EQ(late.summary().judgedOps, 200u);
  EXPECT_EQ(late.summary().slowOps, 0u);
  EXPECT_EQ(slowOpFindings(late), 0);

  // The same waits judged op by op, as before ranks were known, look like congestion.
  CommunicationMonitor alone;
  for (uint64_t step = 0; step < 200; ++step) addCollective(alone, step, step % 3 == 0 ? 20 : 0, 2);
  EXPECT_EQ(slowOpFindings(alone), 1);

  // Transfers that are themselves slow, on every rank, still are.
  CommunicationMonitor slow;
  slow.setRanks(2);
  for (uint64_t step = 0; step < 200; ++step) addCollective(slow, step, 0, step % 3 == 0 ? 20 : 2);
  EXPECT_EQ(slow.summary().slowOps, 67u);
  EXPECT_EQ(slowOpFindings(slow), 1);

  // Unless the ranks share one host: no network to congest there, only cores to wait for.
  for (const bool apart : {false, true}) {
    CommunicationMonitor hosted;
    hosted.setRanks(2);
    hosted.setHost(0, "node-a");
    hosted.setHost(1, apart ? "node-b" : "node-a");
    for (uint64_t step = 0; step < 200; ++step) addCollective(hosted, step, 0, step % 3 == 0 ? 20 : 2);
    EXPECT_EQ(hosted.summary().slowOps, 67u);
    EXPECT_EQ(slowOpFindings(hosted), apart ? 1 : 0) << (apart ? "two hosts" : "one host");
  }
}

TEST(Communication, ExposedCommunicationShareAndOverlap) {
  CommunicationMonitor monitor;
  for (int step = 0; step < 10; ++step) {
    v1::StepSample s;
    s.set_total_ns(100'000'000);
    s.set_comm_wait_ns(40'000'000);
    monitor.add(s);
    v1::AllreduceOp op;
    op.set_bytes(1 << 20);
    op.set_latency_us(80'000);  // 80 ms of all-reduce, of which 40 ms exposed: 50% overlapped
    op.set_busbw_gbps(1);
    monitor.add(op);
  }
  auto summary = monitor.summary();
  EXPECT_NEAR(summary.exposedCommShare, 0.4, 1e-9);
  EXPECT_NEAR(summary.overlapPct, 50, 1e-9);
  auto found = monitor.findings();
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].cause(), "exposed communication");
}

TEST(Replay, AStoredRunGivesTheSameFindingsAsLive) {
  SyntheticRun run;
  run.steps = 120;
  run.slowRank = 6;
  run.slowFrom = 40;
  run.slowCompute = 0.3;
  run.leakRank = 2;
  run.leakMiBPerStep = 3;
  auto records = generate(run).records;
  RunDiagnosis live(run.ranks);
  for (const auto& r : records) live.observe(r);
  auto stored = replay(ringmaster::test::rankSeries(records, run.ranks), {}, {}, run.ranks).findings();
  auto liveFindings = live.findings();
  ASSERT_EQ(stored.size(), liveFindings.size());
  for (size_t i = 0; i < stored.size(); ++i) EXPECT_EQ(stored[i].summary(), liveFindings[i].summary());
  EXPECT_EQ(ofKind(stored, v1::Finding::KIND_STRAGGLER).at(0).rank(), 6);
  EXPECT_EQ(ofKind(stored, v1::Finding::KIND_MEMORY_LEAK).at(0).rank(), 2);
}

namespace {

v1::Record lossAt(int rank, uint64_t step, double loss) {
  v1::Record r;
  r.mutable_step()->set_rank(rank);
  r.mutable_step()->set_step(step);
  r.mutable_step()->set_total_ns(1'000'000);
  r.mutable_step()->set_loss(loss);
  return r;
}

}  // namespace

TEST(Divergence, ALossThatBecomesNaNOnEveryRankIsOneFindingAtItsFirstStep) {
  RunDiagnosis diagnosis(4);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (uint64_t step = 0; step < 12; ++step) {
    for (int rank = 0; rank < 4; ++rank) diagnosis.observe(lossAt(rank, step, step < 7 ? 2.0 + step : nan));
  }
  auto found = ofKind(diagnosis.findings(), v1::Finding::KIND_DIVERGENCE);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].rank(), -1);
  EXPECT_EQ(found[0].since_step(), 7u);
  EXPECT_EQ(found[0].severity(), v1::Finding::SEVERITY_CRITICAL);
  EXPECT_NE(found[0].summary().find("became NaN at step 7 on every rank"), std::string::npos)
      << found[0].summary();
  // What happened is the summary; what to do (lower the learning rate) is the advice.
  EXPECT_NE(found[0].advice().find("learning rate"), std::string::npos) << found[0].advice();
  EXPECT_DOUBLE_EQ(found[0].evidence().at("last_finite_loss"), 8.0);
}

TEST(Divergence, OneRankThatGoesInfiniteIsNamedAndFiniteLossesSayNothing) {
  RunDiagnosis diagnosis(2);
  for (uint64_t step = 0; step < 10; ++step) {
    diagnosis.observe(lossAt(0, step, 1.0 / (step + 1)));
    diagnosis.observe(lossAt(1, step, step >= 4 ? std::numeric_limits<double>::infinity() : 1.0));
  }
  auto found = ofKind(diagnosis.findings(), v1::Finding::KIND_DIVERGENCE);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].rank(), 1);
  EXPECT_NE(found[0].summary().find("became infinite at step 4 on rank 1"), std::string::npos)
      << found[0].summary();

  RunDiagnosis clean(2);
  for (uint64_t step = 0; step < 10; ++step) {
    for (int rank = 0; rank < 2; ++rank) clean.observe(lossAt(rank, step, 1.0 / (step + 1)));
  }
  EXPECT_TRUE(ofKind(clean.findings(), v1::Finding::KIND_DIVERGENCE).empty());
}

namespace {

// A rank's end on host node2; `stoppedByAgent`: the agent stopped it once another rank had failed.
v1::Record rankEndedOnNode2(int rank, v1::RankState::State state, int code, bool stoppedByAgent) {
  v1::Record r = ringmaster::test::rankEnded(rank, state, code, "node2");
  r.mutable_rank_state()->set_stopped_by_agent(stoppedByAgent);
  return r;
}

v1::Record stderrLine(int rank, const std::string& text) {
  v1::Record r;
  r.mutable_log()->set_rank(rank);
  r.mutable_log()->set_stream(v1::LogLine::STREAM_STDERR);
  r.mutable_log()->set_text(text);
  return r;
}

}  // namespace

TEST(Crashes, TheRankThatFailedFirstIsTheFindingNotTheOnesStoppedAfterIt) {
  RunDiagnosis diagnosis(4);
  for (uint64_t step = 0; step < 30; ++step) {
    for (int rank = 0; rank < 4; ++rank) diagnosis.observe(lossAt(rank, step, 1.0));
  }
  diagnosis.observe(stderrLine(1, "terminate called after throwing an instance of 'c10::Error'"));
  diagnosis.observe(rankEndedOnNode2(1, v1::RankState::STATE_SIGNALED, SIGABRT, false));
  diagnosis.observe(rankEndedOnNode2(0, v1::RankState::STATE_SIGNALED, SIGTERM, true));
  diagnosis.observe(rankEndedOnNode2(2, v1::RankState::STATE_EXITED, 1, true));
  auto found = ofKind(diagnosis.findings(), v1::Finding::KIND_CRASH);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].rank(), 1);
  EXPECT_EQ(found[0].since_step(), 30u);
  const std::string& text = found[0].summary();
  EXPECT_NE(text.find("rank 1 (node2) was killed by SIGABRT after step 29"), std::string::npos) << text;
  EXPECT_NE(text.find("c10::Error"), std::string::npos) << text;
  EXPECT_EQ(diagnosis.findings().front().kind(), v1::Finding::KIND_CRASH) << "the crash comes first";
}

TEST(Crashes, AnErrorExitIsAFindingAndACleanEndOrAStopIsNot) {
  RunDiagnosis failedRun(2);
  failedRun.observe(stderrLine(0, "Traceback (most recent call last):"));
  failedRun.observe(stderrLine(0, "RuntimeError: rank 0 cannot go on at step 3"));
  failedRun.observe(rankEndedOnNode2(0, v1::RankState::STATE_EXITED, 1, false));
  auto found = ofKind(failedRun.findings(), v1::Finding::KIND_CRASH);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].summary().find("exited with code 1 before its first step"), std::string::npos)
      << found[0].summary();
  EXPECT_NE(found[0].summary().find("RuntimeError: rank 0 cannot go on"), std::string::npos)
      << found[0].summary();

  RunDiagnosis stopped(2);
  stopped.observe(rankEndedOnNode2(0, v1::RankState::STATE_EXITED, 0, false));
  stopped.observe(rankEndedOnNode2(1, v1::RankState::STATE_SIGNALED, SIGTERM, true));  // the user's Stop
  EXPECT_TRUE(ofKind(stopped.findings(), v1::Finding::KIND_CRASH).empty());
}

// A Horovod script run without Ringmaster's layer where no Horovod is installed: its ranks end with Python's
// ModuleNotFoundError, and the finding's cause says so (the advice is made from it). Any other last line, or
// that line from a rank that did not exit with an error, leaves the cause as it was.
TEST(Crashes, ARankThatFoundNoHorovodToImportIsCausedByHorovodMissing) {
  struct Case {
    const char* lastLine;
    v1::RankState::State state;
    int code;
    const char* cause;
  };
  const Case cases[] = {
      {"ModuleNotFoundError: No module named 'horovod'", v1::RankState::STATE_EXITED, 1, "horovod missing"},
      {"ModuleNotFoundError: No module named 'horovod.torch'", v1::RankState::STATE_EXITED, 1,
       "horovod missing"},
      {"ModuleNotFoundError: No module named 'horovodx'", v1::RankState::STATE_EXITED, 1, "exit code"},
      {"ModuleNotFoundError: No module named 'torchvision'", v1::RankState::STATE_EXITED, 1, "exit code"},
      {"RuntimeError: rank 1 cannot go on at step 3", v1::RankState::STATE_EXITED, 1, "exit code"},
      {"ModuleNotFoundError: No module named 'horovod'", v1::RankState::STATE_SIGNALED, SIGSEGV, "killed"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.lastLine);
    RunDiagnosis diagnosis(2);
    diagnosis.observe(stderrLine(1, "Traceback (most recent call last):"));
    diagnosis.observe(stderrLine(1, "    import horovod.torch as hvd"));
    diagnosis.observe(stderrLine(1, c.lastLine));
    diagnosis.observe(rankEndedOnNode2(1, c.state, c.code, false));
    diagnosis.observe(rankEndedOnNode2(0, v1::RankState::STATE_SIGNALED, SIGTERM, true));
    const auto found = ofKind(diagnosis.findings(), v1::Finding::KIND_CRASH);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].rank(), 1);
    EXPECT_EQ(found[0].cause(), c.cause) << found[0].summary();
    EXPECT_NE(found[0].summary().find(c.lastLine), std::string::npos) << found[0].summary();
  }
  // Only the line the failed rank wrote last counts: an earlier import error it got past does not.
  RunDiagnosis diagnosis(2);
  diagnosis.observe(stderrLine(1, "ModuleNotFoundError: No module named 'horovod'"));
  diagnosis.observe(stderrLine(1, "ValueError: bad batch"));
  diagnosis.observe(rankEndedOnNode2(1, v1::RankState::STATE_EXITED, 1, false));
  const auto found = ofKind(diagnosis.findings(), v1::Finding::KIND_CRASH);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].cause(), "exit code");
}

// A rank whose records stop without its end (a record file with no bye) failed, how is not known: the first
// of them ended the run, and the advice says where to look; a rank that stopped before any step is told too.
TEST(Crashes, ARankLostWithoutItsEndIsAFindingOfItsOwn) {
  RunDiagnosis diagnosis(2);
  for (uint64_t step = 0; step < 12; ++step) {
    for (int rank = 0; rank < 2; ++rank) diagnosis.observe(lossAt(rank, step, 1.0));
  }
  diagnosis.observe(rankEndedOnNode2(1, v1::RankState::STATE_LOST, 0, false));
  diagnosis.observe(rankEndedOnNode2(0, v1::RankState::STATE_LOST, 0, false));
  auto found = ofKind(diagnosis.findings(), v1::Finding::KIND_CRASH);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].rank(), 1);
  EXPECT_EQ(found[0].cause(), "no end");
  EXPECT_EQ(found[0].since_step(), 12u);
  EXPECT_EQ(
      found[0].summary(),
      "rank 1 (node2) stopped after step 11 without recording its end, which ended the run. Rank 0 then "
      "failed as well.");
  EXPECT_NE(found[0].advice().find("`dmesg` on node2"), std::string::npos) << found[0].advice();

  RunDiagnosis early(2);
  early.observe(rankEndedOnNode2(0, v1::RankState::STATE_LOST, 0, false));
  found = ofKind(early.findings(), v1::Finding::KIND_CRASH);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].summary().find("stopped before its first step without recording its end"),
            std::string::npos)
      << found[0].summary();
}

TEST(Stragglers, ARankThatArrivesEarlyAndWaitsLongerInAllReduceIsNoSlowLink) {
  // Rank 0 a little faster: in a synchronous all-reduce it arrives first and waits for the others, so its
  // all-reduce takes longer at less compute. That is the others' lateness, not a slow link on rank 0.
  int communicationFindings = 0;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    SyntheticRun run;
    run.ranks = seed % 2 ? 2 : 4;
    run.seed = seed;
    run.jitter = 0.08;
    run.slowRank = 0;
    run.slowFrom = 20;
    run.slowCompute = -0.04 - 0.01 * double(seed % 5);
    RunDiagnosis diagnosis(run.ranks);
    for (const auto& record : generate(run).records) diagnosis.observe(record);
    for (const auto& f : ofKind(diagnosis.findings(), v1::Finding::KIND_STRAGGLER)) {
      if (f.rank() == 0 && f.cause() == "communication") {
        ++communicationFindings;
        ADD_FAILURE() << "seed " << seed << ": " << f.summary();
      }
    }
  }
  EXPECT_EQ(communicationFindings, 0);
}
