// SPDX-License-Identifier: GPL-3.0-or-later
// The Slurm formats the console reads and the sbatch words it writes, without a cluster.
#include "console/slurm/slurm_options.h"

#include <gtest/gtest.h>

#include "common/error.h"
#include "console/session/run_flags.h"

namespace ringmaster::console {
namespace {

TEST(SlurmOptions, TasksPerNodeExpandsRepeats) {
  EXPECT_EQ(parseTasksPerNode("2(x3),1"), (std::vector<int>{2, 2, 2, 1}));
  EXPECT_EQ(parseTasksPerNode("4"), (std::vector<int>{4}));
  EXPECT_EQ(parseTasksPerNode("1,3(x2)"), (std::vector<int>{1, 3, 3}));
}

TEST(SlurmOptions, MalformedTasksPerNodeIsAnErrorNamingTheText) {
  for (const std::string bad :
       {"", "x", "2(x3", "2(x)", "0", "2(x0)", "-1", "2,,1", "99999999", "2(x999999)"}) {
    try {
      parseTasksPerNode(bad);
      ADD_FAILURE() << "accepted \"" << bad << "\"";
    } catch (const SlurmError& e) {
      EXPECT_NE(std::string(e.what()).find("SLURM_TASKS_PER_NODE \"" + bad + "\""), std::string::npos)
          << e.what();
    }
  }
}

TEST(SlurmOptions, ScontrolRecordsSplitIntoFields) {
  auto fields = parseSlurmRecord(
      "NodeName=n1 Arch=x86_64 CoresPerSocket=1 NodeAddr=127.0.0.1 NodeHostName=vm State=IDLE Reason=x=y =z "
      "junk\n");
  EXPECT_EQ(fields["NodeName"], "n1");
  EXPECT_EQ(fields["NodeAddr"], "127.0.0.1");
  EXPECT_EQ(fields["State"], "IDLE");
  EXPECT_EQ(fields["Reason"], "x=y");
  EXPECT_EQ(fields.count("junk"), 0u);
  EXPECT_EQ(fields.count(""), 0u);
}

TEST(SlurmOptions, SbatchGetsTheUsersOptionsInOrder) {
  SlurmOptions o;
  o.nodes = 2;
  o.partition = "gpu";
  o.time = "01:00:00";
  o.account = "ml";
  o.qos = "high";
  o.constraint = "a100";
  o.gres = "gpu:4";
  o.extra = {"--mem=8G", "--exclusive"};
  EXPECT_EQ(sbatchArguments(o, 8, "ringmaster", "/j/out", "/j/job.sh"),
            (std::vector<std::string>{"--parsable", "--ntasks=8", "--nodes=2", "--partition=gpu",
                                      "--time=01:00:00", "--account=ml", "--qos=high", "--constraint=a100",
                                      "--gres=gpu:4", "--no-requeue", "--mem=8G", "--exclusive",
                                      "--job-name=ringmaster", "--output=/j/out", "/j/job.sh"}));
  EXPECT_EQ(sbatchArguments(SlurmOptions{}, 1, "r", "o", "s"),
            (std::vector<std::string>{"--parsable", "--ntasks=1", "--no-requeue", "--job-name=r",
                                      "--output=o", "s"}));
}

TEST(SlurmOptions, SinfoGivesPartitionsWithTheirNodesByState) {
  // One line per partition and node state when sinfo splits a partition; blank lines are nothing.
  const auto partitions = parseSinfo(
      "main|up|1/1/0/2|n[1-2]\n"
      "closed|down|0/0/2/2|n[1-2]\n"
      "\n"
      "gpu|up|0/3/0/3|g[1-3]\n"
      "gpu|up|2/0/1/3|g[4-6]\n");
  ASSERT_EQ(partitions.size(), 3u);
  EXPECT_EQ(partitions[0].name, "main");
  EXPECT_EQ(partitions[0].state, "up");
  EXPECT_EQ(partitions[0].allocated, 1);
  EXPECT_EQ(partitions[0].idle, 1);
  EXPECT_EQ(partitions[0].other, 0);
  EXPECT_EQ(partitions[0].total, 2);
  EXPECT_EQ(partitions[0].nodes, "n[1-2]");
  EXPECT_EQ(partitions[1].state, "down");
  EXPECT_EQ(partitions[1].other, 2);
  EXPECT_EQ(partitions[2].name, "gpu");
  EXPECT_EQ(partitions[2].idle, 3);
  EXPECT_EQ(partitions[2].allocated, 2);
  EXPECT_EQ(partitions[2].other, 1);
  EXPECT_EQ(partitions[2].total, 6);
  EXPECT_EQ(partitions[2].nodes, "g[1-3],g[4-6]");
  EXPECT_TRUE(parseSinfo("").empty());
  for (const std::string bad : {"main|up|1/1/2|n1", "main|up", "|up|0/1/0/1|n1", "main|up|a/b/c/d|n1"}) {
    try {
      parseSinfo(bad);
      ADD_FAILURE() << "accepted \"" << bad << "\"";
    } catch (const SlurmError& e) {
      EXPECT_NE(std::string(e.what()).find(bad), std::string::npos) << e.what();
    }
  }
}

TEST(SlurmOptions, EndedStatesAndTheCausesSlurmHad) {
  EXPECT_FALSE(slurmJobEnded("PENDING"));
  EXPECT_FALSE(slurmJobEnded("RUNNING"));
  EXPECT_FALSE(slurmJobEnded("COMPLETING"));
  EXPECT_TRUE(slurmJobEnded("COMPLETED"));
  EXPECT_TRUE(slurmJobEnded("TIMEOUT"));
  EXPECT_TRUE(slurmJobEnded(""));
  EXPECT_EQ(toText(slurmEndCause("TIMEOUT")), "Slurm ended the job at its time limit");
  EXPECT_NE(toText(slurmEndCause("NODE_FAIL")).find("nodes failed"), std::string::npos);
  EXPECT_NE(toText(slurmEndCause("PREEMPTED")).find("preempted"), std::string::npos);
  EXPECT_TRUE(isEmpty(slurmEndCause("COMPLETED")));
  EXPECT_TRUE(isEmpty(slurmEndCause("CANCELLED")));
}

TEST(SlurmOptions, RunFlagsTakeSlurmOptionsAndGiveThemBack) {
  auto flags =
      parseRunFlags({"--slurm", "-N", "2", "-np", "4", "--partition", "gpu", "--time", "10",
                     "--slurm-arg=--mem=8G", "--slurm-arg", "--exclusive", "--slurm-dir", "/shared/rm"});
  EXPECT_TRUE(flags.slurm.submit);
  EXPECT_EQ(flags.slurm.nodes, 2);
  EXPECT_EQ(flags.slurm.partition, "gpu");
  EXPECT_EQ(flags.slurm.time, "10");
  EXPECT_EQ(flags.slurm.extra, (std::vector<std::string>{"--mem=8G", "--exclusive"}));
  EXPECT_EQ(flags.slurm.folder, "/shared/rm");
  auto again = parseRunFlags(runArguments(flags));
  EXPECT_TRUE(again.slurm.submit);
  EXPECT_EQ(again.slurm.nodes, 2);
  EXPECT_EQ(again.slurm.partition, "gpu");
  EXPECT_EQ(again.slurm.time, "10");
  EXPECT_EQ(again.slurm.extra, flags.slurm.extra);
  EXPECT_EQ(again.slurm.folder, "/shared/rm");
}

TEST(SlurmOptions, SbatchOptionsWithoutSlurmOrWithHostsAreErrors) {
  auto message = [](std::vector<std::string> args) {
    try {
      parseRunFlags(std::move(args));
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(message({"-np", "2", "--partition", "gpu"}).find("--partition is for sbatch: add --slurm"),
            std::string::npos);
  EXPECT_NE(message({"--slurm", "-np", "2", "-H", "a:1,b:1"}).find("leave out -H"), std::string::npos);
  EXPECT_NE(message({"--slurm", "-np", "2", "-N", "3"}).find("more nodes than -np 2"), std::string::npos);
}

}  // namespace
}  // namespace ringmaster::console
