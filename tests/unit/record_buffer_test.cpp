// SPDX-License-Identifier: GPL-3.0-or-later
// The rank-side telemetry buffer: bounded, drained oldest first, never blocking, and waking the sender early.
#include "worker/record_buffer.h"

#include <gtest/gtest.h>

#include "worker/probe.h"

namespace ringmaster::worker {
namespace {

v1::Record stepRecord(uint64_t step) {
  v1::Record r;
  r.mutable_step()->set_step(step);
  return r;
}

std::vector<uint64_t> stepsOf(const Records& records) {
  std::vector<uint64_t> steps;
  for (const auto& r : records) steps.push_back(r.step().step());
  return steps;
}

TEST(RecordBuffer, DrainsOldestFirstUpToMax) {
  RecordBuffer buffer(100);
  for (uint64_t s = 0; s < 10; ++s) ASSERT_TRUE(buffer.push(stepRecord(s)));
  EXPECT_EQ(stepsOf(buffer.drain(4)), (std::vector<uint64_t>{0, 1, 2, 3}));
  EXPECT_EQ(stepsOf(buffer.drain(100)), (std::vector<uint64_t>{4, 5, 6, 7, 8, 9}));
  EXPECT_TRUE(buffer.drain(100).empty());
  EXPECT_EQ(buffer.pushed(), 10u);
  EXPECT_EQ(buffer.dropped(), 0u);
}

TEST(RecordBuffer, DropsAndCountsWhenFull) {
  RecordBuffer buffer(3);
  for (uint64_t s = 0; s < 5; ++s) buffer.push(stepRecord(s));
  EXPECT_EQ(buffer.pushed(), 3u);
  EXPECT_EQ(buffer.dropped(), 2u);
  EXPECT_EQ(stepsOf(buffer.drain(10)), (std::vector<uint64_t>{0, 1, 2}));
  buffer.countDropped(7);
  EXPECT_EQ(buffer.dropped(), 9u);
}

TEST(RecordBuffer, ReusedFieldCarriesNoOldRecords) {
  RecordBuffer buffer(100);
  Records out;
  for (uint64_t s = 0; s < 5; ++s) buffer.push(stepRecord(s));
  buffer.drainInto(out, 100);
  ASSERT_EQ(out.size(), 5);
  // `out` goes back to the buffer cleared; what comes out next is only what was pushed since.
  buffer.push(stepRecord(7));
  buffer.drainInto(out, 100);
  EXPECT_EQ(stepsOf(out), (std::vector<uint64_t>{7}));
  for (uint64_t s = 10; s < 13; ++s) buffer.push(stepRecord(s));
  buffer.drainInto(out, 2);
  EXPECT_EQ(stepsOf(out), (std::vector<uint64_t>{10, 11}));
  buffer.drainInto(out, 2);
  EXPECT_EQ(stepsOf(out), (std::vector<uint64_t>{12}));
}

TEST(RecordBuffer, WakesOnceEachTimeItFillsToHighWater) {
  RecordBuffer buffer(100);
  int wakes = 0;
  buffer.setHighWater(4, [&] { ++wakes; });
  for (uint64_t s = 0; s < 6; ++s) buffer.push(stepRecord(s));
  EXPECT_EQ(wakes, 1);
  buffer.drain(100);
  for (uint64_t s = 0; s < 4; ++s) buffer.push(stepRecord(s));
  EXPECT_EQ(wakes, 2);
  buffer.setHighWater(0, nullptr);
  buffer.drain(100);
  for (uint64_t s = 0; s < 8; ++s) buffer.push(stepRecord(s));
  EXPECT_EQ(wakes, 2);
}

TEST(Probe, StampsRankAndDerivesBandwidth) {
  Probe probe(3, 4);
  v1::AllreduceOp op;
  op.set_bytes(1000000000);
  op.set_start_ns(0);
  op.set_end_ns(500000000);  // 1 GB in 0.5 s
  probe.allreduce(std::move(op));
  auto records = probe.buffer().drain(10);
  ASSERT_EQ(records.size(), 1);
  const auto& r = records[0].allreduce();
  EXPECT_EQ(r.rank(), 3);
  EXPECT_DOUBLE_EQ(r.latency_us(), 500000.0);
  EXPECT_DOUBLE_EQ(r.algbw_gbps(), 2.0);
  EXPECT_DOUBLE_EQ(r.busbw_gbps(), 2.0 * 2.0 * 3 / 4);
}

}  // namespace
}  // namespace ringmaster::worker
