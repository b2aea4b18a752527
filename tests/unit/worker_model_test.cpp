// SPDX-License-Identifier: GPL-3.0-or-later
// Models (shapes, torchvision topology), checkpoints and parameter dumps.
#include <gtest/gtest.h>

#include <filesystem>
#include <torch/csrc/distributed/c10d/HashStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>

#include "common/error.h"
#include "tests/support/files.h"
#include "tests/support/temp_dir.h"
#include "worker/checkpoint.h"
#include "worker/models.h"

namespace ringmaster::worker {
namespace {

namespace fs = std::filesystem;

// Files are opened as given here (AllowedFolders::anywhere()); what confines them to the agent's folders is
// tested with an agent.

int64_t parameterCount(const torch::nn::Module& model) {
  int64_t n = 0;
  for (const auto& p : model.parameters()) n += p.numel();
  return n;
}

TEST(Models, ProduceLogitsForTheirInputs) {
  struct Case {
    v1::Model model;
    InputShape input;
  };
  const std::vector<Case> cases = {
      {v1::MODEL_MLP, {1, 28, 28, 10}},     {v1::MODEL_CNN, {1, 28, 28, 10}},
      {v1::MODEL_CNN, {3, 32, 32, 10}},     {v1::MODEL_RESNET18, {3, 32, 32, 10}},
      {v1::MODEL_RESNET18, {1, 28, 28, 7}}, {v1::MODEL_RESNET50, {3, 32, 32, 10}}};
  for (const auto& c : cases) {
    auto model = makeModel(c.model, c.input);
    torch::NoGradGuard noGrad;
    torch::Tensor out = model->forward(torch::randn({2, c.input.channels, c.input.height, c.input.width}));
    EXPECT_EQ(out.sizes(), torch::IntArrayRef({2, c.input.classes})) << modelName(c.model);
  }
}

// torchvision.models.resnet18() / resnet50() with 1000 classes have exactly these many parameters.
TEST(Models, ResNetsHaveTorchvisionsTopology) {
  const InputShape imagenet{3, 224, 224, 1000};
  EXPECT_EQ(parameterCount(*makeModel(v1::MODEL_RESNET18, imagenet)), 11689512);
  EXPECT_EQ(parameterCount(*makeModel(v1::MODEL_RESNET50, imagenet)), 25557032);

  auto resnet18 = makeModel(v1::MODEL_RESNET18, imagenet);
  auto names = resnet18->named_parameters().keys();
  EXPECT_EQ(names.front(), "conv1.weight");
  EXPECT_EQ(names.back(), "fc.bias");
  EXPECT_NE(std::find(names.begin(), names.end(), "layer2.0.downsample.0.weight"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "layer4.1.bn2.bias"), names.end());
  EXPECT_EQ(resnet18->named_parameters()["conv1.weight"].sizes(), torch::IntArrayRef({64, 3, 7, 7}));
  auto buffers = resnet18->named_buffers().keys();
  EXPECT_NE(std::find(buffers.begin(), buffers.end(), "bn1.running_mean"), buffers.end());

  // The CIFAR stem: a 3x3 convolution and no max-pool, so 32x32 inputs keep their resolution in layer1.
  auto cifar = makeModel(v1::MODEL_RESNET50, {3, 32, 32, 10});
  EXPECT_EQ(cifar->named_parameters()["conv1.weight"].sizes(), torch::IntArrayRef({64, 3, 3, 3}));
  EXPECT_EQ(cifar->named_parameters()["layer3.0.conv3.weight"].sizes(),
            torch::IntArrayRef({1024, 256, 1, 1}));
}

TEST(Models, SameSeedSameInitialisation) {
  torch::manual_seed(3);
  auto a = makeModel(v1::MODEL_CNN, {});
  torch::manual_seed(3);
  auto b = makeModel(v1::MODEL_CNN, {});
  EXPECT_EQ(parameterChecksum(*a), parameterChecksum(*b));
  torch::manual_seed(4);
  EXPECT_NE(parameterChecksum(*makeModel(v1::MODEL_CNN, {})), parameterChecksum(*a));
}

class CheckpointTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto options = c10d::ProcessGroupGloo::Options::create();
    options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1"));
    group_ =
        c10::make_intrusive<c10d::ProcessGroupGloo>(c10::make_intrusive<c10d::HashStore>(), 0, 1, options);
  }

  // One SGD step with momentum, so the optimizer has state worth saving.
  static void trainOnce(Classifier& model, torch::optim::Optimizer& optimizer) {
    optimizer.zero_grad();
    model.forward(torch::randn({4, 1, 28, 28})).sum().backward();
    optimizer.step();
  }

  test::TempDir folder_{"worker-checkpoint"};
  const std::string dir_ = folder_.path();
  c10::intrusive_ptr<c10d::ProcessGroup> group_;
};

TEST_F(CheckpointTest, RestoresModelOptimizerAndPosition) {
  torch::manual_seed(1);
  auto model = makeModel(v1::MODEL_MLP, {});
  torch::optim::SGD optimizer(model->parameters(), torch::optim::SGDOptions(0.1).momentum(0.9));
  trainOnce(*model, optimizer);
  saveCheckpoint(AllowedFolders::anywhere(), dir_, "mlp", *model, optimizer, {7, 2, 3});
  EXPECT_TRUE(fs::exists(checkpointPath(dir_)));
  for (const auto& entry : fs::directory_iterator(dir_)) {
    EXPECT_EQ(entry.path().filename(), "checkpoint.pt") << "a temporary file was left behind";
  }

  torch::manual_seed(2);
  auto restored = makeModel(v1::MODEL_MLP, {});
  torch::optim::SGD restoredOptimizer(restored->parameters(), torch::optim::SGDOptions(0.1).momentum(0.9));
  std::optional<TrainingPosition> restoredAt =
      restoreCheckpoint(AllowedFolders::anywhere(), dir_, "mlp", *restored, restoredOptimizer, *group_);
  ASSERT_TRUE(restoredAt);
  const TrainingPosition position = *restoredAt;
  EXPECT_EQ(position.step, 7u);
  EXPECT_EQ(position.epoch, 2u);
  EXPECT_EQ(position.stepInEpoch, 3u);
  EXPECT_EQ(parameterChecksum(*restored), parameterChecksum(*model));

  // Same momentum buffers: one more identical step keeps the two identical.
  torch::manual_seed(9);
  trainOnce(*model, optimizer);
  torch::manual_seed(9);
  trainOnce(*restored, restoredOptimizer);
  EXPECT_EQ(parameterChecksum(*restored), parameterChecksum(*model));
}

TEST_F(CheckpointTest, MissingIsNoneWrongOrCorruptAreInputErrors) {
  auto model = makeModel(v1::MODEL_MLP, {});
  torch::optim::SGD optimizer(model->parameters(), torch::optim::SGDOptions(0.1));
  EXPECT_FALSE(restoreCheckpoint(AllowedFolders::anywhere(), dir_, "mlp", *model, optimizer, *group_));

  saveCheckpoint(AllowedFolders::anywhere(), dir_, "mlp", *model, optimizer, {1, 0, 1});
  auto cnn = makeModel(v1::MODEL_CNN, {});
  torch::optim::SGD cnnOptimizer(cnn->parameters(), torch::optim::SGDOptions(0.1));
  try {
    restoreCheckpoint(AllowedFolders::anywhere(), dir_, "cnn", *cnn, cnnOptimizer, *group_);
    ADD_FAILURE() << "restored an mlp checkpoint into a cnn";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("holds model mlp, not cnn"), std::string::npos);
  }

  test::writeFile(checkpointPath(dir_), "not a checkpoint");
  try {
    restoreCheckpoint(AllowedFolders::anywhere(), dir_, "mlp", *model, optimizer, *group_);
    ADD_FAILURE() << "restored garbage";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(checkpointPath(dir_) + ": not a usable checkpoint"),
              std::string::npos);
  }
}

TEST(ParameterDump, WritesFloat32InParameterOrder) {
  auto model = makeModel(v1::MODEL_MLP, {1, 2, 2, 3});
  const test::TempDir dir("worker-dump");
  dumpParameters(*model, dir.file("params.bin"));
  const std::string bytes = test::readFile(dir.file("params.bin"));
  ASSERT_EQ(bytes.size(), static_cast<size_t>(parameterCount(*model)) * sizeof(float));
  float first = 0;
  std::memcpy(&first, bytes.data(), sizeof first);
  EXPECT_EQ(first, model->parameters()[0].view(-1)[0].item<float>());
  EXPECT_THROW(dumpParameters(*model, "/nonexistent/dir/params.bin"), InputError);
}

}  // namespace
}  // namespace ringmaster::worker
