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

// What a user's program runs on (its ranks' RankRuntime) is kept with the hosts the ranks run on, beside what
// the hosts told about themselves, and in the run's environment.
TEST(RunIngest, ARanksRuntimeIsKeptWithItsHostAndTheRunsEnvironment) {
  test::TempDir dir("ingest");
  NewRun run;
  run.name = "program";
  run.worldSize = 2;
  RunIngest ingest(dir.file("runs.sqlite"), run);
  ingest.recordEnvironment({{"hosts", "1"}}, {{"node-a", {{"cores", "16"}}}});
  std::vector<v1::Record> records(2);
  for (int rank = 0; rank < 2; ++rank) {
    auto* r = records[size_t(rank)].mutable_runtime();
    r->set_rank(rank);
    r->set_host("container-1234");  // the rank's own hostname: the console's name for the host wins
    r->set_python("3.11.2");
    r->set_torch(rank == 0 ? "2.6.0" : "2.6.0+cu124");
    r->set_cuda(rank == 0 ? "" : "12.4");
    r->set_backend("nccl");
  }
  ingest.add(records, "node-a");
  ingest.finish("finished");
  RunStore store(dir.file("runs.sqlite"));
  const auto hosts = store.hosts(ingest.runId());
  ASSERT_EQ(hosts.size(), 1u);
  const auto& facts = hosts.at("node-a");
  EXPECT_EQ(facts.at("cores"), "16");
  EXPECT_EQ(facts.at("python"), "3.11.2");
  EXPECT_EQ(facts.at("torch"), "2.6.0, 2.6.0+cu124");
  EXPECT_EQ(facts.at("cuda"), "12.4");
  const auto info = store.run(ingest.runId());
  ASSERT_TRUE(info);
  EXPECT_EQ(info->environment.at("hosts"), "1");
  EXPECT_EQ(info->environment.at("backend"), "nccl");
  EXPECT_EQ(info->environment.at("torch"), "2.6.0, 2.6.0+cu124");
}

// Records read back after the run arrive when they were written: a job whose steps stop while a rank still
// beats is a stall as of the last record, judged once, at the end, and stored with the run's end.
TEST(RunIngest, ReplayedRecordsArriveWhenTheyWereWritten) {
  test::TempDir dir("ingest");
  NewRun run;
  run.name = "replayed";
  run.worldSize = 2;
  RunIngest ingest(dir.file("runs.sqlite"), run);
  std::vector<v1::Record> records;
  std::vector<int64_t> arrivals;
  for (int rank = 0; rank < 2; ++rank) {
    records.emplace_back().mutable_step()->set_rank(rank);
    records.back().mutable_step()->set_step(3);
    arrivals.push_back(kSecondNs);
  }
  for (int s = 1; s <= 20; ++s) {
    auto* beat = records.emplace_back().mutable_heartbeat();
    beat->set_rank(0);
    beat->set_last_step(3);
    beat->set_phase("comm_wait");
    arrivals.push_back(kSecondNs + s * kSecondNs);
  }
  ingest.replay(records, arrivals);
  ingest.tick();  // a live run's findings are stored on the way; a replay's wait for its end
  RunStore reader(dir.file("runs.sqlite"));
  EXPECT_TRUE(reader.findings(ingest.runId()).empty());
  ingest.finishAt("failed", 1'780'000'000 * kSecondNs, arrivals.back());
  const auto stored = reader.findings(ingest.runId());
  ASSERT_EQ(stored.size(), 1u) << ::testing::PrintToString(summaries(stored));
  EXPECT_EQ(stored[0].kind(), v1::Finding::KIND_STALL);
  EXPECT_EQ(stored[0].rank(), 1);
  EXPECT_EQ(stored[0].cause(), "silent");
  EXPECT_NE(stored[0].summary().find("20.0 s"), std::string::npos) << stored[0].summary();
  EXPECT_EQ(reader.run(ingest.runId())->endedUnixNs, 1'780'000'000 * kSecondNs);
  EXPECT_EQ(reader.run(ingest.runId())->status, "failed");
}

}  // namespace
}  // namespace ringmaster::console
