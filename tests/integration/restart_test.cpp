// SPDX-License-Identifier: GPL-3.0-or-later
// Elastic restarts (--max-restarts) through the real `ringmaster run`: a rank that fails makes the job stop
// its other ranks and start them all again from the last checkpoint, as the same run, until the restarts
// run out; a stall stopped by --stall-timeout-s is a failure too; a user's program is restarted with
// torchrun's TORCHELASTIC_RESTART_COUNT.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "history/run_store.h"
#include "tests/integration/program_run_support.h"
#include "tests/support/files.h"

namespace ringmaster::test {
namespace {

namespace fs = std::filesystem;
const std::string kPython = "/usr/bin/python3";

std::string program() {
  return std::string(RM_TEST_PROGRAMS) + "/elastic_steps.py";
}

// The checksum of rank 0's parameters in a --summary-json file.
std::string checksumIn(const std::string& summaryJson) {
  const std::string text = readFile(summaryJson);
  std::smatch match;
  if (!std::regex_search(text, match, std::regex(R"re("param_checksum"\s*:\s*"([0-9a-f]+)")re"))) return "";
  return match[1];
}

class Restart : public ProgramRunTest {
 protected:
  Restart() : ProgramRunTest("restart") {}

  // A small built-in job: 2 ranks, the MLP on synthetic data, `steps` steps.
  std::vector<std::string> job(int steps) const {
    return {"-np",          "2",
            "--model",      "mlp",
            "--data",       "synthetic",
            "--batch-size", "16",
            "--steps",      std::to_string(steps)};
  }

  std::vector<v1::Finding> findingsOf(const RunInfo& run, v1::Finding::Kind kind) {
    RunStore store(store_);
    std::vector<v1::Finding> found;
    for (const auto& f : store.findings(run.id))
      if (f.kind() == kind) found.push_back(f);
    return found;
  }

  static std::vector<std::string> plus(std::vector<std::string> a, const std::vector<std::string>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
  }
};

TEST_F(Restart, ACrashedRankRestartsFromTheCheckpointAndEndsAsARunResumedFromIt) {
  const std::string checkpoints = dir_.file("checkpoints");
  auto r = run(plus(job(60), {"--inject-crash", "1:30", "--max-restarts", "1", "--checkpoint-every", "10",
                              "--checkpoint-dir", checkpoints, "--summary-json", dir_.file("restarted.json"),
                              "--job-id", "crash-once", "--name", "restarted"}));
  ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("restart 1 of 1: rank 1 on host"), std::string::npos) << r.out;

  const RunInfo stored = onlyRun();
  EXPECT_EQ(stored.status, "finished");
  const auto restarts = findingsOf(stored, v1::Finding::KIND_RESTART);
  ASSERT_EQ(restarts.size(), 1u) << "one restart, one finding";
  const v1::Finding& restart = restarts[0];
  EXPECT_EQ(restart.rank(), 1);
  EXPECT_FALSE(restart.host().empty());
  EXPECT_EQ(restart.cause(), "signal") << restart.summary();
  ASSERT_TRUE(restart.evidence().count("resumed_from_step")) << restart.summary();
  const auto resumedFrom = static_cast<uint64_t>(restart.evidence().at("resumed_from_step"));
  EXPECT_EQ(restart.since_step(), resumedFrom);
  EXPECT_TRUE(resumedFrom == 20 || resumedFrom == 30)
      << "the last checkpoint before the crash: " << resumedFrom;
  EXPECT_TRUE(findingsOf(stored, v1::Finding::KIND_CRASH).empty()) << "the crash is told by the restart";

  // The same run holds each step once: the later attempt's replace the steps it did again. (The crashed
  // rank's last steps before the checkpoint may be missing: an abort loses what its sender had not sent.)
  {
    RunStore store(store_);
    const auto all = store.rankSeries(stored.id);
    ASSERT_EQ(all.size(), 2u);
    for (const auto& series : all) {
      std::set<uint64_t> steps;
      for (const auto& s : series.steps) steps.insert(s.step());
      EXPECT_EQ(steps.size(), series.steps.size()) << "rank " << series.rank << ": a step stored twice";
      for (uint64_t step = resumedFrom; step < 60; ++step)
        EXPECT_TRUE(steps.count(step)) << "rank " << series.rank << " step " << step;
    }
  }

  // An uninterrupted run to the same checkpoint, then a run resumed from a copy of it, ends with the same
  // parameters bit for bit.
  const std::string straightDir = dir_.file("straight");
  auto upTo =
      runProcess(plus(plus({binPath("ringmaster"), "run", "--no-store", "--state-dir", dir_.file("state")},
                           job(static_cast<int>(resumedFrom))),
                      {"--checkpoint-every", "10", "--checkpoint-dir", straightDir}),
                 {}, std::chrono::seconds(240));
  ASSERT_EQ(upTo.exitCode, 0) << upTo.err;
  const std::string copy = dir_.file("copy");
  fs::copy(straightDir, copy);
  auto resumed = runProcess(
      plus(plus({binPath("ringmaster"), "run", "--no-store", "--state-dir", dir_.file("state")}, job(60)),
           {"--checkpoint-every", "10", "--checkpoint-dir", copy, "--resume", "--summary-json",
            dir_.file("resumed.json")}),
      {}, std::chrono::seconds(240));
  ASSERT_EQ(resumed.exitCode, 0) << resumed.err;
  const std::string restartedSum = checksumIn(dir_.file("restarted.json"));
  EXPECT_FALSE(restartedSum.empty());
  EXPECT_EQ(restartedSum, checksumIn(dir_.file("resumed.json")));
}

TEST_F(Restart, WithoutRestartsACrashFailsTheJobAsBefore) {
  auto r = run(plus(job(40), {"--inject-crash", "1:10", "--max-restarts", "0"}));
  EXPECT_EQ(r.exitCode, 1) << r.out << r.err;
  EXPECT_EQ(r.out.find("restart"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("failed: rank 1 on host"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("after 0 restarts"), std::string::npos) << r.err;
  EXPECT_TRUE(findingsOf(onlyRun(), v1::Finding::KIND_RESTART).empty());
  EXPECT_EQ(findingsOf(onlyRun(), v1::Finding::KIND_CRASH).size(), 1u);
}

TEST_F(Restart, AUserProgramIsRestartedWithTorchelasticsRestartCount) {
  const std::string work = dir_.file("work");
  fs::create_directories(work);
  auto r = run({"-np", "2", "--max-restarts", "2", "--no-instrument", "--job-id", "program-once", "--",
                kPython, program(), work, "--steps", "200", "--crash", "1:8"});
  ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("restart 1 of 2: rank 1 on host"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("exited with code 3"), std::string::npos) << r.out;
  // Each rank ran twice, the second time told it is restart 1 of at most 2, under the run's one id; rank 0
  // carried on from its own checkpoint.
  const std::string log1 = readFile(work + "/rank1.log");
  EXPECT_NE(log1.find("attempt 0 run program-once from 0"), std::string::npos) << log1;
  EXPECT_TRUE(std::regex_search(log1, std::regex("attempt 1 run program-once from [1-9][0-9]*\n"))) << log1;
  EXPECT_NE(r.out.find("rank 0 attempt 1 of 2"), std::string::npos) << r.out;
  EXPECT_EQ(onlyRun().status, "finished");
  EXPECT_EQ(findingsOf(onlyRun(), v1::Finding::KIND_RESTART).size(), 1u);
}

TEST_F(Restart, ACrashInEveryAttemptUsesUpTheRestartsAndFailsNamingThem) {
  const std::string work = dir_.file("work");
  fs::create_directories(work);
  auto r = run({"-np", "2", "--max-restarts", "2", "--no-instrument", "--", kPython, program(), work,
                "--steps", "20", "--crash", "1:3", "--always-crash"});
  EXPECT_EQ(r.exitCode, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("restart 1 of 2:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("restart 2 of 2:"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("exited with code 3 (after 2 restarts, --max-restarts 2)"), std::string::npos)
      << r.err;
  const std::string log1 = readFile(work + "/rank1.log");
  EXPECT_NE(log1.find("attempt 2 "), std::string::npos) << log1;
  EXPECT_EQ(log1.find("attempt 3 "), std::string::npos) << log1;
  EXPECT_EQ(onlyRun().status, "failed");
  EXPECT_EQ(findingsOf(onlyRun(), v1::Finding::KIND_RESTART).size(), 2u);
}

// A rank that stops submitting a tensor stalls the Horovod engine; --stall-timeout-s stops the attempt, and
// the restart (without the injected hang) finishes the job.
TEST_F(Restart, AStallStoppedByTheTimeoutRestarts) {
  auto r = run(plus(job(80), {"--engine", "horovod", "--inject-hang", "1:20", "--stall-check-s", "2",
                              "--stall-timeout-s", "8", "--max-restarts", "1", "--checkpoint-every", "10"}));
  ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("restart 1 of 1: stopped after a stall of 8 s"), std::string::npos) << r.out;
  const auto restarts = findingsOf(onlyRun(), v1::Finding::KIND_RESTART);
  ASSERT_EQ(restarts.size(), 1u);
  EXPECT_EQ(restarts[0].cause(), "stall");
  EXPECT_EQ(restarts[0].evidence().at("resumed_from_step"), 20.0) << restarts[0].summary();
  EXPECT_EQ(onlyRun().status, "finished");
}

}  // namespace
}  // namespace ringmaster::test
