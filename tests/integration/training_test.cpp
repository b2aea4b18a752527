// SPDX-License-Identifier: GPL-3.0-or-later
// Real multi-process training on loopback: ringmaster-worker ranks meet through the TCPStore, train with both
// engines over Gloo and must agree with each other, with a single large-batch rank, and with an uninterrupted
// run.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <csignal>
#include <cstring>
#include <filesystem>

#include "tests/integration/training_ranks.h"

namespace ringmaster::test {
namespace {

using Flags = std::vector<std::string>;

// Small and quick: a few steps of a small model on synthetic data.
Flags quickJob(const std::string& engine, const std::string& model, int batch, int steps) {
  return {"--engine",     engine,
          "--model",      model,
          "--data",       "synthetic",
          "--batch-size", std::to_string(batch),
          "--steps",      std::to_string(steps),
          "--lr",         "0.05",
          "--seed",       "11"};
}

Flags operator+(Flags a, const Flags& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

constexpr double kTolerance = 1e-5;

// (1) After K steps every rank holds bit-identical parameters, for both engines and 2 and 4 ranks.
class RanksAgree : public ::testing::TestWithParam<std::tuple<std::string, int>> {};

TEST_P(RanksAgree, BitIdenticalParametersAfterTraining) {
  auto [engine, world] = GetParam();
  TrainingJob job(world, quickJob(engine, "cnn", 16, 6) + Flags{"--momentum", "0.9"});
  ASSERT_TRUE(job.succeeded()) << job.describe();
  expectRanksIdentical(job);
  EXPECT_EQ(job.number(0, "steps"), 6);
  EXPECT_GT(job.engineStat(0, "collectives"), 0);
  // The ranks trained on different samples: their losses differ even though their parameters agree.
  EXPECT_NE(job.number(0, "final_loss"), job.number(1, "final_loss"));
  // Ranks on one host share one monotonic clock: the measured offset to rank 0 is zero within its error
  // bound (half the round trip it came from).
  const double rtt = job.number(1, "clock_rtt_ns");
  EXPECT_GT(rtt, 0);
  EXPECT_LE(std::abs(job.number(1, "clock_offset_ns")), rtt / 2 + 1000);
}

INSTANTIATE_TEST_SUITE_P(Engines, RanksAgree,
                         ::testing::Combine(::testing::Values("ddp", "horovod"), ::testing::Values(2, 4)),
                         [](const auto& info) {
                           return std::get<0>(info.param) + "_" + std::to_string(std::get<1>(info.param)) +
                                  "ranks";
                         });

// (2) N ranks x batch B for K steps equals 1 rank x batch N*B (plain SGD, no BatchNorm).
TEST(DataParallel, NRanksEqualOneRankWithNTimesTheBatch) {
  TrainingJob one(1, quickJob("ddp", "mlp", 64, 5));
  ASSERT_TRUE(one.succeeded()) << one.describe();
  for (int world : {2, 4}) {
    TrainingJob many(world, quickJob("ddp", "mlp", 64 / world, 5));
    ASSERT_TRUE(many.succeeded()) << many.describe();
    EXPECT_LE(relativeDifference(many.parameters(0), one.parameters(0)), kTolerance) << world << " ranks";
  }
}

TEST(DataParallel, HoldsOnFashionMnistWithTheCnn) {
  Flags job = {"--model", "cnn", "--data", "fashion-mnist", "--steps", "4", "--lr", "0.05", "--seed", "3"};
  TrainingJob one(1, job + Flags{"--batch-size", "32"});
  TrainingJob two(2, job + Flags{"--batch-size", "16"});
  ASSERT_TRUE(one.succeeded()) << one.describe();
  ASSERT_TRUE(two.succeeded()) << two.describe();
  EXPECT_LE(relativeDifference(two.parameters(0), one.parameters(0)), kTolerance);
}

// (3) The two engines agree with each other on the same configuration.
TEST(Engines, DdpAndHorovodAgree) {
  TrainingJob ddp(2, quickJob("ddp", "mlp", 16, 5) + Flags{"--momentum", "0.5"});
  TrainingJob horovod(2, quickJob("horovod", "mlp", 16, 5) + Flags{"--momentum", "0.5"});
  ASSERT_TRUE(ddp.succeeded()) << ddp.describe();
  ASSERT_TRUE(horovod.succeeded()) << horovod.describe();
  EXPECT_LE(relativeDifference(horovod.parameters(0), ddp.parameters(0)), kTolerance);
}

// (3b) Horovod's response cache changes how the ranks agree, never what they reduce: the same seed and steps
// give the same parameters bit for bit with the cache (the default) and with --no-response-cache (on two
// ranks a sum does not depend on how tensors were fused). With the cache, the steps after the first are
// answered by cached cycles; without it, every cycle is a negotiation.
TEST(Engines, HorovodResponseCacheKeepsTheParameters) {
  const Flags job = quickJob("horovod", "cnn", 16, 8) + Flags{"--momentum", "0.9"};
  TrainingJob cached(2, job);
  TrainingJob negotiated(2, job + Flags{"--no-response-cache"});
  ASSERT_TRUE(cached.succeeded()) << cached.describe();
  ASSERT_TRUE(negotiated.succeeded()) << negotiated.describe();
  expectRanksIdentical(cached);
  EXPECT_EQ(cached.parameters(0), negotiated.parameters(0));
  EXPECT_EQ(cached.text(0, "param_checksum"), negotiated.text(0, "param_checksum"));
  for (int r = 0; r < 2; ++r) {
    EXPECT_GT(cached.engineStat(r, "cached_cycles"), 0);
    EXPECT_EQ(negotiated.engineStat(r, "cached_cycles"), 0);
    EXPECT_LT(cached.engineStat(r, "negotiations"), negotiated.engineStat(r, "negotiations"));
  }
}

// (4) Fashion-MNIST, cnn, 2 ranks, 1 epoch: at least 85% test accuracy.
TEST(FashionMnist, OneEpochOnTwoRanksReaches85Percent) {
  Flags flags = {"--model", "cnn",  "--data", "fashion-mnist", "--epochs", "1",      "--batch-size",
                 "32",      "--lr", "0.05",   "--momentum",    "0.9",      "--seed", "1"};
  JobOptions options;
  options.timeout = std::chrono::seconds(280);
  TrainingJob job(2, flags, options);
  ASSERT_TRUE(job.succeeded()) << job.describe();
  EXPECT_GE(job.number(0, "test_accuracy"), 0.85);
  EXPECT_EQ(job.number(0, "test_accuracy"), job.number(1, "test_accuracy"));  // reduced across ranks
  EXPECT_EQ(job.number(0, "epochs"), 1);
  EXPECT_EQ(job.number(0, "samples"), 30000);
  expectRanksIdentical(job);
}

// (5) Accumulation: no collective on the first N-1 micro-batches, and the same result as the large batch.
// Horovod runs without fusion here, so that its collectives are one per tensor and step whatever the timing.
class Accumulation : public ::testing::TestWithParam<std::string> {};

TEST_P(Accumulation, OnlyTheLastMicroBatchCommunicates) {
  const std::string engine = GetParam();
  const Flags noFusion = {"--fusion-threshold-mb", "0"};
  TrainingJob large(2, quickJob(engine, "mlp", 32, 3) + noFusion);
  TrainingJob micro(2, quickJob(engine, "mlp", 8, 3) + noFusion + Flags{"--accumulation-steps", "4"});
  ASSERT_TRUE(large.succeeded()) << large.describe();
  ASSERT_TRUE(micro.succeeded()) << micro.describe();
  EXPECT_GT(large.engineStat(0, "collectives"), 0);
  EXPECT_EQ(micro.engineStat(0, "collectives"), large.engineStat(0, "collectives"));
  EXPECT_EQ(micro.engineStat(0, "bytes_reduced"), large.engineStat(0, "bytes_reduced"));
  EXPECT_EQ(micro.number(0, "samples"), large.number(0, "samples"));
  EXPECT_LE(relativeDifference(micro.parameters(0), large.parameters(0)), kTolerance);
  expectRanksIdentical(micro);
}

INSTANTIATE_TEST_SUITE_P(Engines, Accumulation, ::testing::Values("ddp", "horovod"));

// (6) Compression: ranks stay identical and the loss stays close to the uncompressed run's.
class Compression : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(Compression, RanksIdenticalAndLossClose) {
  auto [engine, compression] = GetParam();
  Flags flags = quickJob(engine, "mlp", 16, 8);
  TrainingJob plain(2, flags);
  TrainingJob compressed(2, flags + Flags{"--compression", compression});
  ASSERT_TRUE(plain.succeeded()) << plain.describe();
  ASSERT_TRUE(compressed.succeeded()) << compressed.describe();
  expectRanksIdentical(compressed);
  const double loss = plain.number(0, "final_loss");
  EXPECT_NEAR(compressed.number(0, "final_loss"), loss, 0.02 * loss);
  EXPECT_LE(relativeDifference(compressed.parameters(0), plain.parameters(0)), 0.02);
  // fp16 halves what travels; Gloo cannot sum bf16, so bf16 is rounded to bf16 and reduced at full width.
  if (compression == "fp16") {
    EXPECT_EQ(compressed.engineStat(0, "bytes_reduced") * 2, plain.engineStat(0, "bytes_reduced"));
  }
}

INSTANTIATE_TEST_SUITE_P(Engines, Compression,
                         ::testing::Values(std::make_tuple("ddp", "fp16"), std::make_tuple("ddp", "bf16"),
                                           std::make_tuple("horovod", "fp16")),
                         [](const auto& info) {
                           return std::get<0>(info.param) + "_" + std::get<1>(info.param);
                         });

// (7) Stall inspector: a rank that stops submitting a tensor is named by rank 0's warning, in Horovod's
// shape. The job cannot finish (that is the point), so the ranks are stopped by the timeout once the warning
// is out.
TEST(StallInspector, WarnsAboutTheRankThatStoppedSubmitting) {
  JobOptions options;
  options.timeout = std::chrono::seconds(15);
  options.summaries = false;
  TrainingJob job(
      2, quickJob("horovod", "mlp", 8, 50) + Flags{"--inject-hang", "1:2", "--stall-check-s", "1"}, options);
  EXPECT_NE(job.rank(1).err.find("--inject-hang"), std::string::npos) << job.describe();
  const std::string& warning = job.rank(0).err;
  EXPECT_NE(warning.find("Stall inspector"), std::string::npos) << job.describe();
  EXPECT_NE(warning.find("Missing ranks:"), std::string::npos) << warning;
  EXPECT_NE(warning.find("rank 1: ["), std::string::npos) << warning;
  EXPECT_NE(job.rank(0).exitCode, 0);
}

// (8) Rendezvous: a rank that never starts gives a clear error within the timeout, naming it.
TEST(Rendezvous, MissingRankIsNamedWithinTheTimeout) {
  JobOptions options;
  options.absentRanks = {2};
  options.timeout = std::chrono::seconds(30);
  auto start = std::chrono::steady_clock::now();
  TrainingJob job(3, quickJob("ddp", "mlp", 8, 2) + Flags{"--rendezvous-timeout-s", "2"}, options);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
  for (int r : {0, 1}) {
    EXPECT_FALSE(job.rank(r).timedOut) << job.describe();
    EXPECT_NE(job.rank(r).exitCode, 0);
    EXPECT_NE(job.rank(r).err.find("rank 2 of WORLD_SIZE=3 never arrived"), std::string::npos)
        << job.rank(r).err;
  }
}

TEST(Rendezvous, MissingRankZeroIsNamed) {
  JobOptions options;
  options.absentRanks = {0};
  options.timeout = std::chrono::seconds(30);
  TrainingJob job(2, quickJob("ddp", "mlp", 8, 2) + Flags{"--rendezvous-timeout-s", "2"}, options);
  EXPECT_FALSE(job.rank(1).timedOut);
  EXPECT_EQ(job.rank(1).exitCode, 1);
  EXPECT_NE(job.rank(1).err.find("rank 0 never arrived"), std::string::npos) << job.rank(1).err;
}

TEST(Rendezvous, BadFlagsExitTwoNamingTheFlag) {
  JobOptions options;
  options.summaries = false;
  for (const Flags& flags : {Flags{"--batch-size", "0"}, Flags{"--model", "vgg"}, Flags{"--lr", "-1"},
                             Flags{"--inject-crash", "one:2"}, Flags{"--no-such-flag"}}) {
    TrainingJob job(1, flags, options);
    EXPECT_EQ(job.rank(0).exitCode, 2) << flags[0];
    EXPECT_NE(job.rank(0).err.find(flags[0]), std::string::npos) << job.rank(0).err;
  }
  // A fault naming a rank outside the world is caught before anyone trains.
  TrainingJob outside(2, quickJob("ddp", "mlp", 8, 2) + Flags{"--inject-crash", "5:1"}, options);
  EXPECT_EQ(outside.rank(0).exitCode, 2);
  EXPECT_NE(outside.rank(0).err.find("faults.crashes[0].rank"), std::string::npos) << outside.rank(0).err;
}

TEST(Rendezvous, MissingEnvironmentOrDataIsAClearError) {
  auto missingEnv = runProcess({binPath("ringmaster-worker"), "--data", "synthetic"});
  EXPECT_EQ(missingEnv.exitCode, 2);
  EXPECT_NE(missingEnv.err.find("WORLD_SIZE is not set"), std::string::npos) << missingEnv.err;

  JobOptions options;
  options.summaries = false;
  TrainingJob job(1, {"--data", "fashion-mnist", "--data-dir", "/nonexistent/fmnist"}, options);
  EXPECT_EQ(job.rank(0).exitCode, 2);
  EXPECT_NE(job.rank(0).err.find("/nonexistent/fmnist/train-images-idx3-ubyte.gz: no such data file"),
            std::string::npos)
      << job.rank(0).err;
}

// (9) Stopping after K steps and resuming to 2K gives the parameters of an uninterrupted 2K-step run.
class Resume : public ::testing::TestWithParam<std::string> {};

TEST_P(Resume, ResumedRunMatchesUninterruptedRun) {
  const std::string engine = GetParam();
  const TempDir folder("resume");
  const std::string& checkpoints = folder.path();
  Flags flags = {
      "--engine", engine, "--model",    "cnn", "--data", "synthetic", "--batch-size",     "16",
      "--lr",     "0.05", "--momentum", "0.9", "--seed", "4",         "--checkpoint-dir", checkpoints};
  TrainingJob first(2, flags + Flags{"--steps", "5"});
  ASSERT_TRUE(first.succeeded()) << first.describe();
  ASSERT_TRUE(std::filesystem::exists(checkpoints + "/checkpoint.pt"));
  TrainingJob resumed(2, flags + Flags{"--steps", "10", "--resume"});
  ASSERT_TRUE(resumed.succeeded()) << resumed.describe();
  EXPECT_EQ(resumed.number(0, "first_step"), 5);
  EXPECT_EQ(resumed.number(1, "steps"), 10);
  std::filesystem::remove_all(checkpoints);

  TrainingJob straight(2, flags + Flags{"--steps", "10"});
  ASSERT_TRUE(straight.succeeded()) << straight.describe();
  std::vector<float> a = resumed.parameters(1), b = straight.parameters(1);
  ASSERT_EQ(a.size(), b.size());
  EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)), 0)
      << "relative difference " << relativeDifference(a, b);
}

INSTANTIATE_TEST_SUITE_P(Engines, Resume, ::testing::Values("ddp", "horovod"));

TEST(Resume, WithoutACheckpointIsAClearError) {
  const TempDir empty("resume");
  TrainingJob job(2, quickJob("ddp", "mlp", 8, 2) + Flags{"--checkpoint-dir", empty.path(), "--resume"});
  for (int r : {0, 1}) {
    EXPECT_EQ(job.rank(r).exitCode, 2) << job.describe();
    EXPECT_NE(job.rank(r).err.find("no checkpoint to resume from"), std::string::npos) << job.rank(r).err;
  }
}

// Injected faults: a straggler's extra time shows up in its compute and in the others' wait; a leak in its
// RSS; a crash kills that rank and fails the others instead of hanging them.
TEST(Faults, StragglerLeakAndCrash) {
  TrainingJob job(
      2, quickJob("ddp", "mlp", 8, 6) + Flags{"--inject-straggler", "1:60@2", "--inject-leak", "1:16"});
  ASSERT_TRUE(job.succeeded()) << job.describe();
  // Steps 2..5 of 6 carry 60 ms more compute on rank 1 (40 ms a step on average); rank 0 waits for it.
  // (Which rank waits longer in total is not asserted: on a loaded machine the first steps' noise can exceed
  // it.)
  EXPECT_GE(job.phaseMs(1, "backward"), 60.0 * 4 / 6);
  EXPECT_GE(job.phaseMs(1, "backward") - job.phaseMs(0, "backward"), 0.5 * 60 * 4 / 6);
  EXPECT_GE(job.phaseMs(0, "comm_wait"), 0.5 * 60 * 4 / 6);
  EXPECT_GE(job.number(1, "peak_rss_bytes") - job.number(0, "peak_rss_bytes"), 5 * 16.0 * 1024 * 1024);

  JobOptions options;
  options.timeout = std::chrono::seconds(90);
  TrainingJob crash(2, quickJob("ddp", "mlp", 8, 50) + Flags{"--inject-crash", "1:3"}, options);
  EXPECT_EQ(crash.rank(1).signal, SIGABRT) << crash.describe();
  EXPECT_NE(crash.rank(1).err.find("injected crash at step 3"), std::string::npos);
  EXPECT_FALSE(crash.rank(0).timedOut) << crash.describe();
  EXPECT_NE(crash.rank(0).exitCode, 0);
}

}  // namespace
}  // namespace ringmaster::test
