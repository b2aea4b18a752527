// SPDX-License-Identifier: GPL-3.0-or-later
// A user's own TorchScript model and .npy data on Ringmaster's engines: the model and the data are written at
// test time with Debian's torch and numpy (programs/torchscript_fixtures.py), trained by real
// ringmaster-worker ranks with both engines, compared with PyTorch's own DistributedDataParallel, and every
// bad input is refused before training with exit status 2, a message that names it, and nothing left behind.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <memory>
#include <regex>

#include "common/json.h"
#include "history/run_store.h"
#include "tests/integration/training_ranks.h"
#include "tests/support/files.h"

namespace ringmaster::test {
namespace {

namespace fs = std::filesystem;
using Flags = std::vector<std::string>;

const std::string kPython = "/usr/bin/python3";   // Debian's, the one python3-torch is installed for
const std::string kReplacement = "\xef\xbf\xbd";  // U+FFFD, in place of bytes that are not UTF-8

Flags operator+(Flags a, const Flags& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

std::string fixtureProgram() {
  return std::string(RM_TEST_PROGRAMS) + "/torchscript_fixtures.py";
}

class TorchScript : public ::testing::Test {
 protected:
  // The models and data sets, written once for every test of the suite.
  static void SetUpTestSuite() {
    folder_ = std::make_unique<TempDir>("torchscript");
    auto made =
        runProcess({kPython, fixtureProgram(), "all", folder_->path()}, {}, std::chrono::seconds(180));
    ASSERT_EQ(made.exitCode, 0) << made.err;
  }
  static void TearDownTestSuite() { folder_.reset(); }

  static std::string file(const std::string& name) { return folder_->file(name); }

  // The user's model with momentum, as a user would start it; `steps` 0 leaves --steps to the caller.
  static Flags job(const std::string& engine, const std::string& data, int steps,
                   const std::string& lr = "0.02") {
    Flags flags = {"--engine", engine, "--model", file("model.pt"), "--data", data,     "--batch-size",
                   "16",       "--lr", lr,        "--momentum",     "0.9",    "--seed", "3"};
    if (steps > 0) flags.insert(flags.end(), {"--steps", std::to_string(steps)});
    return flags;
  }

  // Rank 0's loss at step 1, from its progress lines ("step 1/20  epoch 0  loss 2.3026 ...").
  static double firstLoss(const TrainingJob& training) {
    std::smatch match;
    const std::string& out = training.rank(0).out;
    EXPECT_TRUE(std::regex_search(out, match, std::regex(R"(step 1/\d+ +epoch 0 +loss ([0-9.]+))"))) << out;
    return match.empty() ? NAN : std::stod(match[1]);
  }

  static std::unique_ptr<TempDir> folder_;
};

std::unique_ptr<TempDir> TorchScript::folder_;

// The user's CNN (batch-norm, residual connection) trains on 2 ranks with both engines, on synthetic data and
// on .npy files: the ranks end bit-identical, the engines agree, and on learnable data the loss falls.
class TorchScriptData : public TorchScript, public ::testing::WithParamInterface<std::string> {};

TEST_P(TorchScriptData, TwoRanksAgreeWithBothEngines) {
  const std::string data = GetParam() == "npy" ? "npy:" + file("npy") : GetParam();
  TrainingJob ddp(2, job("ddp", data, 20));
  TrainingJob horovod(2, job("horovod", data, 20));
  ASSERT_TRUE(ddp.succeeded()) << ddp.describe();
  ASSERT_TRUE(horovod.succeeded()) << horovod.describe();
  expectRanksIdentical(ddp);
  expectRanksIdentical(horovod);
  EXPECT_LE(relativeDifference(horovod.parameters(0), ddp.parameters(0)), 1e-5);
  EXPECT_EQ(ddp.number(0, "steps"), 20);
  EXPECT_EQ(ddp.text(0, "model"), "model.pt");
  // Every parameter of every submodule takes part: stem, three batch-norms (weight and bias), two
  // convolutions of the residual block, the classifier. Running statistics are buffers, not parameters.
  EXPECT_EQ(ddp.parameters(0).size(), size_t{8 * 9 + 3 * (8 + 8) + 2 * (8 * 8 * 9) + 8 * 49 * 10 + 10});
  EXPECT_GT(ddp.engineStat(0, "collectives"), 0);
  if (GetParam() == "npy") {
    // A bright square per class under noise: easy to learn, chance is 10%.
    EXPECT_LT(ddp.number(0, "final_loss"), firstLoss(ddp) / 4) << ddp.rank(0).out;
    EXPECT_LT(horovod.number(0, "final_loss"), firstLoss(horovod) / 4) << horovod.rank(0).out;
    EXPECT_GE(ddp.number(0, "test_accuracy"), 0.5);
    EXPECT_LE(ddp.number(0, "test_accuracy"), 1);
  }
}

INSTANTIATE_TEST_SUITE_P(Data, TorchScriptData, ::testing::Values("synthetic", "npy"));

// A 3-channel model trains on synthetic data of its shape (--data synthetic:CxHxW); plain synthetic data is
// Fashion-MNIST's 1x28x28, which such a model refuses before training, naming the shape.
TEST_F(TorchScript, ARgbModelTrainsOnSyntheticDataOfItsShape) {
  Flags rgb = {"--model", file("model_rgb.pt"), "--batch-size", "16", "--steps", "6", "--seed", "3"};
  TrainingJob shaped(2, rgb + Flags{"--data", "synthetic:3x28x28"});
  ASSERT_TRUE(shaped.succeeded()) << shaped.describe();
  expectRanksIdentical(shaped);
  EXPECT_EQ(shaped.number(0, "steps"), 6);
  EXPECT_EQ(shaped.parameters(0).size(),
            size_t{8 * 3 * 9 + 3 * (8 + 8) + 2 * (8 * 8 * 9) + 8 * 49 * 10 + 10});

  TrainingJob plain(2, rgb + Flags{"--data", "synthetic"});
  EXPECT_FALSE(plain.succeeded());
  EXPECT_NE(plain.describe().find("(2, 1, 28, 28)"), std::string::npos) << plain.describe();
}

// The same steps in PyTorch's own DistributedDataParallel (same parameters, sampler, seed, optimizer) reach
// the same loss, within the noise of a different order of float operations.
TEST_F(TorchScript, ReachesTheLossOfPyTorchDdp) {
  const int steps = 20;
  TrainingJob ours(2, job("ddp", "npy:" + file("npy"), steps));
  ASSERT_TRUE(ours.succeeded()) << ours.describe();
  auto reference =
      runProcess({kPython, fixtureProgram(), "reference", file("model.pt"), file("npy"), "--steps",
                  std::to_string(steps), "--batch", "16", "--lr", "0.02", "--momentum", "0.9", "--seed", "3"},
                 {{"OMP_NUM_THREADS", "1"}}, std::chrono::seconds(240));
  ASSERT_EQ(reference.exitCode, 0) << reference.err;
  rapidjson::Document figures = parseJson(reference.out);
  const double theirs = figures["final_loss"].GetDouble();
  const double first = figures["first_loss"].GetDouble();
  const double mine = ours.number(0, "final_loss");
  std::cout << "rank 0 loss after " << steps << " steps: Ringmaster ddp " << mine << ", PyTorch DDP "
            << theirs << " (step 1: Ringmaster " << firstLoss(ours) << ", PyTorch " << first << ")"
            << std::endl;
  RecordProperty("ringmaster_final_loss", std::to_string(mine));
  RecordProperty("pytorch_final_loss", std::to_string(theirs));
  EXPECT_NEAR(firstLoss(ours), first, 1e-4);
  EXPECT_NEAR(mine, theirs, 1e-3 * std::max(1.0, std::abs(theirs)));
  EXPECT_LT(theirs, first);
}

TEST_F(TorchScript, ByteInputsAndRegressionTargets) {
  TrainingJob bytes(2, job("horovod", "npy:" + file("npy_uint8"), 10));
  ASSERT_TRUE(bytes.succeeded()) << bytes.describe();
  expectRanksIdentical(bytes);

  TrainingJob regression(2, job("ddp", "npy:" + file("npy_targets"), 20, "0.01") + Flags{"--loss", "mse"});
  ASSERT_TRUE(regression.succeeded()) << regression.describe();
  expectRanksIdentical(regression);
  EXPECT_LT(regression.number(0, "final_loss"), firstLoss(regression));
  EXPECT_LT(regression.number(0, "test_accuracy"), 0);  // targets are no classes: nothing to score
}

// Stopping after 5 steps and resuming to 10 gives the parameters of an uninterrupted 10-step run.
TEST_F(TorchScript, CheckpointAndResume) {
  const TempDir folder("torchscript-resume");
  const Flags flags = job("horovod", "npy:" + file("npy"), 0) + Flags{"--checkpoint-dir", folder.path()};
  TrainingJob first(2, flags + Flags{"--steps", "5"});
  ASSERT_TRUE(first.succeeded()) << first.describe();
  ASSERT_TRUE(fs::exists(folder.file("checkpoint.pt")));
  TrainingJob resumed(2, flags + Flags{"--steps", "10", "--resume"});
  ASSERT_TRUE(resumed.succeeded()) << resumed.describe();
  EXPECT_EQ(resumed.number(0, "first_step"), 5);
  fs::remove_all(folder.path());

  TrainingJob straight(2, flags + Flags{"--steps", "10"});
  ASSERT_TRUE(straight.succeeded()) << straight.describe();
  const std::vector<float> a = resumed.parameters(1), b = straight.parameters(1);
  ASSERT_EQ(a.size(), b.size());
  EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)), 0) << relativeDifference(a, b);

  // A checkpoint of the built-in cnn is not this model's.
  TrainingJob cnn(
      1, {"--model", "cnn", "--data", "synthetic", "--steps", "1", "--checkpoint-dir", folder.path()});
  ASSERT_TRUE(cnn.succeeded()) << cnn.describe();
  JobOptions quiet;
  quiet.summaries = false;
  TrainingJob wrong(1, flags + Flags{"--steps", "2", "--resume"}, quiet);
  EXPECT_EQ(wrong.rank(0).exitCode, 2);
  EXPECT_NE(wrong.rank(0).err.find("holds model cnn, not model.pt"), std::string::npos) << wrong.rank(0).err;
}

struct BadInput {
  std::string what;
  Flags flags;
  std::string message;  // a part of what rank 0 prints
};

// Each bad model, data or loss is refused on every rank before training: exit 2, a sentence naming it, and no
// checkpoint folder.
TEST_F(TorchScript, BadInputsExitTwoNamingTheProblemAndLeaveNothing) {
  const TempDir scratch("torchscript-bad");
  writeFile(scratch.file("notes.pt"), "these are not the weights you are looking for\n");
  const std::string npy = "npy:" + file("npy");
  const std::vector<BadInput> cases = {
      {"missing model",
       {"--model", scratch.file("absent.pt"), "--data", npy},
       scratch.file("absent.pt") + ": no such model file"},
      {"text file",
       {"--model", scratch.file("notes.pt"), "--data", npy},
       scratch.file("notes.pt") + ": not a TorchScript file"},
      {"state_dict",
       {"--model", file("broken/state_dict.pt"), "--data", npy},
       file("broken/state_dict.pt") + ": not a TorchScript file"},
      {"shape",
       {"--model", file("model_rgb.pt"), "--data", npy},
       "forward failed on a batch of shape (2, 1, 28, 28) from " + file("npy/train_x.npy")},
      {"no parameters", {"--model", file("broken/no_parameters.pt"), "--data", npy}, "has no parameters"},
      {"frozen",
       {"--model", file("broken/frozen.pt"), "--data", npy},
       "parameter 'stem.weight' does not require grad"},
      {"tuple output", {"--model", file("broken/returns_tuple.pt"), "--data", npy}, "not one tensor"},
      {"damaged code",
       {"--model", file("broken/damaged.pt"), "--data", npy},
       file("broken/damaged.pt") + ": not a TorchScript file (expected a valid token but found '" +
           kReplacement + "' here"},
      {"float targets for cross-entropy",
       {"--model", file("model.pt"), "--data", "npy:" + file("npy_targets")},
       "cross-entropy needs int64 class labels"},
      {"labels for mse",
       {"--model", file("model.pt"), "--data", npy, "--loss", "mse"},
       "mse needs float32 targets"},
      {"mse on a built-in",
       {"--model", "cnn", "--data", "synthetic", "--loss", "mse"},
       "loss: mse is for a TorchScript model"},
      {"missing npy folder",
       {"--model", file("model.pt"), "--data", "npy:" + scratch.file("nothing")},
       scratch.file("nothing/train_x.npy") + ": no such data file"},
      {"neither name nor file", {"--model", "vgg16"}, "--model: 'vgg16' is neither"},
  };
  JobOptions options;
  options.summaries = false;
  for (const auto& c : cases) {
    const std::string checkpoints = scratch.file("checkpoints");
    TrainingJob job(2, c.flags + Flags{"--steps", "2", "--checkpoint-dir", checkpoints}, options);
    for (int r : {0, 1}) {
      EXPECT_EQ(job.rank(r).exitCode, 2) << c.what << "\n" << job.describe();
      EXPECT_NE(job.rank(r).err.find(c.message), std::string::npos) << c.what << "\n" << job.rank(r).err;
    }
    EXPECT_FALSE(fs::exists(checkpoints)) << c.what;
  }
}

// Through `ringmaster run`: a model file that is not there is refused before the run starts (nothing stored);
// one that only a rank can judge fails the run, which is stored as failed with the rank's sentence, never as
// running.
TEST_F(TorchScript, RingmasterRunRefusesBadModels) {
  const TempDir scratch("torchscript-run");
  const std::string store = scratch.file("runs.sqlite");
  auto run = [&](const std::string& model) {
    return runProcess({binPath("ringmaster"), "run", "-np", "2", "--state-dir", scratch.file("state"),
                       "--store", store, "--model", model, "--data", "npy:" + file("npy"), "--steps", "2"},
                      {{"OMP_NUM_THREADS", "1"}}, std::chrono::seconds(180));
  };
  auto missing = run(scratch.file("absent.pt"));
  EXPECT_EQ(missing.exitCode, 2) << missing.err;
  EXPECT_NE(missing.err.find("--model " + scratch.file("absent.pt") + ": no such file"), std::string::npos)
      << missing.err;
  if (fs::exists(store)) {
    EXPECT_TRUE(RunStore(store).runs().empty());
  }

  auto frozen = run(file("broken/frozen.pt"));
  EXPECT_EQ(frozen.exitCode, 1) << frozen.err;
  EXPECT_NE(frozen.err.find("does not require grad"), std::string::npos) << frozen.err;
  auto runs = RunStore(store).runs();
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs.front().status, "failed");
  EXPECT_EQ(runs.front().name, "frozen.pt ddp x2");
  EXPECT_EQ(runs.front().spec.model_path(), file("broken/frozen.pt"));
}

// A damaged model file whose bytes LibTorch quotes in its error (0xff, not UTF-8): the run ends as failed
// with the rank's sentence, the bytes shown as U+FFFD, instead of a console waiting for ever on a record it
// cannot read.
TEST_F(TorchScript, RingmasterRunShowsTheBytesADamagedModelQuotesAsText) {
  const TempDir scratch("torchscript-damaged");
  const std::string store = scratch.file("runs.sqlite");
  auto r = runProcess(
      {binPath("ringmaster"), "run", "-np", "1", "--state-dir", scratch.file("state"), "--store", store,
       "--model", file("broken/damaged.pt"), "--data", "npy:" + file("npy"), "--steps", "2"},
      {{"OMP_NUM_THREADS", "1"}}, std::chrono::seconds(120));
  ASSERT_FALSE(r.timedOut) << "the console did not end: " << r.err;
  EXPECT_EQ(r.exitCode, 1) << r.err;
  EXPECT_NE(r.err.find("exited with code 2"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("damaged.pt: not a TorchScript file (expected a valid token but found '" +
                       kReplacement + "' here"),
            std::string::npos)
      << r.err;
  auto runs = RunStore(store).runs();
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs.front().status, "failed");
}

}  // namespace
}  // namespace ringmaster::test
