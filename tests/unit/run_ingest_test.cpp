// SPDX-License-Identifier: GPL-3.0-or-later
// The one diagnosis of a live run: a stall's findings are counted to the moment they are asked for while the
// run lives; once it is finished, what was stored is what every later reader sees.
#include <gtest/gtest.h>

#include "common/clock.h"
#include "common/job_spec.h"
#include "console/session/ingest.h"
#include "history/run_store.h"
#include "tests/support/temp_dir.h"

namespace ringmaster::console {
namespace {

constexpr int64_t kSecondNs = 1'000'000'000;

std::vector<std::string> summaries(const std::vector<v1::Finding>& findings) {
  std::vector<std::string> out;
  for (const auto& f : findings) out.push_back(f.summary());
  return out;
}

TEST(RunIngest, AStallGrowsWithTheClockUntilTheRunIsFinishedAndThenStaysAsStored) {
  test::TempDir dir("ingest");
  NewRun run;
  run.name = "stalled";
  run.spec = defaultJobSpec();
  run.spec.set_world_size(2);
  RunIngest ingest(dir.file("runs.sqlite"), run);
  std::vector<v1::Record> steps(2);
  for (int rank = 0; rank < 2; ++rank) {
    steps[rank].mutable_step()->set_rank(rank);
    steps[rank].mutable_step()->set_step(3);
  }
  ingest.add(steps, "node-a");
  const int64_t now = monotonicNs();

  // Nothing arrives after step 3: the job's quiet time is counted to when the findings are asked for.
  const auto later = ingest.findingsAsOf(now + 30 * kSecondNs);
  const auto muchLater = ingest.findingsAsOf(now + 60 * kSecondNs);
  ASSERT_EQ(later.size(), 1u);
  EXPECT_EQ(later[0].kind(), v1::Finding::KIND_STALL);
  ASSERT_EQ(muchLater.size(), 1u);
  EXPECT_NE(later[0].summary(), muchLater[0].summary());

  ingest.finish("stopped");
  const auto stored = RunStore(dir.file("runs.sqlite")).findings(ingest.runId());
  EXPECT_EQ(summaries(ingest.findingsAsOf(now + 60 * kSecondNs)), summaries(stored));
  EXPECT_EQ(summaries(ingest.findingsAsOf(now + 600 * kSecondNs)), summaries(stored));
}

}  // namespace
}  // namespace ringmaster::console
