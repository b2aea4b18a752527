// SPDX-License-Identifier: GPL-3.0-or-later
#include "diagnosis/comparison.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <utility>

#include "tests/support/diagnosis_synthetic.h"

using namespace ringmaster;
using ringmaster::test::metricsOf;
using ringmaster::test::SyntheticRun;

TEST(Comparison, MetricsOfARun) {
  SyntheticRun run;
  run.ranks = 4;
  run.steps = 100;
  run.jitter = 0;
  run.rankBias = 0;
  run.jobJitter = 0;
  run.spikeChance = 0;
  run.dataHiccupChance = 0;
  auto m = metricsOf(run, 1, "flat");
  EXPECT_EQ(m.ranks, 4);
  EXPECT_EQ(m.steps, 100u);
  EXPECT_NEAR(m.phases.forwardMs, 20, 0.01);
  EXPECT_NEAR(m.phases.backwardMs, 40, 0.01);
  EXPECT_NEAR(m.stepP50Ms, m.phases.totalMs, 1);
  // 4 ranks x 64 samples per step over the step time.
  EXPECT_NEAR(m.throughput, 4 * 64 / (m.stepMeanMs / 1e3), 1);
  EXPECT_GT(m.busbwGbps, 0);
  EXPECT_NEAR(m.peakRssMiB, 2000, 20);
}

namespace {

// Run 1 (ddp) and run 2 (horovod), whose forward and backward passes take 15 % longer, 200 steps each.
std::pair<RunMetrics, RunMetrics> aRunAndASlowerOne() {
  SyntheticRun fast;
  fast.steps = 200;
  SyntheticRun slow = fast;
  slow.seed = 2;
  slow.forwardMs *= 1.15;
  slow.backwardMs *= 1.15;
  return {metricsOf(fast, 1, "ddp"), metricsOf(slow, 2, "horovod")};
}

}  // namespace

TEST(Comparison, ASlowerRunIsSlowerWithAConfidenceInterval) {
  auto [a, b] = aRunAndASlowerOne();
  auto c = compareRuns(a, b);
  const auto& step = c.deltas.at(1);
  ASSERT_EQ(step.metric, "step time mean");
  ASSERT_TRUE(step.interval);
  EXPECT_GT(step.interval->lower, 0.05);
  EXPECT_LT(step.interval->upper, 0.20);
  EXPECT_NE(toText(c.verdict).find("run 2 (horovod) is"), std::string::npos) << toText(c.verdict);
  EXPECT_NE(toText(c.verdict).find("slower than run 1 (ddp)"), std::string::npos) << toText(c.verdict);
  EXPECT_LT(c.deltas.at(0).relative, 0);  // throughput dropped

  auto reverse = compareRuns(b, a);
  EXPECT_NE(toText(reverse.verdict).find("faster"), std::string::npos) << toText(reverse.verdict);
}

// Every row measured over steps or ops has its interval: the phases from the job's steps, the p95 from its
// step times, busbw and latency from every op. A slower forward and backward are found slower there too.
TEST(Comparison, EveryRowMeasuredOverStepsOrOpsHasAnInterval) {
  const auto [fast, slow] = aRunAndASlowerOne();
  const auto c = compareRuns(fast, slow);
  for (const char* metric :
       {"throughput", "step time mean", "step time p50", "step time p95", "data wait", "forward", "backward",
        "exposed comm wait", "optimizer", "all-reduce busbw", "all-reduce latency p50"}) {
    const auto d =
        std::find_if(c.deltas.begin(), c.deltas.end(), [&](const auto& x) { return x.metric == metric; });
    ASSERT_NE(d, c.deltas.end()) << metric;
    EXPECT_TRUE(d->interval) << metric;
    if (d->interval) {
      EXPECT_LE(d->interval->lower, d->interval->upper) << metric;
    }
  }
  for (const char* slower : {"forward", "backward"}) {
    const auto d =
        std::find_if(c.deltas.begin(), c.deltas.end(), [&](const auto& x) { return x.metric == slower; });
    EXPECT_EQ(d->verdict(), -1) << slower << " " << d->interval->lower << " .. " << d->interval->upper;
    EXPECT_NEAR(d->relative, 0.15, 0.03) << slower;
  }
}

// Figures read in plain decimals with four significant digits, never as 1.138e+04.
TEST(Comparison, FiguresAreWrittenWithoutExponents) {
  EXPECT_EQ(figureText(11384.2), "11384");
  EXPECT_EQ(figureText(113.84), "113.8");
  EXPECT_EQ(figureText(1.13842), "1.138");
  EXPECT_EQ(figureText(0.0113842), "0.01138");
  EXPECT_EQ(figureText(-2.5), "-2.500");
  EXPECT_EQ(figureText(0), "0");
  EXPECT_EQ(figureText(std::nan("")), "-");
  EXPECT_EQ(figureText(3.2e7), "32000000");
  EXPECT_EQ(figureText(2), "2");
}

TEST(Comparison, TheSameJobTwiceIsNotSignificantlyDifferent) {
  SyntheticRun one;
  one.steps = 200;
  SyntheticRun two = one;
  two.seed = 99;
  auto c = compareRuns(metricsOf(one, 1, "a"), metricsOf(two, 2, "b"));
  EXPECT_NE(toText(c.verdict).find("no significant difference"), std::string::npos) << toText(c.verdict);
}

TEST(Comparison, ScalingEfficiencyAgainstABaseline) {
  RunMetrics one, eight;
  one.ranks = 1;
  one.throughput = 1000;
  eight.ranks = 8;
  eight.throughput = 6000;
  EXPECT_DOUBLE_EQ(scalingEfficiency(eight, one), 0.75);
  one.info.id = 1;
  eight.info.id = 3;
  // Whichever run comes first, the one with more ranks is judged against the one with fewer.
  for (const auto& f : {scalingFinding(eight, one), scalingFinding(one, eight)}) {
    EXPECT_EQ(f.kind(), v1::Finding::KIND_SCALING);
    EXPECT_DOUBLE_EQ(f.evidence().at("efficiency_pct"), 75);
    EXPECT_NE(f.summary().find(
                  "run 3 on 8 ranks reaches 6000 samples/s, where linear scaling from run 1 on 1 would "
                  "give 8000"),
              std::string::npos)
        << f.summary();
  }
}

TEST(Comparison, RunsOfDifferentRankCountsAreJudgedOnThroughput) {
  // Four ranks take longer per step than two but do twice the work: 1.6x the throughput, not "slower".
  SyntheticRun two;
  two.ranks = 2;
  two.steps = 200;
  SyntheticRun four = two;
  four.ranks = 4;
  four.seed = 5;
  four.forwardMs *= 1.25;
  four.backwardMs *= 1.25;
  auto c = compareRuns(metricsOf(two, 1, "two"), metricsOf(four, 2, "four"));
  EXPECT_NE(toText(c.verdict).find("run 2 (four) on 4 ranks has"), std::string::npos) << toText(c.verdict);
  EXPECT_NE(toText(c.verdict).find("higher throughput than run 1 (two) on 2"), std::string::npos)
      << toText(c.verdict);
  EXPECT_EQ(toText(c.verdict).find("slower"), std::string::npos) << toText(c.verdict);
}

TEST(Comparison, AChangeFromZeroIsADifferenceNotAPercentage) {
  SyntheticRun run;
  run.steps = 100;
  RunMetrics clean = metricsOf(run, 1, "clean");
  RunMetrics found = clean;
  found.findings.resize(1);
  const auto findings = compareRuns(clean, found).deltas.back();
  ASSERT_EQ(findings.metric, "findings");
  EXPECT_EQ(findings.changeText(), "+1 (from 0)");
  EXPECT_EQ(findings.verdict(), 0);
}

TEST(Comparison, WhatARunDidNotMeasureIsSaidNotShownAsMinusAHundredPercent) {
  SyntheticRun live;
  live.steps = 100;
  const RunMetrics measured = metricsOf(live, 1, "live");
  RunMetrics imported;  // a trace with no step samples, all-reduce ops or memory: only findings
  imported.info.id = 2;
  imported.info.name = "imported";
  auto c = compareRuns(measured, imported);
  int notMeasured = 0;
  for (const auto& d : c.deltas) {
    if (d.metric == "findings") {
      EXPECT_TRUE(isEmpty(d.missing));
      continue;
    }
    ++notMeasured;
    EXPECT_TRUE(std::isnan(d.relative)) << d.metric << " shows a change of " << d.relative;
    EXPECT_FALSE(d.interval) << d.metric;
    EXPECT_EQ(d.verdict(), 0) << d.metric << " is coloured";
    EXPECT_NE(toText(d.missing).find("run 2 (imported) has no"), std::string::npos)
        << d.metric << ": " << toText(d.missing);
  }
  EXPECT_EQ(notMeasured, 16);
  EXPECT_NE(toText(c.verdict).find("run 2 (imported) has no step samples"), std::string::npos)
      << toText(c.verdict);
  EXPECT_EQ(toText(c.verdict).find("faster"), std::string::npos) << toText(c.verdict);

  auto neither = compareRuns(imported, imported);
  EXPECT_EQ(toText(neither.deltas.front().missing), "neither run has step samples");
}

TEST(Comparison, ADifferenceWithoutAConfidenceIntervalIsNeitherBetterNorWorse) {
  SyntheticRun fast;
  fast.steps = 200;
  SyntheticRun slow = fast;
  slow.seed = 2;
  slow.forwardMs *= 1.5;
  slow.backwardMs *= 1.5;
  auto c = compareRuns(metricsOf(fast, 1, "a"), metricsOf(slow, 2, "b"));
  for (const auto& d : c.deltas) {
    if (!d.interval) {
      EXPECT_EQ(d.verdict(), 0) << d.metric << " is coloured without an interval";
    }
  }
  ASSERT_TRUE(c.deltas.at(1).interval);
  EXPECT_EQ(c.deltas.at(1).verdict(), -1) << "a step time 50 % longer for sure is worse";
}

TEST(Comparison, AProfilerTraceWithoutBatchSizesHasStepTimesButNoThroughput) {
  SyntheticRun run;
  run.steps = 100;
  const RunMetrics live = metricsOf(run, 1, "live");
  RunMetrics trace = metricsOf(run, 2, "trace");
  trace.throughput = 0;  // what an imported profiler trace holds: steps, but no samples per step
  std::fill(trace.stepThroughput.begin(), trace.stepThroughput.end(), 0.0);
  const auto c = compareRuns(live, trace);
  EXPECT_EQ(c.deltas.at(0).metric, "throughput");
  EXPECT_NE(toText(c.deltas.at(0).missing).find("run 2 (trace) has no sample counts"), std::string::npos)
      << toText(c.deltas.at(0).missing);
  EXPECT_TRUE(isEmpty(c.deltas.at(1).missing)) << "step times are still compared";
}

namespace {

// Two ranks, `steps` steps of `stepMs` whose loss falls from 2 by 0.05 a step, `ops` all-reduces of `bytes`
// each per rank and step.
std::vector<RankSeries> stepsWithLoss(int steps, double stepMs, int ops, uint64_t bytes, double commMs) {
  std::vector<RankSeries> series(2);
  for (int r = 0; r < 2; ++r) {
    series[r].rank = r;
    for (int s = 0; s < steps; ++s) {
      v1::StepSample step;
      step.set_rank(r);
      step.set_step(s);
      step.set_total_ns(static_cast<uint64_t>(stepMs * 1e6));
      step.set_forward_ns(static_cast<uint64_t>((stepMs - commMs) * 1e6));
      step.set_comm_wait_ns(static_cast<uint64_t>((commMs + 0.1 * (s % 3)) * 1e6));
      step.set_samples(32);
      step.set_loss(2.0 - 0.05 * s + 0.01 * r);
      series[r].steps.push_back(step);
      for (int k = 0; k < ops; ++k) {
        v1::AllreduceOp op;
        op.set_rank(r);
        op.set_step(s);
        op.set_bucket(k);
        op.set_bytes(bytes);
        op.set_latency_us(1000);
        op.set_busbw_gbps(1);
        series[r].allreduce.push_back(op);
      }
    }
  }
  return series;
}

}  // namespace

TEST(Comparison, AllReduceCountAndSizeAndTheTimeToALossBothRunsReached) {
  RunInfo a, b;
  a.id = 1;
  b.id = 2;
  std::vector<RankInfo> ranks(2);
  ranks[1].rank = 1;
  // The same losses step by step; the other run takes twice as long a step, in half as many all-reduces.
  auto base = computeMetrics(a, stepsWithLoss(30, 10, 2, 1 << 20, 2), ranks, {});
  auto other = computeMetrics(b, stepsWithLoss(30, 20, 1, 2 << 20, 4), ranks, {});
  EXPECT_DOUBLE_EQ(base.allreducesPerStep, 2);
  EXPECT_DOUBLE_EQ(base.allreduceBytesPerStep, 2);
  EXPECT_DOUBLE_EQ(other.allreducesPerStep, 1);
  // The ranks' mean loss at step s is 2.005 - 0.05 s; its mean over steps 6..15 is the first at or under 1.5
  // (1.48): 16 steps of 10 ms.
  ASSERT_TRUE(timeToLossMs(base, 1.5));
  EXPECT_NEAR(*timeToLossMs(base, 1.5), 160, 1e-6);
  EXPECT_FALSE(timeToLossMs(base, 0.1)) << "a loss the run never reached has no time";

  auto c = compareRuns(base, other);
  auto find = [&](const std::string& prefix) {
    auto it = std::find_if(c.deltas.begin(), c.deltas.end(),
                           [&](const MetricDelta& d) { return d.metric.rfind(prefix, 0) == 0; });
    EXPECT_NE(it, c.deltas.end()) << prefix;
    return it == c.deltas.end() ? MetricDelta{} : *it;
  };
  EXPECT_NEAR(find("all-reduces").relative, -0.5, 1e-9);
  EXPECT_NEAR(find("all-reduced").relative, 0, 1e-9);
  const MetricDelta toLoss = find("time to loss");
  EXPECT_NEAR(toLoss.relative, 1.0, 1e-9) << "the same losses at twice the step time";
  EXPECT_EQ(toLoss.unit, "s");
  const MetricDelta wait = find("exposed comm wait");
  ASSERT_TRUE(wait.interval) << "the per-step waits give an interval";
  EXPECT_GT(wait.interval->lower, 0.5);
}
