// SPDX-License-Identifier: GPL-3.0-or-later
// bench/many_ranks at a small size: simulated ranks, each its own process speaking the rank socket's
// protocol, started by two real agents on two loopback addresses of this machine (a job across "hosts" that
// reach each other), watched by a console that stores and diagnoses every record. Every step sample is
// stored, and the straggler and the leak the ranks were told to show are found, and nothing else.
#include <gtest/gtest.h>

#include <regex>

#include "history/run_store.h"
#include "tests/support/process.h"
#include "tests/support/temp_dir.h"

using namespace ringmaster;
using namespace ringmaster::test;
using namespace std::chrono_literals;

TEST(ManyRanks, SixteenSimulatedRanksThroughTwoLoopbackAgentsAreStoredWholeAndTheirStragglerAndLeakFound) {
  TempDir dir("many-ranks-test");
  const ProcessResult result = runProcess(
      {binPath("many_ranks"), "--ranks", "16", "--agents", "2", "--seconds", "12", "--keep", dir.path()}, {},
      180s);
  ASSERT_FALSE(result.timedOut) << result.out << result.err;
  // 16 ranks x 120 steps, each step sample seen by the console as it arrived.
  EXPECT_NE(result.out.find("job finished, 1920 step samples (1920 expected)"), std::string::npos)
      << result.out << result.err;
  std::smatch findings;
  const std::regex last(
      "ranks 16: console lag p99 [0-9.]+ s, console CPU [0-9.]+ %, memory [0-9]+ MB, "
      "findings: (.*)\n");
  ASSERT_TRUE(std::regex_search(result.out, findings, last)) << result.out;
  // The leak is critical where the host's memory fills within the hour (4 MiB a step, 10 steps a second).
  EXPECT_TRUE(std::regex_match(
      findings[1].str(),
      std::regex("straggler rank 11 \\(critical\\), memory leak rank 6 \\((warning|critical)\\)")))
      << result.out;

  // What the history keeps: every rank's every step.
  RunStore store(dir.file("runs.db"));
  const auto runs = store.runs();
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].worldSize, 16);
  const std::vector<RankSeries> series = store.rankSeries(runs[0].id);
  ASSERT_EQ(series.size(), 16u);
  for (const auto& rank : series) {
    EXPECT_EQ(rank.steps.size(), 120u) << "rank " << rank.rank;
    EXPECT_EQ(rank.allreduce.size(), 240u) << "rank " << rank.rank;
  }
}
