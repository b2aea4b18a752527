// SPDX-License-Identifier: GPL-3.0-or-later
// Whole jobs through the launcher and an embedded agent: success, a rank killed, a watcher that reconnects.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <QFile>
#include <algorithm>
#include <set>

#include "agent/agent_server.h"
#include "common/json.h"
#include "console/session/agent_client.h"
#include "console/session/launcher.h"
#include "console/session/outcome_text.h"
#include "console/session/run_summary.h"
#include "tests/support/agent_test_support.h"
#include "tests/support/scripted_agent.h"

using namespace ringmaster;
using namespace ringmaster::test;
using namespace std::chrono_literals;

namespace {

console::LaunchPlan localPlan(const TempDir& dir, v1::JobSpec spec) {
  console::LaunchPlan plan;
  plan.spec = std::move(spec);
  plan.workerPath = binPath("ringmaster-worker");
  plan.stateDir = dir.file("state");
  return plan;
}

TEST(LauncherJob, ASmallJobSucceedsAndEveryRankReports) {
  TempDir dir("launch-ok");
  console::Launcher launcher(localPlan(dir, smallJob(2, 8)));
  RecordCollector records;
  console::RunSummaryBuilder summary(launcher.spec());
  launcher.addSink(&records);
  launcher.addSink(&summary);
  launcher.start();
  auto outcome = launcher.waitFor(120s);
  ASSERT_TRUE(outcome) << "the job did not finish";
  EXPECT_EQ(outcome->status, console::JobStatus::Succeeded) << ringmaster::toText(outcome->message);
  auto all = records.records();
  EXPECT_EQ(ranksPastStep(all, 8), 2);
  std::set<int> summaries;
  for (const auto& r : all) {
    if (r.has_summary()) summaries.insert(r.summary().rank());
  }
  EXPECT_EQ(summaries, (std::set<int>{0, 1}));

  rapidjson::Document json = parseJson(summary.toJson(launcher.jobId(), *outcome));
  EXPECT_STREQ(json["status"].GetString(), "finished");
  ASSERT_EQ(json["ranks"].Size(), 2u);
  const auto& rank0 = json["ranks"][0];
  EXPECT_GT(rank0["samples_per_s"].GetDouble(), 0);
  EXPECT_GT(rank0["step_ms"]["total"].GetDouble(), 0);
  EXPECT_GT(rank0["allreduce"]["ops"].GetDouble(), 0);
  EXPECT_GT(rank0["memory"]["peak_rss_bytes"].GetDouble(), 0);
  EXPECT_GT(rank0["param_checksum"].GetStringLength(), 0u);
  EXPECT_TRUE(json["params_identical"].GetBool());
}

TEST(LauncherJob, KillingOneRankFailsTheJobNamingItAndStopsTheOthers) {
  TempDir dir("launch-kill");
  console::Launcher launcher(localPlan(dir, smallJob(4, 100000)));
  RecordCollector records;
  launcher.addSink(&records);
  launcher.start();
  // Wait until every rank trains, so that the kill lands mid-run.
  ASSERT_TRUE(records.waitFor([](const auto& r) { return ranksPastStep(r, 2) == 4; }, 120s));
  auto pids = records.pids();
  ASSERT_EQ(pids.size(), 4u);

  ::kill(pids[2], SIGKILL);
  auto killedAt = std::chrono::steady_clock::now();
  ASSERT_TRUE(eventually([&] { return launcher.firstFailure().has_value(); }, 10s));
  auto reportedAfter = std::chrono::steady_clock::now() - killedAt;
  // The promise: the failure is reported within 2 s.
  EXPECT_LT(reportedAfter, 2s);
  auto failure = *launcher.firstFailure();
  EXPECT_EQ(failure.rank, 2);
  EXPECT_EQ(failure.signal, SIGKILL);

  auto outcome = launcher.waitFor(30s);
  ASSERT_TRUE(outcome);
  EXPECT_EQ(outcome->status, console::JobStatus::Failed);
  ASSERT_TRUE(outcome->failedRank);
  EXPECT_EQ(outcome->failedRank->rank, 2);
  EXPECT_NE(ringmaster::toText(outcome->message).find("rank 2"), std::string::npos)
      << ringmaster::toText(outcome->message);
  EXPECT_NE(ringmaster::toText(outcome->message).find("SIGKILL"), std::string::npos)
      << ringmaster::toText(outcome->message);
  for (const auto& [rank, pid] : pids) EXPECT_FALSE(processAlive(pid)) << "rank " << rank << " still runs";
}

TEST(LauncherJob, AWatcherThatReconnectsMissesNothingAndRepeatsNothing) {
  TempDir dir("launch-reconnect");
  console::Launcher launcher(localPlan(dir, smallJob(2, 60)));
  RecordCollector records;
  launcher.addSink(&records);
  launcher.start();
  // Break the stream several times while records flow.
  for (uint64_t step = 5; step <= 45; step += 10) {
    records.waitFor([&](const auto& r) { return ranksPastStep(r, step) >= 1; }, 60s);
    launcher.follower(0).dropConnection();
  }
  auto outcome = launcher.waitFor(120s);
  ASSERT_TRUE(outcome);
  EXPECT_EQ(outcome->status, console::JobStatus::Succeeded) << ringmaster::toText(outcome->message);
  EXPECT_GE(launcher.follower(0).reconnects(), 1u);
  auto all = records.records();
  ASSERT_FALSE(all.empty());
  for (size_t i = 0; i < all.size(); ++i)
    ASSERT_EQ(all[i].seq(), i + 1) << "gap or duplicate at record " << i;
  EXPECT_EQ(ranksPastStep(all, 60), 2);
}

// A console may let go of a job on remote hosts: the ranks train on under their agent, which keeps
// journaling. A job on the embedded agent cannot be let go of (its ranks are this process's children).
TEST(LauncherJob, ARemoteJobLetGoOfTrainsOnUnderItsAgent) {
  TempDir dir("launch-detach");
  agent::AgentOptions options;
  options.port = 0;
  options.stateDir = dir.file("remote");
  options.workerPath = binPath("ringmaster-worker");
  agent::AgentServer remote(options);

  console::LaunchPlan plan;
  plan.spec = smallJob(2, 1000000);  // far more steps than the test waits for
  plan.hosts = {{"127.0.0.1", 2}};
  plan.agentPort = remote.port();
  std::string jobId;
  uint64_t letGoAt = 0;  // the furthest step the console saw
  {
    console::Launcher launcher(plan);
    RecordCollector records;
    launcher.addSink(&records);
    launcher.start();
    jobId = launcher.jobId();
    ASSERT_TRUE(records.waitFor([&](const auto& r) { return ranksPastStep(r, 5) == 2; }, 60s));
    ASSERT_TRUE(launcher.detach());
    for (const auto& r : records.records()) {
      if (r.has_step()) letGoAt = std::max<uint64_t>(letGoAt, r.step().step());
    }
    auto outcome = launcher.waitFor(10s);
    ASSERT_TRUE(outcome);
    EXPECT_EQ(outcome->status, console::JobStatus::Detached) << ringmaster::toText(outcome->message);
    EXPECT_FALSE(launcher.detach()) << "a job can be let go of once";
  }  // the launcher is gone; it must not have stopped the job

  // The agent still journals steps from both ranks well past where the console let go.
  console::AgentClient client({"127.0.0.1", remote.port(), "", "", {}});
  RecordCollector later;
  console::JournalFollower follower(
      client, jobId, 1, [&](const std::vector<v1::Record>& r) { later.onRecords(jobId, "127.0.0.1", r); },
      [](const grpc::Status&) {});
  EXPECT_TRUE(later.waitFor([&](const auto& r) { return ranksPastStep(r, letGoAt + 20) == 2; }, 60s))
      << "the ranks stopped training after the console let go";
  bool exited = false;
  for (const auto& r : later.records()) {
    exited = exited || (r.has_rank_state() && r.rank_state().state() >= v1::RankState::STATE_EXITED);
  }
  EXPECT_FALSE(exited);
  EXPECT_TRUE(client.stop(jobId, 1).ok());

  TempDir localDir("launch-detach-local");
  console::Launcher local(localPlan(localDir, smallJob(2, 1000000)));
  local.start();
  EXPECT_FALSE(local.detach()) << "ranks of the embedded agent cannot outlive the console";
  local.stop(1);
  auto outcome = local.waitFor(60s);
  ASSERT_TRUE(outcome);
  EXPECT_EQ(outcome->status, console::JobStatus::Stopped);
}

// An agent that takes the stop but never ends the job (its job hangs, its stream stays open and answers
// keepalives): the launcher lets the host go kStopConfirmS after the grace, so that a stop (Ctrl-C, SIGTERM,
// closing the window) always ends the run, as stopped, naming the host.
TEST(LauncherJob, AStopAHostNeverConfirmsStillEndsTheRun) {
  v1::WatchReply running;
  auto* started = running.mutable_batch()->add_records();
  started->set_seq(1);
  started->mutable_rank_state()->set_state(v1::RankState::STATE_RUNNING);
  ScriptedAgent agent(ScriptedAgent::sendsThenHangs(running));
  TempDir dir("launch-unconfirmed");
  console::LaunchPlan plan = localPlan(dir, smallJob(1, 5));
  plan.hosts = {{"127.0.0.1", 1}};
  plan.agentPort = agent.port();
  plan.token = ScriptedAgent::kToken;
  console::Launcher launcher(plan);
  launcher.start();
  ASSERT_TRUE(eventually([&] { return agent.watches() == 1; }, 30s));
  launcher.stop(0.1);
  EXPECT_EQ(agent.stops(), 1);
  auto outcome = launcher.waitFor(120s);
  ASSERT_TRUE(outcome) << "the run waits for ever for a host that never confirms the stop";
  EXPECT_EQ(outcome->status, console::JobStatus::Stopped) << ringmaster::toText(outcome->message);
  EXPECT_EQ(ringmaster::toText(outcome->message),
            fillPattern(console::text::kStopNotConfirmed,
                        {"127.0.0.1", std::to_string(console::Launcher::kStopConfirmS)}));
}

// `ringmaster run` against that agent, sent SIGTERM while it follows the stuck stream: the console asks the
// host to stop, lets it go when it never confirms, and exits 130 saying so.
TEST(LauncherJob, SigtermEndsRingmasterRunWhileAHostNeverConfirmsTheStop) {
  v1::WatchReply running;
  auto* started = running.mutable_batch()->add_records();
  started->set_seq(1);
  started->mutable_rank_state()->set_state(v1::RankState::STATE_RUNNING);
  ScriptedAgent agent(ScriptedAgent::sendsThenHangs(running));
  TempDir dir("run-sigterm");
  writeFile(dir.file("token"), ScriptedAgent::kToken);
  const std::string err = dir.file("stderr");
  std::vector<std::string> argv = {binPath("ringmaster"),
                                   "run",
                                   "-np",
                                   "1",
                                   "-H",
                                   "127.0.0.1:1",
                                   "--agent-port",
                                   std::to_string(agent.port()),
                                   "--token-file",
                                   dir.file("token"),
                                   "--no-store",
                                   "--state-dir",
                                   dir.file("state"),
                                   "--",
                                   "/bin/sleep",
                                   "1000"};
  const pid_t console = ::fork();
  if (console == 0) {
    const int fd = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ::dup2(fd, STDERR_FILENO);
    ::dup2(fd, STDOUT_FILENO);
    std::vector<char*> args;
    for (auto& a : argv) args.push_back(a.data());
    args.push_back(nullptr);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  ASSERT_GT(console, 0);
  ASSERT_TRUE(eventually([&] { return agent.watches() == 1; }, 60s)) << readFile(err);
  ASSERT_EQ(::kill(console, SIGTERM), 0);
  int status = 0;
  const bool ended = eventually([&] { return ::waitpid(console, &status, WNOHANG) == console; }, 120s);
  if (!ended) {
    ::kill(console, SIGKILL);
    ::waitpid(console, &status, 0);
  }
  const std::string said = readFile(err);
  ASSERT_TRUE(ended) << "ringmaster run did not end after SIGTERM: " << said;
  ASSERT_TRUE(WIFEXITED(status)) << said;
  EXPECT_EQ(WEXITSTATUS(status), 130) << said;
  EXPECT_EQ(agent.stops(), 1) << said;
  EXPECT_NE(
      said.find("stopped: stopped on request; host 127.0.0.1 did not confirm within 10 s that its ranks "
                "ended: they may still run there"),
      std::string::npos)
      << said;
}

}  // namespace
