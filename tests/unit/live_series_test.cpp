// SPDX-License-Identifier: GPL-3.0-or-later
#include "console/models/live_series.h"

#include <gtest/gtest.h>

#include <cmath>

#include "common/quantiles.h"
#include "console/models/run_data.h"
#include "history/run_store.h"
#include "tests/support/temp_dir.h"

namespace ringmaster::console {
namespace {

v1::StepSample step(int rank, uint64_t index, int64_t forwardMs, int64_t backwardMs, uint32_t samples = 64) {
  v1::StepSample s;
  s.set_rank(rank);
  s.set_step(index);
  s.set_data_ns(1'000'000);
  s.set_forward_ns(forwardMs * 1'000'000);
  s.set_backward_ns(backwardMs * 1'000'000);
  s.set_comm_wait_ns(2'000'000);
  s.set_optimizer_ns(500'000);
  s.set_total_ns(100'000'000);  // 0.1 s
  s.set_samples(samples);
  s.set_loss(rank + 1.0);
  return s;
}

v1::AllreduceOp op(int rank, uint64_t index, uint32_t bucket, double latencyUs, double busbw) {
  v1::AllreduceOp o;
  o.set_rank(rank);
  o.set_step(index);
  o.set_bucket(bucket);
  o.set_latency_us(latencyUs);
  o.set_bytes(1 << 20);
  o.set_busbw_gbps(busbw);
  return o;
}

TEST(LiveSeries, ThroughputPerRankAndTotal) {
  LiveSeries live;
  live.ingest(step(0, 0, 10, 20, 64));
  live.ingest(step(1, 0, 10, 20, 32));
  EXPECT_EQ(live.rankCount(), 2);
  EXPECT_EQ(live.endStep(), 1u);
  EXPECT_FLOAT_EQ(live.rank(0, RankMetric::Throughput).at(0), 640);  // 64 samples in 0.1 s
  EXPECT_FLOAT_EQ(live.rank(1, RankMetric::Throughput).at(0), 320);
  EXPECT_FLOAT_EQ(live.totalThroughput().at(0), 960);
  EXPECT_FLOAT_EQ(live.loss().at(0), 1.5f);  // mean of the ranks' losses 1 and 2
  // The same step reported again replaces its share rather than adding to it.
  live.ingest(step(1, 0, 10, 20, 64));
  EXPECT_FLOAT_EQ(live.totalThroughput().at(0), 1280);
}

TEST(LiveSeries, PhaseMeansOverARange) {
  LiveSeries live;
  for (uint64_t i = 0; i < 10; ++i) live.ingest(step(0, i, static_cast<int64_t>(i), 20));
  const std::vector<double> means = live.phaseMeans(0, 2, 6);  // steps 2..5
  ASSERT_EQ(means.size(), 5u);
  EXPECT_DOUBLE_EQ(means[0], 1.0);  // data
  EXPECT_DOUBLE_EQ(means[1], 3.5);  // forward: (2+3+4+5)/4
  EXPECT_DOUBLE_EQ(means[2], 20.0);
  EXPECT_DOUBLE_EQ(means[3], 2.0);
  EXPECT_DOUBLE_EQ(means[4], 0.5);
}

TEST(LiveSeries, AllreduceMeansPerRankStepAndBucket) {
  LiveSeries live;
  live.ingest(op(0, 4, 0, 1000, 2.0));
  live.ingest(op(0, 4, 1, 3000, 4.0));
  live.ingest(op(1, 4, 0, 5000, 6.0));
  EXPECT_FLOAT_EQ(live.rank(0, RankMetric::AllreduceLatencyMs).at(4), 2.0f);  // (1 + 3) / 2 ms
  EXPECT_FLOAT_EQ(live.rank(0, RankMetric::AllreduceBusbwGbps).at(4), 3.0f);
  EXPECT_FLOAT_EQ(live.rank(1, RankMetric::AllreduceLatencyMs).at(4), 5.0f);
  EXPECT_EQ(live.buckets(), (std::vector<uint32_t>{0, 1}));
  EXPECT_FLOAT_EQ(live.bucketLatency(0).at(4), 3.0f);  // ranks 0 and 1: (1 + 5) / 2 ms
  EXPECT_FLOAT_EQ(live.bucketBusbw(0).at(4), 4.0f);
  EXPECT_FLOAT_EQ(live.bucketLatency(1).at(4), 3.0f);
  // The next step starts a fresh mean.
  live.ingest(op(0, 5, 0, 7000, 1.0));
  EXPECT_FLOAT_EQ(live.rank(0, RankMetric::AllreduceLatencyMs).at(5), 7.0f);
}

TEST(LiveSeries, MemoryInMiBAndHostLimit) {
  LiveSeries live;
  v1::MemorySample m;
  m.set_rank(2);
  m.set_step(3);
  m.set_rss_bytes(512ull * 1024 * 1024);
  m.set_host_total_bytes(8ull << 30);
  live.ingest(m);
  EXPECT_EQ(live.rankCount(), 3);
  EXPECT_FLOAT_EQ(live.rank(2, RankMetric::RssMb).at(3), 512.0f);
  EXPECT_EQ(live.hostMemoryBytes(2), 8ull << 30);
  EXPECT_EQ(live.hostMemoryBytes(0), 0u);
}

TEST(LiveSeries, HeatmapShowsTheSlowestStepOfEachColumn) {
  LiveSeries live;
  for (uint64_t i = 0; i < 8; ++i) {
    live.ingest(step(0, i, 10, 10));
    live.ingest(step(1, i, 10, i == 5 ? 90 : 30));  // rank 1 is slower, with a spike at step 5
  }
  std::vector<float> cells;
  const PixelGrid grid{0, 10, 5};  // two steps per column
  EXPECT_EQ(live.updateHeatmap(grid, cells, true), 0);
  ASSERT_EQ(cells.size(), 10u);
  for (int c = 0; c < 4; ++c) EXPECT_FLOAT_EQ(cells[c], 20.0f);
  EXPECT_TRUE(std::isnan(cells[4])) << "no step 8 or 9 yet";
  EXPECT_FLOAT_EQ(cells[5 + 0], 40.0f);
  EXPECT_FLOAT_EQ(cells[5 + 2], 100.0f);  // steps 4 and 5

  // Nothing new: nothing filled again. A new step fills its column, and only from there.
  EXPECT_EQ(live.updateHeatmap(grid, cells, false), 5);
  live.ingest(step(1, 8, 10, 70));
  EXPECT_EQ(live.updateHeatmap(grid, cells, false), 4);
  EXPECT_FLOAT_EQ(cells[5 + 4], 80.0f);
  EXPECT_TRUE(std::isnan(cells[4])) << "rank 0 has no step 8";
  EXPECT_FLOAT_EQ(cells[5 + 2], 100.0f) << "columns before the change are kept";
  // A step replaced in the middle fills again from its column on.
  live.ingest(step(0, 2, 10, 50));
  EXPECT_EQ(live.updateHeatmap(grid, cells, false), 1);
  EXPECT_FLOAT_EQ(cells[1], 60.0f);
  EXPECT_FLOAT_EQ(cells[5 + 4], 80.0f);
}

TEST(LiveSeries, IgnoresRecordsWithImpossibleRanks) {
  LiveSeries live;
  live.ingest(step(-1, 0, 1, 1));
  live.ingest(step(1 << 20, 0, 1, 1));
  EXPECT_EQ(live.rankCount(), 0);
}

// A step number no job reaches (a damaged trace imported before imports refused it, a rank's bad record)
// would have every series allocate up to it: such records are passed over, the others kept.
TEST(LiveSeries, IgnoresRecordsWithImpossibleSteps) {
  LiveSeries live;
  live.ingest(step(0, 3, 10, 20));
  v1::MemorySample memory;
  memory.set_step(UINT64_MAX);
  memory.set_rss_bytes(1 << 20);
  for (uint64_t absurd : {UINT64_MAX, uint64_t{1} << 50}) {
    EXPECT_NO_THROW(live.ingest(step(0, absurd, 10, 20)));
    EXPECT_NO_THROW(live.ingest(op(0, absurd, 0, 100, 1)));
    memory.set_step(absurd);
    EXPECT_NO_THROW(live.ingest(memory));
  }
  EXPECT_EQ(live.endStep(), 4u);
  EXPECT_EQ(live.rank(0, RankMetric::StepMs).count(), 1);
  EXPECT_LT(live.rank(0, RankMetric::RssMb).bytesHeld(), size_t{1} << 20);
}

}  // namespace
// What an imported trace does not hold is not drawn as 0: no sample count, no throughput; an op with no size,
// no bandwidth; an op with no time, neither.
TEST(LiveSeries, WhatARecordDoesNotHoldIsNotMeasured) {
  LiveSeries live;
  live.ingest(step(0, 1, 10, 20, 0));
  EXPECT_EQ(live.rank(0, RankMetric::Throughput).count(), 0);
  EXPECT_EQ(live.totalThroughput().count(), 0);
  EXPECT_EQ(live.rank(0, RankMetric::ForwardMs).count(), 1);
  v1::AllreduceOp unsized = op(0, 1, 0, 1500, 0);
  unsized.clear_bytes();
  live.ingest(unsized);
  EXPECT_FLOAT_EQ(live.rank(0, RankMetric::AllreduceLatencyMs).at(1), 1.5f);
  EXPECT_EQ(live.rank(0, RankMetric::AllreduceBusbwGbps).count(), 0);
  live.ingest(op(0, 2, 0, 0, 0));
  EXPECT_EQ(live.rank(0, RankMetric::AllreduceLatencyMs).count(), 1);
  EXPECT_EQ(live.endStep(), 3u);
}

// How a metric spreads across ranks: each step's lowest, quartiles, median and highest, as stats::quantile
// gives them from that step's values; a value replaced later moves its step's spread.
TEST(LiveSeries, TheSpreadAcrossRanksIsEachStepsQuantiles) {
  LiveSeries live;
  constexpr int kRanks = 40;
  auto value = [](int rank, uint64_t s) { return int64_t((rank * 7 + int(s) * 3) % 23 + 1); };
  for (uint64_t s = 0; s < 30; ++s) {
    for (int r = 0; r < kRanks; ++r) {
      if (r == 5 && s == 12) continue;  // a step one rank never reported
      live.ingest(step(r, s, value(r, s), 10));
    }
  }
  auto check = [&](uint64_t s) {
    std::vector<double> computes;
    for (int r = 0; r < kRanks; ++r) {
      const float v = live.rank(r, RankMetric::ComputeMs).at(s);
      if (!std::isnan(v)) computes.push_back(v);
    }
    RankSpread& spread = live.spread(RankMetric::ComputeMs);
    const RankSpread::Quantile quantiles[] = {RankSpread::Lowest, RankSpread::LowerQuartile,
                                              RankSpread::Median, RankSpread::UpperQuartile,
                                              RankSpread::Highest};
    for (int q = 0; q < RankSpread::kQuantiles; ++q) {
      EXPECT_NEAR(spread[quantiles[q]].at(s), stats::quantile(computes, RankSpread::kFractions[size_t(q)]),
                  1e-4)
          << "step " << s << ", quantile " << q;
    }
  };
  for (uint64_t s = 0; s < 30; ++s) check(s);
  live.ingest(step(3, 12, 500, 10));  // a rank's step replaced: the highest there now
  EXPECT_FLOAT_EQ(live.spread(RankMetric::ComputeMs)[RankSpread::Highest].at(12), 510.0f);
  check(12);
  EXPECT_TRUE(std::isnan(live.spread(RankMetric::ComputeMs)[RankSpread::Median].at(30))) << "no step 30";
}

// With many ranks the charted metrics' spreads are computed as steps arrive, from the ranks' whole steps:
// long after those steps were summarised in the ranks' own series, their spread is still exact.
TEST(LiveSeries, ManyRanksSpreadsStayExactAfterTheRanksStepsAreSummarised) {
  LiveSeries live;
  const int ranks = kRanksDrawnOneByOne + 4;
  const uint64_t steps = StepSeries::kChunkSize * (StepSeries::kFullChunks + 2);
  auto rssMib = [](int rank, uint64_t s) { return uint64_t(100 + 10 * rank + (s % 2 ? 40 : 0)); };
  for (uint64_t s = 0; s < steps; ++s) {
    for (int r = 0; r < ranks; ++r) {
      v1::MemorySample m;
      m.set_rank(r);
      m.set_step(s);
      m.set_rss_bytes(rssMib(r, s) << 20);
      live.ingest(m);
    }
  }
  const StepSeries& rank0 = live.rank(0, RankMetric::RssMb);
  ASSERT_GT(rank0.summarisedEnd(), 100u);
  ASSERT_FLOAT_EQ(rank0.at(7), 120.0f) << "rank 0's own series holds only its blocks' mean there";
  // The spread is summarised in its turn, from the steps' exact figures: its extremes are the steps' own.
  RankSpread& spread = live.spread(RankMetric::RssMb);
  const auto lowest = spread[RankSpread::Lowest].extent(0, 64);
  EXPECT_FLOAT_EQ(lowest.min, float(rssMib(0, 0)));
  EXPECT_FLOAT_EQ(lowest.max, float(rssMib(0, 1)));
  const auto highest = spread[RankSpread::Highest].extent(0, 64);
  EXPECT_FLOAT_EQ(highest.min, float(rssMib(ranks - 1, 0)));
  EXPECT_FLOAT_EQ(highest.max, float(rssMib(ranks - 1, 1)));
  EXPECT_FLOAT_EQ(spread[RankSpread::Highest].at(steps - 1), float(rssMib(ranks - 1, steps - 1)));
}

// A stored run reopened: its ranks' records go into the series together, as a live run's arrive, so that the
// spread of its early steps, summarised long since in every rank's own series, is every rank's spread.
TEST(LiveSeries, AReopenedRunOfManyRanksHasEveryRanksSpreadOverItsEarlySteps) {
  test::TempDir dir("spread-load");
  RunStore store(dir.file("runs.sqlite"));
  const int64_t run = store.createRun(NewRun{});
  const int ranks = kRanksDrawnOneByOne + 4;
  const uint64_t steps = StepSeries::kChunkSize * (StepSeries::kFullChunks + 1);
  auto rssMib = [](int rank, uint64_t s) { return uint64_t(100 + 10 * rank + (s % 2 ? 40 : 0)); };
  for (uint64_t first = 0; first < steps; first += 1024) {
    std::vector<v1::Record> records;
    for (int r = 0; r < ranks; ++r) {
      for (uint64_t s = first; s < first + 1024; ++s) {
        v1::MemorySample& m = *records.emplace_back().mutable_memory();
        m.set_rank(r);
        m.set_step(s);
        m.set_rss_bytes(rssMib(r, s) << 20);
      }
    }
    store.append(run, records);
  }
  RunData data = loadRun(store, run);
  ASSERT_EQ(data.series.rankCount(), ranks);
  ASSERT_GT(data.series.rank(ranks - 1, RankMetric::RssMb).summarisedEnd(), 64u);
  RankSpread& spread = data.series.spread(RankMetric::RssMb);
  const auto highest = spread[RankSpread::Highest].extent(0, 64);
  EXPECT_FLOAT_EQ(highest.min, float(rssMib(ranks - 1, 0))) << "the last rank's steps are in the spread";
  EXPECT_FLOAT_EQ(highest.max, float(rssMib(ranks - 1, 1)));
  const auto lowest = spread[RankSpread::Lowest].extent(0, 64);
  EXPECT_FLOAT_EQ(lowest.min, float(rssMib(0, 0)));
  EXPECT_FLOAT_EQ(spread[RankSpread::Median].at(steps - 2), float(stats::quantile(
                                                                [&] {
                                                                  std::vector<double> v;
                                                                  for (int r = 0; r < ranks; ++r)
                                                                    v.push_back(double(rssMib(r, steps - 2)));
                                                                  return v;
                                                                }(),
                                                                0.5)));
}

}  // namespace ringmaster::console
