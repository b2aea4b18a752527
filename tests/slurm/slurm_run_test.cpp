// SPDX-License-Identifier: GPL-3.0-or-later
// `ringmaster run --slurm`, `ringmaster attach` and `ringmaster run` inside salloc against a real Slurm on
// this machine (two fake nodes): the real binaries, real agents as job steps, real ranks training.
#include <gtest/gtest.h>
#include <signal.h>

#include <regex>

#include "tests/slurm/slurm_cluster.h"
#include "tests/support/files.h"

namespace ringmaster::test {
namespace {

using namespace std::chrono_literals;

class SlurmRun : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(SlurmCluster::installed()) << "Slurm and munge are missing: run scripts/install-deps";
    cluster_ = std::make_unique<SlurmCluster>();
  }
  void TearDown() override { cluster_.reset(); }

  std::string jobs() const { return cluster_->folder() + "/jobs"; }
  std::string store() const { return cluster_->folder() + "/runs.sqlite"; }

  // `ringmaster run --slurm` with a built-in job of `steps` steps and `extra` flags.
  std::vector<std::string> slurmRun(int steps, const std::vector<std::string>& extra = {}) const {
    std::vector<std::string> argv = {binPath("ringmaster"),
                                     "run",
                                     "--slurm",
                                     "-N",
                                     "2",
                                     "-np",
                                     "4",
                                     "--model",
                                     "mlp",
                                     "--data",
                                     "synthetic",
                                     "--steps",
                                     std::to_string(steps),
                                     "--slurm-dir",
                                     jobs(),
                                     "--store",
                                     store()};
    argv.insert(argv.end(), extra.begin(), extra.end());
    return argv;
  }

  // The Slurm job id the console printed ("submitted Slurm job 12: sbatch ...").
  static std::string submittedJob(const std::string& err) {
    std::smatch match;
    static const std::regex submitted("submitted Slurm job (\\d+)");
    return std::regex_search(err, match, submitted) ? match[1].str() : "";
  }

  // The hosts `ringmaster show` lists ("  host n1: 2 cores, ...").
  static std::vector<std::string> hostLines(const std::string& shown) {
    std::vector<std::string> hosts;
    static const std::regex host("\\n  host ([^:]+):");
    for (auto it = std::sregex_iterator(shown.begin(), shown.end(), host); it != std::sregex_iterator(); ++it)
      hosts.push_back((*it)[1].str());
    return hosts;
  }

  ProcessResult show(const std::string& run) const {
    return runProcess({binPath("ringmaster"), "show", run, "--store", store()}, {}, 60s);
  }

  // Slurm job `id` completed and run 1 is stored as a finished 4-rank run with that job id: `ringmaster
  // show`'s text of it.
  std::string expectCompletedAndStored(const std::string& id) const {
    EXPECT_TRUE(eventually([&] { return cluster_->jobState(id) == "COMPLETED"; }, 20s, kSlurmPoll))
        << cluster_->jobState(id);
    auto shown = show("1");
    EXPECT_EQ(shown.exitCode, 0) << shown.err;
    EXPECT_NE(shown.out.find("status finished, 4 ranks"), std::string::npos) << shown.out;
    EXPECT_NE(shown.out.find("slurm job " + id), std::string::npos) << shown.out;
    return shown.out;
  }

  // Every process this test started is gone within 20 s (the cluster's daemons aside).
  void expectNoStrayProcess() const {
    EXPECT_TRUE(eventually([this] { return cluster_->strayProcesses().empty(); }, 20s, kSlurmPoll))
        << joinedLines(cluster_->strayProcesses());
  }

  std::unique_ptr<SlurmCluster> cluster_;
};

TEST_F(SlurmRun, ABuiltInJobTrainsOnTwoNodesAndIsStoredWithItsJobIdAndNodes) {
  auto run = runProcess(slurmRun(30), cluster_->env(), 180s);
  ASSERT_EQ(run.exitCode, 0) << run.err << cluster_->logs();
  const std::string id = submittedJob(run.err);
  ASSERT_FALSE(id.empty()) << run.err;
  // The sbatch line it ran, with the options it passed through.
  EXPECT_NE(run.err.find("sbatch --parsable --ntasks=4 --nodes=2"), std::string::npos) << run.err;
  // Two ranks on each node, placed by the allocation.
  EXPECT_NE(run.err.find("n1 (ranks 0-1)"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("n2 (ranks 2-3)"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("finished"), std::string::npos) << run.err;
  // The console ended the agents' step once the ranks were done: the job completed.
  const std::string shown = expectCompletedAndStored(id);
  // The allocated nodes are the run's hosts, and only they (not the machine's own name, which both share).
  EXPECT_EQ(hostLines(shown), (std::vector<std::string>{"n1", "n2"})) << shown;
  EXPECT_NE(shown.find("over 30 steps"), std::string::npos) << shown;
  expectNoStrayProcess();
}

TEST_F(SlurmRun, APendingJobShowsSlurmsReasonAndCtrlCCancelsIt) {
  auto argv = slurmRun(30, {"--partition", "closed"});
  BackgroundProcess console(argv, cluster_->env(), cluster_->folder() + "/console");
  ASSERT_TRUE(eventually([&] { return console.err().find("PENDING (PartitionDown)") != std::string::npos; },
                         30s, kSlurmPoll))
      << console.err();
  const std::string id = submittedJob(console.err());
  ASSERT_FALSE(id.empty()) << console.err();
  EXPECT_NE(console.err().find("--partition=closed"), std::string::npos) << console.err();
  console.signal(SIGINT);
  auto ended = console.wait(30s);
  ASSERT_FALSE(ended.timedOut) << ended.err;
  EXPECT_EQ(ended.exitCode, 130) << ended.err;
  EXPECT_NE(ended.err.find("cancelling Slurm job " + id), std::string::npos) << ended.err;
  EXPECT_TRUE(eventually([&] { return cluster_->jobState(id) == "CANCELLED"; }, 20s, kSlurmPoll))
      << cluster_->jobState(id);
  expectNoStrayProcess();
}

TEST_F(SlurmRun, StopCancelsARunningJobAndLeavesNoProcessBehind) {
  BackgroundProcess console(slurmRun(100000), cluster_->env(), cluster_->folder() + "/console");
  // Training: the progress line shows steps.
  ASSERT_TRUE(eventually([&] { return console.out().find("step ") != std::string::npos; }, 90s, kSlurmPoll))
      << console.err() << console.out() << cluster_->logs();
  const std::string id = submittedJob(console.err());
  ASSERT_FALSE(id.empty()) << console.err();
  EXPECT_FALSE(cluster_->strayProcesses({console.pid()}).empty());  // the agents and ranks run
  console.signal(SIGINT);
  auto ended = console.wait(60s);
  ASSERT_FALSE(ended.timedOut) << ended.err;
  EXPECT_EQ(ended.exitCode, 130) << ended.err;
  EXPECT_NE(ended.err.find("cancelled Slurm job " + id), std::string::npos) << ended.err;
  EXPECT_TRUE(eventually([&] { return cluster_->jobState(id) == "CANCELLED"; }, 20s, kSlurmPoll))
      << cluster_->jobState(id);
  expectNoStrayProcess();
  auto shown = show("1");
  EXPECT_NE(shown.out.find("status stopped"), std::string::npos) << shown.out;
}

TEST_F(SlurmRun, AttachWatchesAJobAnotherConsoleSubmitted) {
  auto first =
      std::make_unique<BackgroundProcess>(slurmRun(250), cluster_->env(), cluster_->folder() + "/first");
  ASSERT_TRUE(eventually([&] { return first->out().find("step ") != std::string::npos; }, 90s, kSlurmPoll))
      << first->err() << cluster_->logs();
  const std::string id = submittedJob(first->err());
  ASSERT_FALSE(id.empty()) << first->err();
  // The first console dies; the job trains on under Slurm.
  first->signal(SIGKILL);
  first->wait(10s);
  EXPECT_EQ(cluster_->jobState(id), "RUNNING");
  const std::string attachStore = cluster_->folder() + "/attached.sqlite";
  auto attached =
      runProcess({binPath("ringmaster"), "attach", id, "--slurm-dir", jobs(), "--store", attachStore},
                 cluster_->env(), 180s);
  EXPECT_EQ(attached.exitCode, 0) << attached.err;
  EXPECT_NE(attached.err.find("finished"), std::string::npos) << attached.err;
  auto shown = runProcess({binPath("ringmaster"), "show", "1", "--store", attachStore}, {}, 60s);
  EXPECT_NE(shown.out.find("status finished, 4 ranks"), std::string::npos) << shown.out;
  EXPECT_NE(shown.out.find("over 250 steps"), std::string::npos) << shown.out;
  EXPECT_NE(shown.out.find("slurm job " + id), std::string::npos) << shown.out;
  EXPECT_TRUE(eventually([&] { return cluster_->jobState(id) == "COMPLETED"; }, 20s, kSlurmPoll))
      << cluster_->jobState(id);
  expectNoStrayProcess();
}

TEST_F(SlurmRun, RunInsideSallocUsesTheAllocation) {
  auto run = cluster_->command(
      {"salloc", "-N", "2", "-n", "4", binPath("ringmaster"), "run", "-np", "4", "--model", "mlp", "--data",
       "synthetic", "--steps", "20", "--slurm-dir", jobs(), "--store", store()},
      180s);
  ASSERT_EQ(run.exitCode, 0) << run.err << cluster_->logs();
  EXPECT_NE(run.err.find("agents started: "), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("n1 (ranks 0-1)"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("n2 (ranks 2-3)"), std::string::npos) << run.err;
  auto shown = show("1");
  EXPECT_NE(shown.out.find("status finished, 4 ranks"), std::string::npos) << shown.out;
  EXPECT_NE(shown.out.find("host n2"), std::string::npos) << shown.out;
  expectNoStrayProcess();
}

TEST_F(SlurmRun, AUsersProgramRunsThroughSlurm) {
  const std::string script = std::string(RM_TEST_PROGRAMS) + "/fashion_ddp.py";
  auto run = runProcess({binPath("ringmaster"), "run", "--slurm", "-N", "2", "-np", "2", "--slurm-dir",
                         jobs(), "--store", store(), "--", "/usr/bin/python3", script, "--steps", "10"},
                        cluster_->env(), 300s);
  ASSERT_EQ(run.exitCode, 0) << run.err << cluster_->logs();
  EXPECT_NE(run.err.find("n1 (ranks 0-0)"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("n2 (ranks 1-1)"), std::string::npos) << run.err;
  auto shown = show("1");
  EXPECT_NE(shown.out.find("status finished, 2 ranks"), std::string::npos) << shown.out;
  EXPECT_NE(shown.out.find("program /usr/bin/python3 " + script + " --steps 10"), std::string::npos)
      << shown.out;
  EXPECT_NE(shown.out.find("over 10 steps"), std::string::npos) << shown.out;
  EXPECT_NE(shown.out.find("slurm job " + submittedJob(run.err)), std::string::npos) << shown.out;
  expectNoStrayProcess();
}

// The agents of a Slurm job are the user's own: a variable of the loader's or an interpreter's that the job's
// --env sets is allowed to them (--allow-env), as its program and folders are.
TEST_F(SlurmRun, AProgramsInterpreterVariablesReachItThroughSlurm) {
  auto run =
      runProcess({binPath("ringmaster"), "run", "--slurm", "-N", "2", "-np", "2", "--slurm-dir", jobs(),
                  "--store", store(), "--no-instrument", "--env", "PYTHONSTARTUP=set-by-the-job", "--",
                  "/bin/sh", "-c", "test \"$PYTHONSTARTUP\" = set-by-the-job"},
                 cluster_->env(), 300s);
  ASSERT_EQ(run.exitCode, 0) << run.err << cluster_->logs();
  auto shown = show("1");
  EXPECT_NE(shown.out.find("status finished, 2 ranks"), std::string::npos) << shown.out;
  expectNoStrayProcess();
}

// A rank that fails inside the allocation restarts there: every rank starts again on the same agents from the
// last checkpoint (rank 0's, under its agent's state folder on n1), and the job ends as one run.
TEST_F(SlurmRun, ACrashedRankRestartsInsideTheAllocation) {
  auto run =
      runProcess(slurmRun(60, {"--inject-crash", "3:30", "--max-restarts", "1", "--checkpoint-every", "10"}),
                 cluster_->env(), 240s);
  ASSERT_EQ(run.exitCode, 0) << run.err << cluster_->logs();
  EXPECT_NE(run.out.find("restart 1 of 1: rank 3 on host n2"), std::string::npos) << run.out;
  const std::string shown = expectCompletedAndStored(submittedJob(run.err));
  EXPECT_NE(shown.find("restart 1 of 1 after rank 3 on host n2"), std::string::npos)
      << "the restart is a finding: " << shown;
  expectNoStrayProcess();
}

TEST_F(SlurmRun, ARankKilledBySlurmAtItsTimeLimitIsAFinding) {
  // Slurm's time limits are whole minutes: this test takes over one. Its ranks sleep 200 ms a step (an equal
  // delay on every rank, so no straggler), which leaves the machine's cores to other tests meanwhile.
  std::vector<std::string> extra = {"--time", "1"};
  for (const char* rank : {"0", "1", "2", "3"}) {
    extra.insert(extra.end(), {"--inject-straggler", std::string(rank) + ":200"});
  }
  auto run = runProcess(slurmRun(1000000, extra), cluster_->env(), 240s);
  EXPECT_EQ(run.exitCode, 1) << run.err;
  const std::string id = submittedJob(run.err);
  EXPECT_NE(run.err.find("finding: Slurm ended the job at its time limit (Slurm job " + id + ": TIMEOUT)"),
            std::string::npos)
      << run.err;
  auto shown = show("1");
  EXPECT_NE(shown.out.find("status failed"), std::string::npos) << shown.out;
  EXPECT_NE(shown.out.find("Slurm ended the job at its time limit"), std::string::npos) << shown.out;
  expectNoStrayProcess();
}

TEST_F(SlurmRun, ANodeThatFailsIsAFinding) {
  BackgroundProcess console(slurmRun(1000000), cluster_->env(), cluster_->folder() + "/console");
  ASSERT_TRUE(eventually([&] { return console.out().find("step ") != std::string::npos; }, 90s, kSlurmPoll))
      << console.err() << cluster_->logs();
  const std::string id = submittedJob(console.err());
  ASSERT_FALSE(id.empty()) << console.err();
  // The node goes down under the job, as when Slurm loses it: Slurm ends the job as NODE_FAIL.
  auto down = cluster_->command({"scontrol", "update", "nodename=n2", "state=down", "reason=lost"});
  ASSERT_EQ(down.exitCode, 0) << down.err;
  auto ended = console.wait(90s);
  ASSERT_FALSE(ended.timedOut) << ended.err << cluster_->logs();
  EXPECT_EQ(ended.exitCode, 1) << ended.err;
  EXPECT_NE(ended.err.find("finding: Slurm ended the job because one of its nodes failed (Slurm job " + id +
                           ": NODE_FAIL)"),
            std::string::npos)
      << ended.err << cluster_->logs();
  EXPECT_EQ(cluster_->jobState(id), "NODE_FAIL");
  auto shown = show("1");
  EXPECT_NE(shown.out.find("status failed"), std::string::npos) << shown.out;
  EXPECT_NE(shown.out.find("one of its nodes failed"), std::string::npos) << shown.out;
  expectNoStrayProcess();
}

TEST_F(SlurmRun, APreemptedJobIsAFinding) {
  BackgroundProcess console(slurmRun(1000000), cluster_->env(), cluster_->folder() + "/console");
  ASSERT_TRUE(eventually([&] { return console.out().find("step ") != std::string::npos; }, 90s, kSlurmPoll))
      << console.err() << cluster_->logs();
  const std::string id = submittedJob(console.err());
  ASSERT_FALSE(id.empty()) << console.err();
  // A job of the urgent partition wants every core the run holds: Slurm cancels the run for it.
  auto urgent = cluster_->command({"sbatch", "--parsable", "--partition=urgent", "-N", "2", "-n", "4",
                                   "--output=" + cluster_->folder() + "/urgent.out", "--wrap", "sleep 300"});
  ASSERT_EQ(urgent.exitCode, 0) << urgent.err;
  const std::string urgentId = urgent.out.substr(0, urgent.out.find_first_of(";\n"));
  auto ended = console.wait(90s);
  ASSERT_FALSE(ended.timedOut) << ended.err << cluster_->logs();
  EXPECT_EQ(ended.exitCode, 1) << ended.err;
  EXPECT_NE(
      ended.err.find("finding: Slurm preempted the job for another one (Slurm job " + id + ": PREEMPTED)"),
      std::string::npos)
      << ended.err << cluster_->logs();
  EXPECT_TRUE(eventually([&] { return cluster_->jobState(urgentId) == "RUNNING"; }, 20s, kSlurmPoll))
      << cluster_->jobState(urgentId);
  auto shown = show("1");
  EXPECT_NE(shown.out.find("status failed"), std::string::npos) << shown.out;
  EXPECT_NE(shown.out.find("Slurm preempted the job"), std::string::npos) << shown.out;
  cluster_->command({"scancel", urgentId});
  expectNoStrayProcess();
}

}  // namespace
}  // namespace ringmaster::test
