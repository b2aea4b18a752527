// SPDX-License-Identifier: GPL-3.0-or-later
// Dataset files (IDX, CIFAR-10), the distributed sampler and the torchrun environment.
#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <numeric>
#include <set>

#include "common/error.h"
#include "tests/support/files.h"
#include "tests/support/temp_dir.h"
#include "worker/dataset_files.h"
#include "worker/datasets.h"
#include "worker/distributed_sampler.h"
#include "worker/torchrun_env.h"

namespace ringmaster::worker {
namespace {

namespace fs = std::filesystem;

// Files are opened as given here (AllowedFolders::anywhere()); what confines them to the agent's folders is
// tested with an agent.

std::vector<uint8_t> idxBytes(uint8_t type, const std::vector<uint32_t>& dims,
                              const std::vector<uint8_t>& values) {
  std::vector<uint8_t> bytes = {0, 0, type, static_cast<uint8_t>(dims.size())};
  for (uint32_t d : dims) {
    for (int shift = 24; shift >= 0; shift -= 8) bytes.push_back(static_cast<uint8_t>(d >> shift));
  }
  bytes.insert(bytes.end(), values.begin(), values.end());
  return bytes;
}

void writeGzip(const std::string& path, const std::vector<uint8_t>& bytes) {
  gzFile file = gzopen(path.c_str(), "wb");
  ASSERT_NE(file, nullptr);
  ASSERT_EQ(gzwrite(file, bytes.data(), static_cast<unsigned>(bytes.size())), static_cast<int>(bytes.size()));
  gzclose(file);
}

void writePlain(const std::string& path, const std::vector<uint8_t>& bytes) {
  test::writeFile(path, std::string(bytes.begin(), bytes.end()));
}

std::vector<uint8_t> iota(size_t n) {
  std::vector<uint8_t> v(n);
  std::iota(v.begin(), v.end(), uint8_t{0});
  return v;
}

// The message of the InputError `f` throws.
template <typename F>
std::string inputErrorOf(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no InputError thrown";
  return {};
}

TEST(IdxFile, ReadsGzipAndPlainFiles) {
  const test::TempDir dir("worker-data");
  writeGzip(dir.file("images.gz"), idxBytes(0x08, {3, 2, 2}, iota(12)));
  writePlain(dir.file("labels"), idxBytes(0x08, {3}, {1, 2, 9}));
  IdxArray images = readIdxFile(dir.file("images.gz"), 3);
  EXPECT_EQ(images.dims, (std::vector<uint32_t>{3, 2, 2}));
  EXPECT_EQ(images.values, iota(12));
  LabelledImages split = readIdxSplit(dir.file("images.gz"), dir.file("labels"));
  EXPECT_EQ(split.count, 3u);
  EXPECT_EQ(split.channels, 1u);
  EXPECT_EQ(split.height, 2u);
  EXPECT_EQ(split.labels, (std::vector<uint8_t>{1, 2, 9}));
}

TEST(IdxFile, RejectsBrokenFilesNamingThem) {
  const test::TempDir dir("worker-data");
  const std::string path = dir.file("broken.gz");
  EXPECT_NE(inputErrorOf([&] { readIdxFile(path, 3); }).find(path + ": no such data file"),
            std::string::npos);

  writeGzip(path, {1, 2, 3, 4, 5});
  EXPECT_NE(inputErrorOf([&] { readIdxFile(path, 3); }).find("bad magic number"), std::string::npos);

  writeGzip(path, idxBytes(0x0D, {1, 1, 1}, {0, 0, 0, 0}));  // float elements
  EXPECT_NE(inputErrorOf([&] { readIdxFile(path, 3); }).find("not unsigned byte"), std::string::npos);

  writeGzip(path, idxBytes(0x08, {4}, {0, 1, 2, 3}));
  EXPECT_NE(inputErrorOf([&] { readIdxFile(path, 3); }).find("1 dimensions, expected 3"), std::string::npos);

  writeGzip(path, idxBytes(0x08, {2, 2, 2}, iota(7)));
  std::string truncated = inputErrorOf([&] { readIdxFile(path, 3); });
  EXPECT_NE(truncated.find(path), std::string::npos);
  EXPECT_NE(truncated.find("truncated"), std::string::npos);

  writeGzip(path, idxBytes(0x08, {1, 2, 2}, iota(5)));
  EXPECT_NE(inputErrorOf([&] { readIdxFile(path, 3); }).find("longer than its dimensions"),
            std::string::npos);

  // A gzip stream whose compressed body is garbage.
  std::vector<uint8_t> gzip = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 0xff, 0xff, 0xff, 0xff, 0x00, 0x12, 0x34};
  writePlain(path, gzip);
  std::string corrupt = inputErrorOf([&] { readIdxFile(path, 3); });
  EXPECT_NE(corrupt.find(path), std::string::npos);
}

TEST(IdxFile, ChecksLabelsAgainstImages) {
  const test::TempDir dir("worker-data");
  writeGzip(dir.file("images"), idxBytes(0x08, {2, 1, 1}, {7, 8}));
  writeGzip(dir.file("labels3"), idxBytes(0x08, {3}, {0, 1, 2}));
  writeGzip(dir.file("labels-bad"), idxBytes(0x08, {2}, {0, 10}));
  EXPECT_NE(inputErrorOf([&] { readIdxSplit(dir.file("images"), dir.file("labels3")); }).find("3 labels but"),
            std::string::npos);
  EXPECT_NE(inputErrorOf([&] {
              readIdxSplit(dir.file("images"), dir.file("labels-bad"));
            }).find("label 10 at index 1"),
            std::string::npos);
}

std::vector<uint8_t> cifarRecords(const std::vector<uint8_t>& labels) {
  std::vector<uint8_t> bytes;
  for (size_t i = 0; i < labels.size(); ++i) {
    bytes.push_back(labels[i]);
    for (int p = 0; p < 3 * 32 * 32; ++p) bytes.push_back(static_cast<uint8_t>(i * 10 + p % 7));
  }
  return bytes;
}

TEST(CifarFile, ReadsBatchesInOrder) {
  const test::TempDir dir("worker-data");
  writePlain(dir.file("data_batch_1.bin"), cifarRecords({3, 4}));
  writePlain(dir.file("data_batch_2.bin"), cifarRecords({9}));
  writePlain(dir.file("test_batch.bin"), cifarRecords({0}));
  auto files = cifarTrainFiles(dir.path());
  ASSERT_EQ(files.size(), 2u);
  LabelledImages split = readCifarBatches(files);
  EXPECT_EQ(split.count, 3u);
  EXPECT_EQ(split.channels, 3u);
  EXPECT_EQ(split.labels, (std::vector<uint8_t>{3, 4, 9}));
  ASSERT_EQ(split.pixels.size(), 3u * 3072);
  EXPECT_EQ(split.pixels[3072], 10);  // second record's first pixel

  TrainingData data = [&] {
    v1::JobSpec spec = defaultJobSpec();
    spec.set_dataset(v1::DATASET_CIFAR10);
    spec.set_model(v1::MODEL_RESNET18);
    spec.set_data_dir(dir.path());
    return loadTrainingData(spec, AllowedFolders::anywhere());
  }();
  EXPECT_EQ(data.train.images.sizes(), torch::IntArrayRef({3, 3, 32, 32}));
  EXPECT_EQ(data.test.size(), 1);
  EXPECT_EQ(data.train.labels[2].item<int64_t>(), 9);
  EXPECT_EQ(data.shape.channels, 3);
}

TEST(CifarFile, RejectsBrokenBatchesNamingThem) {
  const test::TempDir dir("worker-data");
  EXPECT_NE(inputErrorOf([&] { cifarTrainFiles(dir.path()); }).find("data_batch_1.bin: no such data file"),
            std::string::npos);
  auto bytes = cifarRecords({1, 2});
  bytes.pop_back();
  writePlain(dir.file("data_batch_1.bin"), bytes);
  EXPECT_NE(
      inputErrorOf([&] { readCifarBatches({dir.file("data_batch_1.bin")}); }).find("truncated CIFAR-10"),
      std::string::npos);
  writePlain(dir.file("data_batch_1.bin"), cifarRecords({1, 12}));
  EXPECT_NE(
      inputErrorOf([&] { readCifarBatches({dir.file("data_batch_1.bin")}); }).find("record 1 has label 12"),
      std::string::npos);
  v1::JobSpec spec = defaultJobSpec();
  spec.set_dataset(v1::DATASET_CIFAR10);
  spec.set_data_dir(dir.path());
  writePlain(dir.file("data_batch_1.bin"), cifarRecords({1}));
  EXPECT_NE(inputErrorOf([&] {
              loadTrainingData(spec, AllowedFolders::anywhere());
            }).find(dir.file("test_batch.bin")),
            std::string::npos);
}

TEST(FashionMnist, LoadsTheInstalledDataset) {
  if (!fs::exists(std::string(kDefaultFashionMnistDir) + "/train-images-idx3-ubyte.gz")) {
    GTEST_SKIP() << "dataset-fashion-mnist is not installed";
  }
  v1::JobSpec spec = defaultJobSpec();
  TrainingData data = loadTrainingData(spec, AllowedFolders::anywhere());
  EXPECT_EQ(data.train.images.sizes(), torch::IntArrayRef({60000, 1, 28, 28}));
  EXPECT_EQ(data.test.images.sizes(), torch::IntArrayRef({10000, 1, 28, 28}));
  EXPECT_EQ(data.train.labels.max().item<int64_t>(), 9);
  EXPECT_NEAR(data.train.images.mean().item<double>(), 0.0, 0.01);  // normalised with the dataset's mean/std
  EXPECT_NEAR(data.train.images.std().item<double>(), 1.0, 0.01);
}

TEST(FashionMnist, MissingDirectoryNamesTheFile) {
  v1::JobSpec spec = defaultJobSpec();
  spec.set_data_dir("/nonexistent/fmnist");
  EXPECT_NE(inputErrorOf([&] {
              loadTrainingData(spec, AllowedFolders::anywhere());
            }).find("/nonexistent/fmnist/train-images-idx3-ubyte.gz: no such data file"),
            std::string::npos);
}

TEST(Synthetic, SameDataForTheSameSeed) {
  v1::JobSpec spec = defaultJobSpec();
  spec.set_dataset(v1::DATASET_SYNTHETIC);
  spec.mutable_hyper()->set_seed(5);
  TrainingData a = loadTrainingData(spec, AllowedFolders::anywhere()),
               b = loadTrainingData(spec, AllowedFolders::anywhere());
  EXPECT_TRUE(a.train.images.equal(b.train.images));
  EXPECT_EQ(a.train.size(), kSyntheticTrainSize);
  spec.mutable_hyper()->set_seed(6);
  EXPECT_FALSE(loadTrainingData(spec, AllowedFolders::anywhere()).train.images.equal(a.train.images));
  spec.set_model(v1::MODEL_RESNET50);
  EXPECT_EQ(loadTrainingData(spec, AllowedFolders::anywhere()).shape.channels, 3);
}

std::vector<int64_t> toVector(const torch::Tensor& t) {
  return {t.data_ptr<int64_t>(), t.data_ptr<int64_t>() + t.numel()};
}

// Expected values printed by PyTorch 1.13's torch.utils.data.distributed.DistributedSampler.
TEST(DistributedSampler, MatchesPyTorch) {
  const std::vector<std::vector<int64_t>> tenOverFour = {{7, 4, 2}, {6, 9, 1}, {5, 0, 7}, {3, 8, 6}};
  for (int rank = 0; rank < 4; ++rank) {
    DistributedSampler sampler(10, 4, rank, true, 42);
    sampler.setEpoch(3);
    EXPECT_EQ(sampler.numSamples(), 3);
    EXPECT_EQ(toVector(sampler.indices()), tenOverFour[rank]) << "rank " << rank;
  }
  const std::vector<std::vector<int64_t>> hundredOverThree = {
      {45, 32, 17, 96, 16, 80}, {15, 35, 72, 48, 11, 22}, {90, 63, 79, 36, 23, 58}};
  for (int rank = 0; rank < 3; ++rank) {
    DistributedSampler sampler(100, 3, rank, true, 0);
    sampler.setEpoch(1);
    EXPECT_EQ(toVector(sampler.indices().slice(0, 0, 6)), hundredOverThree[rank]) << "rank " << rank;
  }
  // Padding longer than the dataset repeats it whole: 2 samples over 5 ranks.
  const std::vector<int64_t> twoOverFive = {1, 0, 1, 0, 1};
  for (int rank = 0; rank < 5; ++rank) {
    DistributedSampler sampler(2, 5, rank, true, 7);
    EXPECT_EQ(toVector(sampler.indices()), std::vector<int64_t>{twoOverFive[rank]}) << "rank " << rank;
  }
  DistributedSampler unshuffled(2, 3, 2, false, 0);
  EXPECT_EQ(toVector(unshuffled.indices()), std::vector<int64_t>{0});
}

TEST(DistributedSampler, ShardsCoverTheDatasetAndReshuffleEachEpoch) {
  std::multiset<int64_t> seen;
  for (int rank = 0; rank < 3; ++rank) {
    DistributedSampler sampler(11, 3, rank, true, 9);
    sampler.setEpoch(2);
    for (int64_t i : toVector(sampler.indices())) seen.insert(i);
  }
  EXPECT_EQ(seen.size(), 12u);  // 11 padded to 12
  for (int64_t i = 0; i < 11; ++i) EXPECT_GE(seen.count(i), 1u);

  DistributedSampler sampler(1000, 2, 0, true, 9);
  auto epoch0 = toVector(sampler.indices());
  sampler.setEpoch(1);
  EXPECT_NE(toVector(sampler.indices()), epoch0);
  sampler.setEpoch(0);
  EXPECT_EQ(toVector(sampler.indices()), epoch0);
}

TEST(EvaluationShard, EverySampleExactlyOnce) {
  std::vector<int64_t> all;
  for (int rank = 0; rank < 3; ++rank) {
    auto shard = toVector(evaluationShard(10, 3, rank));
    all.insert(all.end(), shard.begin(), shard.end());
  }
  std::sort(all.begin(), all.end());
  std::vector<int64_t> expected(10);
  std::iota(expected.begin(), expected.end(), 0);
  EXPECT_EQ(all, expected);
}

EnvLookup envOf(std::map<std::string, std::string> values) {
  return [values](const std::string& name) -> std::optional<std::string> {
    auto it = values.find(name);
    if (it == values.end()) return std::nullopt;
    return it->second;
  };
}

std::map<std::string, std::string> goodEnv() {
  return {{"RANK", "1"},
          {"LOCAL_RANK", "1"},
          {"WORLD_SIZE", "4"},
          {"LOCAL_WORLD_SIZE", "2"},
          {"MASTER_ADDR", "127.0.0.1"},
          {"MASTER_PORT", "29500"}};
}

TEST(TorchrunEnv, ReadsTheSixVariables) {
  TorchrunEnv env = readTorchrunEnv(envOf(goodEnv()));
  EXPECT_EQ(env.rank, 1);
  EXPECT_EQ(env.localRank, 1);
  EXPECT_EQ(env.worldSize, 4);
  EXPECT_EQ(env.localWorldSize, 2);
  EXPECT_EQ(env.masterAddr, "127.0.0.1");
  EXPECT_EQ(env.masterPort, 29500);
}

TEST(TorchrunEnv, NamesWhatIsMissingOrWrong) {
  auto errorWith = [](const std::string& key, const std::optional<std::string>& value) {
    auto env = goodEnv();
    if (value)
      env[key] = *value;
    else
      env.erase(key);
    return inputErrorOf([&] { readTorchrunEnv(envOf(env)); });
  };
  EXPECT_NE(errorWith("MASTER_ADDR", std::nullopt).find("MASTER_ADDR is not set"), std::string::npos);
  EXPECT_NE(errorWith("RANK", std::nullopt).find("RANK is not set"), std::string::npos);
  EXPECT_NE(errorWith("MASTER_PORT", "70000").find("MASTER_PORT='70000'"), std::string::npos);
  EXPECT_NE(errorWith("WORLD_SIZE", "two").find("WORLD_SIZE='two'"), std::string::npos);
  EXPECT_NE(errorWith("RANK", "4").find("RANK=4 must be below WORLD_SIZE=4"), std::string::npos);
  EXPECT_NE(errorWith("LOCAL_RANK", "2").find("LOCAL_RANK=2 must be below LOCAL_WORLD_SIZE=2"),
            std::string::npos);
}

}  // namespace
}  // namespace ringmaster::worker
