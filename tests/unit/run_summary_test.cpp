// SPDX-License-Identifier: GPL-3.0-or-later
// The --summary-json document of a run whose ranks restarted from a checkpoint: each step counted once, the
// repeats counted apart, the phase means over every step run and the memory slope the last attempt's.
#include "console/session/run_summary.h"

#include <gtest/gtest.h>

#include "common/json.h"

namespace ringmaster::console {
namespace {

v1::Record stepRecord(int rank, uint64_t step, int64_t totalNs) {
  v1::Record record;
  auto& s = *record.mutable_step();
  s.set_rank(rank);
  s.set_step(step);
  s.set_samples(16);
  s.set_total_ns(totalNs);
  s.set_loss(1.0);
  return record;
}

v1::Record memoryRecord(int rank, uint64_t step, uint64_t mib) {
  v1::Record record;
  auto& m = *record.mutable_memory();
  m.set_rank(rank);
  m.set_step(step);
  m.set_rss_bytes(mib << 20);
  return record;
}

TEST(RunSummary, StepsDoneAgainAfterARestartAreCountedApart) {
  v1::JobSpec spec;
  spec.set_world_size(1);
  spec.mutable_hyper()->set_steps(60);
  RunSummaryBuilder summary(spec);
  // Steps 0..29 leaking 10 MiB a step, then a restart from the checkpoint at step 20: steps 20..59 flat.
  std::vector<v1::Record> first, second;
  for (uint64_t step = 0; step < 30; ++step) {
    first.push_back(stepRecord(0, step, 2'000'000));
    first.push_back(memoryRecord(0, step, 100 + 10 * step));
  }
  for (uint64_t step = 20; step < 60; ++step) {
    second.push_back(stepRecord(0, step, 1'000'000));
    second.push_back(memoryRecord(0, step, 100));
  }
  summary.onRecords("job", "host", first);
  summary.onRecords("job", "host", second);

  JobOutcome outcome;
  outcome.status = JobStatus::Succeeded;
  const rapidjson::Document json = parseJson(summary.toJson("job", outcome));
  ASSERT_EQ(json["ranks"].Size(), 1u);
  const auto& rank = json["ranks"][0];
  EXPECT_EQ(rank["steps"].GetUint64(), 60u) << "each step once";
  EXPECT_EQ(rank["steps_redone"].GetUint64(), 10u) << "steps 20..29 ran twice";
  // 30 steps of 2 ms and 40 of 1 ms: the mean over the 70 steps run.
  EXPECT_NEAR(rank["step_ms"]["total"].GetDouble(), (30 * 2.0 + 40 * 1.0) / 70, 1e-9);
  EXPECT_NEAR(rank["memory"]["rss_slope_mb_per_step"].GetDouble(), 0.0, 1e-9)
      << "the first attempt's growth is not the restarted process's";
  EXPECT_EQ(rank["memory"]["peak_rss_bytes"].GetUint64(), uint64_t{390} << 20);
}

TEST(RunSummary, WithoutARestartNoStepIsRedone) {
  v1::JobSpec spec;
  spec.set_world_size(2);
  RunSummaryBuilder summary(spec);
  std::vector<v1::Record> records;
  for (uint64_t step = 0; step < 5; ++step)
    for (int rank = 0; rank < 2; ++rank) records.push_back(stepRecord(rank, step, 1'000'000));
  summary.onRecords("job", "host", records);
  JobOutcome outcome;
  outcome.status = JobStatus::Succeeded;
  const rapidjson::Document json = parseJson(summary.toJson("job", outcome));
  ASSERT_EQ(json["ranks"].Size(), 2u);
  for (const auto& rank : json["ranks"].GetArray()) {
    EXPECT_EQ(rank["steps"].GetUint64(), 5u);
    EXPECT_EQ(rank["steps_redone"].GetUint64(), 0u);
  }
}

}  // namespace
}  // namespace ringmaster::console
