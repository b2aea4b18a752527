// SPDX-License-Identifier: GPL-3.0-or-later
#include <gtest/gtest.h>

#include "ringmaster/v1/agent.pb.h"
#include "ringmaster/v1/records.pb.h"

namespace v1 = ringmaster::v1;

TEST(Protocol, RecordBatchRoundTripsThroughTheWireFormat) {
  v1::RecordBatch batch;
  auto* step = batch.add_records()->mutable_step();
  step->set_rank(3);
  step->set_step(42);
  step->set_backward_ns(1'234'567);
  step->set_loss(0.25);
  auto* op = batch.add_records()->mutable_allreduce();
  op->set_bytes(uint64_t{1} << 33);  // beyond 32 bits on purpose
  op->set_busbw_gbps(11.5);
  auto* event = batch.add_records()->mutable_timeline();
  event->set_name("NEGOTIATE_ALLREDUCE");
  (*event->mutable_args())["ready_rank_1"] = "123";

  std::string wire;
  ASSERT_TRUE(batch.SerializeToString(&wire));
  v1::RecordBatch back;
  ASSERT_TRUE(back.ParseFromString(wire));
  ASSERT_EQ(back.records_size(), 3);
  EXPECT_EQ(back.records(0).body_case(), v1::Record::kStep);
  EXPECT_EQ(back.records(0).step().rank(), 3);
  EXPECT_EQ(back.records(0).step().step(), 42u);
  EXPECT_EQ(back.records(0).step().backward_ns(), 1'234'567);
  EXPECT_DOUBLE_EQ(back.records(0).step().loss(), 0.25);
  EXPECT_EQ(back.records(1).allreduce().bytes(), uint64_t{1} << 33);
  EXPECT_EQ(back.records(2).timeline().args().at("ready_rank_1"), "123");
}

TEST(Protocol, TruncatedWireDataIsRejected) {
  v1::LaunchRequest request;
  request.set_job_id("job-1");
  request.mutable_spec()->set_name("a job with a long enough name to cut");
  std::string wire = request.SerializeAsString();
  v1::LaunchRequest back;
  EXPECT_FALSE(back.ParseFromString(wire.substr(0, wire.size() - 5)));
}
