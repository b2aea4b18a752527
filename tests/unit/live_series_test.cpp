// SPDX-License-Identifier: GPL-3.0-or-later
#include "console/models/live_series.h"

#include <gtest/gtest.h>

#include <cmath>

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
  const std::vector<float> cells = live.computeHeatmap(PixelGrid{0, 8, 4});  // two steps per column
  ASSERT_EQ(cells.size(), 8u);
  for (int c = 0; c < 4; ++c) EXPECT_FLOAT_EQ(cells[c], 20.0f);
  EXPECT_FLOAT_EQ(cells[4 + 0], 40.0f);
  EXPECT_FLOAT_EQ(cells[4 + 2], 100.0f);  // steps 4 and 5
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

}  // namespace ringmaster::console
