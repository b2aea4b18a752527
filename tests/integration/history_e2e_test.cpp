// SPDX-License-Identifier: GPL-3.0-or-later
// Diagnosis end to end on real runs: real ranks (ringmaster-worker) launched through the embedded agent,
// their records ingested into a real store through the run session `ringmaster run` uses, with faults
// injected: a straggler, a leak, a hang.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "common/clock.h"
#include "console/session/ingest.h"
#include "console/session/launcher.h"
#include "console/session/run_session.h"
#include "tests/support/agent_test_support.h"
#include "tests/support/diagnosis_synthetic.h"

using namespace ringmaster;
using namespace std::chrono_literals;
using test::binPath;
using test::smallJob;
using test::TempDir;

namespace {

constexpr int64_t kMinuteNs = 60'000'000'000;

console::LaunchPlan planFor(const TempDir& dir, v1::JobSpec spec) {
  console::LaunchPlan plan;
  plan.spec = std::move(spec);
  plan.workerPath = binPath("ringmaster-worker");
  plan.stateDir = dir.file("state");
  return plan;
}

NewRun newRun(const v1::JobSpec& spec, const std::string& name) {
  NewRun run;
  run.name = name;
  run.spec = spec;
  return run;
}

std::vector<std::string> summaries(const std::vector<v1::Finding>& findings) {
  std::vector<std::string> out;
  for (const auto& f : findings) out.push_back(f.summary());
  return out;
}

// Runs the job to its end through a run session, as `ringmaster run` and the console do; returns the run's
// stored findings, after checking they are the ones the session showed at the end and that the hosts were
// recorded.
std::vector<v1::Finding> runToEnd(const TempDir& dir, v1::JobSpec spec, const std::string& name,
                                  console::JobStatus expected = console::JobStatus::Succeeded) {
  spec.set_name(name);
  console::RunSessionOptions options;
  options.storePath = dir.file("runs.sqlite");
  console::RunSession session(planFor(dir, spec), options);
  session.start();
  std::optional<console::JobOutcome> outcome;
  const auto deadline = std::chrono::steady_clock::now() + 240s;
  while (!(outcome = session.waitFor(1s)) && std::chrono::steady_clock::now() < deadline) {
  }
  EXPECT_TRUE(outcome.has_value()) << "the job did not end";
  if (!outcome) {
    session.stop(1);
    outcome = session.waitFor(60s);
    if (!outcome) return {};
  }
  EXPECT_EQ(outcome->status, expected) << ringmaster::toText(outcome->message);
  const console::RunResult result = session.finish(*outcome);
  EXPECT_TRUE(result.problems.empty()) << result.problems.front();

  RunStore store(dir.file("runs.sqlite"));
  const int64_t runId = session.runId();
  EXPECT_GT(store.counts(runId).steps, 0);
  const auto info = store.run(runId);
  EXPECT_EQ(info->status, console::statusName(expected));
  EXPECT_EQ(info->name, name);
  EXPECT_EQ(info->environment.count("libtorch"), 1u)
      << "the hosts' LibTorch is part of the run's environment";
  const auto hosts = store.hosts(runId);
  EXPECT_EQ(hosts.size(), 1u);
  for (const auto& [host, facts] : hosts) {
    EXPECT_FALSE(host.empty());
    EXPECT_GT(std::stoi(facts.at("cores")), 0);
    EXPECT_EQ(facts.count("memory"), 1u);
  }
  // One diagnosis: the findings the session showed at the end are the ones the history keeps, and stay so.
  const std::vector<v1::Finding> stored = store.findings(runId);
  EXPECT_EQ(summaries(stored), summaries(result.findings));
  // A minute on, time-dependent findings (a stall's wait) would have moved on: a finished run's have not.
  EXPECT_EQ(summaries(session.findingsAsOf(monotonicNs() + kMinuteNs)), summaries(stored));
  return stored;
}

std::string describe(const std::vector<v1::Finding>& findings) {
  std::string out;
  for (const auto& f : findings) out += "\n  " + f.summary();
  return out;
}

}  // namespace

TEST(DiagnosisEndToEnd, InjectedStragglerIsFoundWithCauseCompute) {
  TempDir dir("e2e-straggler");
  v1::JobSpec spec = smallJob(4, 60);
  auto* straggler = spec.mutable_faults()->add_stragglers();  // --inject-straggler 2:50
  straggler->set_rank(2);
  straggler->set_extra_ms(50);
  auto findings = runToEnd(dir, spec, "straggler");
  const v1::Finding* f = test::findingOf(findings, v1::Finding::KIND_STRAGGLER, 2);
  ASSERT_NE(f, nullptr) << "findings:" << describe(findings);
  EXPECT_EQ(f->cause(), "compute") << f->summary();
  EXPECT_GT(f->evidence().at("others_wait_ms_per_step"), 30) << f->summary();
  for (int other : {0, 1, 3})
    EXPECT_EQ(test::findingOf(findings, v1::Finding::KIND_STRAGGLER, other), nullptr) << describe(findings);
}

// What a straggler costs is what the others wait for it, measured: the waiting rank's communication wait
// less the straggler's, per step. With two ranks the median rank is their mean, which would halve it. A
// rank that arrives late makes the other's all-reduce ops slow; that is no network congestion.
TEST(DiagnosisEndToEnd, AStragglersStatedCostIsWhatTheOtherRankWaitsAndNoCongestionIsClaimed) {
  TempDir dir("e2e-straggler-cost");
  v1::JobSpec spec = smallJob(2, 60);
  auto* straggler = spec.mutable_faults()->add_stragglers();  // --inject-straggler 1:60
  straggler->set_rank(1);
  straggler->set_extra_ms(60);
  auto findings = runToEnd(dir, spec, "straggler cost");
  const v1::Finding* f = test::findingOf(findings, v1::Finding::KIND_STRAGGLER, 1);
  ASSERT_NE(f, nullptr) << "findings:" << describe(findings);

  RunStore store(dir.file("runs.sqlite"));
  const auto series = store.rankSeries(store.runs().front().id);
  ASSERT_EQ(series.size(), 2u);
  const auto since = static_cast<uint64_t>(f->since_step());
  auto meanWaitMs = [&](const RankSeries& rank) {
    double sum = 0;
    int steps = 0;
    for (const auto& s : rank.steps) {
      if (s.step() < since) continue;
      sum += double(s.comm_wait_ns()) / 1e6;
      ++steps;
    }
    return steps > 0 ? sum / steps : 0.0;
  };
  const double measuredMs = meanWaitMs(series[0]) - meanWaitMs(series[1]);
  const double statedMs = f->evidence().at("others_wait_ms_per_step");
  EXPECT_GT(measuredMs, 30) << f->summary();
  EXPECT_NEAR(statedMs, measuredMs, 0.15 * measuredMs) << f->summary();
  for (const auto& g : findings) {
    EXPECT_FALSE(g.kind() == v1::Finding::KIND_COMMUNICATION && g.evidence().count("slow_ops"))
        << g.summary();
  }
}

TEST(DiagnosisEndToEnd, InjectedLeakIsMeasuredNearTwoMiBPerStep) {
  TempDir dir("e2e-leak");
  v1::JobSpec spec = smallJob(2, 150);
  auto* leak = spec.mutable_faults()->add_leaks();  // --inject-leak 1:2
  leak->set_rank(1);
  leak->set_mb_per_step(2);
  auto findings = runToEnd(dir, spec, "leak");
  const v1::Finding* f = test::findingOf(findings, v1::Finding::KIND_MEMORY_LEAK, 1);
  ASSERT_NE(f, nullptr) << "findings:" << describe(findings);
  EXPECT_NEAR(f->evidence().at("mib_per_step"), 2, 0.5) << f->summary();
  EXPECT_EQ(test::findingOf(findings, v1::Finding::KIND_MEMORY_LEAK, 0), nullptr) << describe(findings);
}

TEST(DiagnosisEndToEnd, InjectedCrashIsTheFirstFindingLiveAndStored) {
  TempDir dir("e2e-crash");
  v1::JobSpec spec = smallJob(2, 60);
  auto* crash = spec.mutable_faults()->add_crashes();  // --inject-crash 1:20
  crash->set_rank(1);
  crash->set_step(20);
  auto findings = runToEnd(dir, spec, "crash", console::JobStatus::Failed);
  ASSERT_FALSE(findings.empty());
  EXPECT_EQ(findings.front().kind(), v1::Finding::KIND_CRASH) << describe(findings);
  EXPECT_EQ(findings.front().rank(), 1) << describe(findings);
}

TEST(DiagnosisEndToEnd, InjectedHangIsAStallNamingTheRankWithinTenSeconds) {
  TempDir dir("e2e-hang");
  v1::JobSpec spec = smallJob(4, 100000);
  spec.set_engine(v1::ENGINE_HOROVOD);              // the default --stall-check-s
  auto* hang = spec.mutable_faults()->add_hangs();  // --inject-hang 1:10
  hang->set_rank(1);
  hang->set_step(10);
  console::RunIngest ingest(dir.file("runs.sqlite"), newRun(spec, "hang"));
  console::Launcher launcher(planFor(dir, spec));
  launcher.addSink(&ingest);
  launcher.start();

  RunStore reader(dir.file("runs.sqlite"));
  auto lastProgress = std::chrono::steady_clock::now();
  int64_t lastSteps = -1;
  const v1::Finding* stall = nullptr;
  std::vector<v1::Finding> findings;
  auto deadline = std::chrono::steady_clock::now() + 120s;
  while (!stall && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(100ms);
    ingest.tick();
    int64_t steps = reader.counts(ingest.runId()).steps;
    if (steps != lastSteps) {
      lastSteps = steps;
      lastProgress = std::chrono::steady_clock::now();
    }
    findings = reader.findings(ingest.runId());
    stall = test::findingOf(findings, v1::Finding::KIND_STALL, 1);
  }
  double secondsAfterLastStep =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - lastProgress).count();
  launcher.stop(1);
  launcher.waitFor(60s);
  ingest.finish("stopped");
  // The stall's wait grows while the job runs; once finished, what is shown is what was stored.
  const auto stored = summaries(reader.findings(ingest.runId()));
  EXPECT_EQ(summaries(ingest.findingsAsOf(monotonicNs() + kMinuteNs)), stored);
  ASSERT_NE(stall, nullptr) << "no stall finding for rank 1; findings:" << describe(findings);
  EXPECT_LT(secondsAfterLastStep, 10) << stall->summary();
  EXPECT_NE(stall->summary().find("rank 1"), std::string::npos) << stall->summary();
  // Named by rank 0's stall inspector, with the tensor rank 1 withholds, not only as the rank behind.
  EXPECT_EQ(stall->cause(), "missing tensors") << stall->summary();
  EXPECT_NE(stall->summary().find("has not submitted"), std::string::npos) << stall->summary();
}
