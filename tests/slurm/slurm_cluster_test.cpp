// SPDX-License-Identifier: GPL-3.0-or-later
// The test cluster itself: it comes up with two nodes, runs a job step on both, and goes down leaving no
// process behind.
#include "tests/slurm/slurm_cluster.h"

#include <gtest/gtest.h>

#include "tests/support/files.h"

namespace ringmaster::test {
namespace {

using namespace std::chrono_literals;

TEST(SlurmCluster, RunsAStepOnBothNodesAndLeavesNoProcessBehind) {
  ASSERT_TRUE(SlurmCluster::installed()) << "Slurm and munge are missing: run scripts/install-deps";
  {
    SlurmCluster cluster;
    const std::string script = cluster.folder() + "/job.sh";
    writeFile(script,
              "#!/bin/sh\n"
              "srun --ntasks-per-node=1 -n 2 sh -c 'echo step on $SLURMD_NODENAME'\n"
              "srun --ntasks-per-node=1 -n 2 sleep 300\n");
    const std::string output = cluster.folder() + "/job.out";
    auto submitted = cluster.command({"sbatch", "--parsable", "-N", "2", "-n", "2", "-o", output, script});
    ASSERT_EQ(submitted.exitCode, 0) << submitted.err << cluster.logs();
    std::string id = submitted.out.substr(0, submitted.out.find_first_of(";\n"));
    // Both tasks write to the one output file, in whichever order they run.
    ASSERT_TRUE(eventually(
        [&] {
          const std::string out = readFile(output);
          return out.find("step on n1") != std::string::npos && out.find("step on n2") != std::string::npos;
        },
        30s, kSlurmPoll))
        << readFile(output) << cluster.logs();
    EXPECT_EQ(cluster.jobState(id), "RUNNING");
    // The second step sleeps on both nodes: those processes are this test's descendants.
    EXPECT_TRUE(eventually(
        [&] {
          int sleeping = 0;
          for (const auto& line : cluster.strayProcesses())
            sleeping += line.find(" sleep") != std::string::npos ? 1 : 0;
          return sleeping == 2;
        },
        20s, kSlurmPoll))
        << joinedLines(cluster.strayProcesses());
  }
  EXPECT_TRUE(descendantProcesses().empty()) << joinedLines(descendantProcesses());
}

}  // namespace
}  // namespace ringmaster::test
