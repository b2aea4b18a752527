// SPDX-License-Identifier: GPL-3.0-or-later
// The probe library for users' programs, through its public header only: outside `ringmaster run` it does
// nothing; with an agent that is gone or a malformed environment the program trains on and is told why.
#include <gtest/gtest.h>
#include <ringmaster/probe.h>
#include <stdlib.h>

#include <chrono>
#include <map>
#include <string>
#include <thread>

#include "tests/support/ports.h"

namespace {

// Sets variables for one test and restores the environment after it.
class Environment {
 public:
  explicit Environment(const std::map<std::string, std::string>& values) {
    for (const char* name :
         {"RINGMASTER_AGENT", "RINGMASTER_JOB_ID", "RINGMASTER_JOB_SECRET", "RINGMASTER_TIMELINE", "RANK",
          "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT"}) {
      if (const char* old = getenv(name)) saved_[name] = old;
      unsetenv(name);
    }
    for (const auto& [name, value] : values) setenv(name.c_str(), value.c_str(), 1);
  }
  ~Environment() {
    for (const auto& [name, value] : saved_) setenv(name.c_str(), value.c_str(), 1);
  }

 private:
  std::map<std::string, std::string> saved_;
};

std::map<std::string, std::string> rankZeroOfTwo() {
  return {{"RANK", "0"},
          {"LOCAL_RANK", "0"},
          {"WORLD_SIZE", "2"},
          {"LOCAL_WORLD_SIZE", "2"},
          {"MASTER_ADDR", "127.0.0.1"},
          {"MASTER_PORT", "29500"},
          {"RINGMASTER_JOB_ID", "job"},
          {"RINGMASTER_JOB_SECRET", "secret"}};
}

// A training loop's worth of calls: every phase, an all-reduce and the loss each step.
void train(ringmaster::Probe& probe, int steps) {
  for (int s = 0; s < steps; ++s) {
    ringmaster::Step step(probe, 32);
    EXPECT_EQ(step.index(), static_cast<uint64_t>(s));
    step.phase(ringmaster::Phase::Forward);
    { ringmaster::Step::Scope backward(step, ringmaster::Phase::Backward); }
    step.phase(ringmaster::Phase::CommWait);
    const int64_t start = probe.now();
    probe.allreduce(1 << 20, start, probe.now(), 0, 4);
    step.phase(ringmaster::Phase::Optimizer);
    step.loss(1.0 / (s + 1));
    probe.log("accuracy", 0.5);
  }
}

TEST(ProbeLibrary, OutsideRingmasterItDoesNothingAndTheLoopRuns) {
  Environment env({});
  ringmaster::Probe probe;
  EXPECT_FALSE(probe.active());
  EXPECT_EQ(probe.rank(), 0);
  EXPECT_EQ(probe.worldSize(), 1);
  train(probe, 100);
  EXPECT_FALSE(probe.stopRequested());
  EXPECT_EQ(probe.recordsSent(), 0u);
  EXPECT_EQ(probe.recordsDropped(), 0u);
  // A clock alignment with no agent asks nothing of the store.
  int calls = 0;
  ringmaster::ClockStore store;
  store.set = [&](const std::string&, const std::string&) { ++calls; };
  store.get = [&](const std::string&) {
    ++calls;
    return std::string("0");
  };
  probe.alignClock(store);
  EXPECT_EQ(calls, 0);
}

TEST(ProbeLibrary, TheJobClockRunsForward) {
  Environment env({});
  ringmaster::Probe probe;
  const int64_t first = probe.now();
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
  EXPECT_GT(probe.now(), first);
}

TEST(ProbeLibrary, WithTheAgentGoneTrainingGoesOnAndTheRecordsAreCountedAsDropped) {
  auto values = rankZeroOfTwo();
  // Nothing listens there.
  values["RINGMASTER_AGENT"] = "127.0.0.1:" + std::to_string(ringmaster::test::freePort());
  Environment env(values);
  testing::internal::CaptureStderr();
  {
    ringmaster::Probe probe;
    EXPECT_TRUE(probe.active());
    EXPECT_EQ(probe.rank(), 0);
    EXPECT_EQ(probe.worldSize(), 2);
    train(probe, 200);
    // The sender gives up on each batch it cannot deliver; training never waited for it.
    for (int i = 0; i < 200 && probe.recordsDropped() == 0; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_GT(probe.recordsDropped(), 0u);
    EXPECT_EQ(probe.recordsSent(), 0u);
    EXPECT_FALSE(probe.stopRequested());
  }
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("training goes on"), std::string::npos) << err;
}

TEST(ProbeLibrary, AMalformedRankIsSaidAndTheProgramTrainsOnWithoutTelemetry) {
  auto values = rankZeroOfTwo();
  values["RINGMASTER_AGENT"] = "127.0.0.1:1";
  values["RANK"] = "two";
  Environment env(values);
  testing::internal::CaptureStderr();
  ringmaster::Probe probe;
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_FALSE(probe.active());
  EXPECT_NE(err.find("RANK='two'"), std::string::npos) << err;
  EXPECT_NE(err.find("without telemetry"), std::string::npos) << err;
  train(probe, 10);
}

TEST(ProbeLibrary, ClockAlignmentGoesThroughTheProgramsStoreUnderItsOwnPrefix) {
  auto values = rankZeroOfTwo();
  values["RINGMASTER_AGENT"] = "127.0.0.1:" + std::to_string(ringmaster::test::freePort());
  values["RANK"] = "1";
  values["LOCAL_RANK"] = "1";
  Environment env(values);
  testing::internal::CaptureStderr();
  {
    ringmaster::Probe probe;
    // Rank 0 answers every ping with a clock an hour ahead of this rank's, and starts the job then.
    const int64_t hour = 3600LL * 1000 * 1000 * 1000;
    std::map<std::string, std::string> keys;
    ringmaster::ClockStore store;
    store.set = [&](const std::string& key, const std::string& value) { keys[key] = value; };
    store.get = [&](const std::string& key) {
      EXPECT_EQ(key.rfind("ringmaster/clock/", 0), 0u) << key;
      const int64_t monotonic = std::chrono::duration_cast<std::chrono::nanoseconds>(
                                    std::chrono::steady_clock::now().time_since_epoch())
                                    .count();
      return std::to_string(monotonic + hour);  // a pong, and the epoch (rank 0's clock as the job starts)
    };
    probe.alignClock(store);
    EXPECT_FALSE(keys.empty());
    for (const auto& [key, value] : keys) EXPECT_EQ(key.rfind("ringmaster/clock/ping/1/", 0), 0u) << key;
    // The job started at rank 0's "now": this rank's job clock is near zero, not an hour off.
    EXPECT_GE(probe.now(), 0);
    EXPECT_LT(probe.now(), hour / 60);
  }
  testing::internal::GetCapturedStderr();
}

}  // namespace
