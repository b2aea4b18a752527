// SPDX-License-Identifier: GPL-3.0-or-later
// A rank's telemetry: training goes on without an agent; timelines are valid Chrome trace JSON, even cut
// mid-run; `ringmaster run` reports, summarises and fails as it should.
#include <gtest/gtest.h>
#include <signal.h>

#include <QByteArray>
#include <set>

#include "common/json.h"
#include "console/session/launcher.h"
#include "jobflags/job_flags.h"
#include "tests/support/agent_test_support.h"
#include "worker/telemetry_sender.h"

using namespace ringmaster;
using namespace ringmaster::test;
using namespace std::chrono_literals;

namespace {

// Parses a Chrome trace file; fails the test (and gives an empty array) when it is not valid JSON.
rapidjson::Document traceEvents(const std::string& path) {
  rapidjson::Document doc;
  try {
    doc = parseJson(readFile(path));
  } catch (const JsonError& e) {
    ADD_FAILURE() << path << ": " << e.what();
  }
  EXPECT_TRUE(doc.IsArray()) << path;
  if (!doc.IsArray()) doc.SetArray();
  return doc;
}

std::set<std::string> phaseNames(const rapidjson::Value& events) {
  std::set<std::string> names;
  for (const auto& e : events.GetArray()) {
    if (e["ph"] != "M") names.insert(e["name"].GetString());
  }
  return names;
}

std::vector<std::string> workerFlags(const v1::JobSpec& spec) {
  return workerArguments(spec);
}

TEST(Telemetry, EachRankWritesItsOwnTimelineFile) {
  EXPECT_EQ(worker::timelinePathForRank("t.json", 0, 1), "t.json");
  EXPECT_EQ(worker::timelinePathForRank("dir/t.json", 1, 2), "dir/t.rank1.json");
  EXPECT_EQ(worker::timelinePathForRank("dir.d/trace", 3, 4), "dir.d/trace.rank3");
  EXPECT_EQ(worker::timelinePathForRank("jobs/rank%r.trace.json", 2, 4), "jobs/rank2.trace.json");
}

TEST(Telemetry, ARankWhoseAgentIsUnreachableStillFinishes) {
  TempDir dir("telemetry-unreachable");
  std::vector<std::string> argv = {binPath("ringmaster-worker")};
  for (auto& a : workerFlags(smallJob(1, 20))) argv.push_back(a);
  argv.push_back("--timeline");
  argv.push_back(dir.file("trace.json"));
  auto result = runProcess(argv,
                           {{"RANK", "0"},
                            {"LOCAL_RANK", "0"},
                            {"WORLD_SIZE", "1"},
                            {"LOCAL_WORLD_SIZE", "1"},
                            {"MASTER_ADDR", "127.0.0.1"},
                            {"MASTER_PORT", std::to_string(freePort())},
                            // Nothing listens there: the agent is gone from the start.
                            {"RINGMASTER_AGENT", "127.0.0.1:" + std::to_string(freePort())},
                            {"RINGMASTER_JOB_ID", "unreachable"}},
                           120s);
  EXPECT_EQ(result.exitCode, 0) << result.err;
  EXPECT_NE(result.err.find("training goes on"), std::string::npos) << result.err;
  // The timeline does not depend on the agent.
  auto names = phaseNames(traceEvents(dir.file("trace.json")));
  EXPECT_TRUE(names.count("FORWARD")) << "no FORWARD events";
}

TEST(Telemetry, ATimelineCutMidRunStillParses) {
  TempDir dir("telemetry-cut");
  console::LaunchPlan plan;
  plan.spec = smallJob(2, 100000);
  plan.spec.set_timeline(true);
  plan.workerPath = binPath("ringmaster-worker");
  plan.stateDir = dir.file("state");
  console::Launcher launcher(plan);
  RecordCollector records;
  launcher.addSink(&records);
  launcher.start();
  ASSERT_TRUE(records.waitFor([](const auto& r) { return ranksPastStep(r, 5) == 2; }, 120s));
  auto pids = records.pids();
  ::kill(pids[1], SIGKILL);  // no chance to finish its file
  auto outcome = launcher.waitFor(30s);
  ASSERT_TRUE(outcome);
  std::string path = dir.file("state") + "/jobs/" + launcher.jobId() + "/rank1.trace.json";
  auto events = traceEvents(path);
  EXPECT_GT(events.Size(), 10u);
  EXPECT_TRUE(phaseNames(events).count("BACKWARD"));
}

class RunCommand : public ::testing::Test {
 protected:
  ProcessResult run(std::vector<std::string> args) {
    std::vector<std::string> argv = {binPath("ringmaster"),        "run",         "--worker",
                                     binPath("ringmaster-worker"), "--state-dir", dir_.file("state")};
    argv.insert(argv.end(), args.begin(), args.end());
    return runProcess(argv, {}, 300s);
  }
  TempDir dir_{"run-command"};
};

TEST_F(RunCommand, ATwoRankTimelineHoldsEveryRankAndPhase) {
  for (std::string engine : {"ddp", "horovod"}) {
    SCOPED_TRACE(engine);
    std::string trace = dir_.file("timeline-" + engine + ".json");
    auto result = run({"-np", "2", "--engine", engine, "--model", "mlp", "--data", "synthetic", "--steps",
                       "6", "--batch-size", "16", "--timeline", trace});
    ASSERT_EQ(result.exitCode, 0) << result.err;
    auto events = traceEvents(trace);
    std::set<int> rows;
    for (const auto& e : events.GetArray()) {
      if (e["ph"] == "M" && e["name"] == "process_name") rows.insert(e["pid"].GetInt());
    }
    EXPECT_EQ(rows, (std::set<int>{0, 1}));
    auto names = phaseNames(events);
    std::vector<std::string> expected = {"DATA", "FORWARD", "BACKWARD", "OPTIMIZER"};
    if (engine == "ddp") {
      expected.push_back("ALLREDUCE");
    } else {
      for (const char* phase : {"NEGOTIATE_ALLREDUCE", "QUEUE", "MEMCPY_IN_FUSION_BUFFER", "GLOO_ALLREDUCE",
                                "MEMCPY_OUT_FUSION_BUFFER"}) {
        expected.push_back(phase);
      }
    }
    for (const auto& phase : expected) EXPECT_TRUE(names.count(phase)) << "no " << phase << " events";
  }
}

TEST_F(RunCommand, WritesTheSummaryAndSucceeds) {
  std::string summary = dir_.file("summary.json");
  auto result = run({"-np", "2", "--model", "mlp", "--data", "synthetic", "--steps", "10", "--batch-size",
                     "16", "--summary-json", summary});
  ASSERT_EQ(result.exitCode, 0) << result.err;
  EXPECT_NE(result.err.find(" finished"), std::string::npos) << result.err;
  auto json = parseJson(readFile(summary));
  ASSERT_TRUE(json.IsObject());
  EXPECT_STREQ(json["status"].GetString(), "finished");
  EXPECT_EQ(json["ranks"].Size(), 2u);
  EXPECT_GT(json["samples_per_s"].GetDouble(), 0);
  EXPECT_TRUE(json["params_identical"].GetBool());
  EXPECT_TRUE(json.HasMember("findings"));
}

TEST_F(RunCommand, AFailedRankFailsTheRunAndIsNamed) {
  std::string summary = dir_.file("summary.json");
  auto result = run({"-np", "2", "--model", "mlp", "--data", "synthetic", "--steps", "500", "--batch-size",
                     "16", "--inject-crash", "1:3", "--summary-json", summary});
  EXPECT_NE(result.exitCode, 0);
  EXPECT_NE(result.exitCode, 2);
  EXPECT_NE(result.err.find("failed: rank 1 on host"), std::string::npos) << result.err;
  auto json = parseJson(readFile(summary));
  EXPECT_STREQ(json["status"].GetString(), "failed");
  EXPECT_EQ(json["failed_rank"]["rank"].GetInt(), 1);
  // The crash is a finding that says what to do.
  std::string advice;
  for (const auto& f : json["findings"].GetArray()) {
    if (std::string(f["kind"].GetString()) == "KIND_CRASH" && f.HasMember("advice"))
      advice = f["advice"].GetString();
  }
  EXPECT_FALSE(advice.empty()) << readFile(summary);
}

TEST_F(RunCommand, BadInputIsAUsageError) {
  auto result = run({"-np", "0"});
  EXPECT_EQ(result.exitCode, 2);
  EXPECT_NE(result.err.find("-np"), std::string::npos) << result.err;
  result = run({"-np", "2", "-H", "host-a:x"});
  EXPECT_EQ(result.exitCode, 2);
  result = run({"-np", "2", "--batch-size", "0"});
  EXPECT_EQ(result.exitCode, 2);
}

TEST_F(RunCommand, AnUnreachableHostIsNamedAndNothingStarts) {
  auto result = run({"-np", "2", "-H", "127.0.0.1:2", "--agent-port", std::to_string(freePort()), "--model",
                     "mlp", "--data", "synthetic", "--steps", "5"});
  EXPECT_EQ(result.exitCode, 1) << result.err;
  EXPECT_NE(result.err.find("cannot reach the agent"), std::string::npos) << result.err;
}

}  // namespace
