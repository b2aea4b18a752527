// SPDX-License-Identifier: GPL-3.0-or-later
// Readers for the on-disk dataset formats: IDX (MNIST / Fashion-MNIST, gzip or plain) and CIFAR-10's binary
// batches. They check magic numbers, shapes and sizes, and throw InputError naming the file when something is
// off. Each file is opened beneath the folders the agent allows (`folders`). No LibTorch here: the trainer
// turns these bytes into tensors once.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/allowed_folders.h"

namespace ringmaster::worker {

// An IDX file of unsigned bytes: `dims` (e.g. {60000, 28, 28}) and the values in row-major order.
struct IdxArray {
  std::vector<uint32_t> dims;
  std::vector<uint8_t> values;
};

// Reads an IDX file of type unsigned byte with `expectedRank` dimensions (3 for images, 1 for labels).
// Gzip-compressed and plain files are both accepted.
IdxArray readIdxFile(const std::string& path, int expectedRank,
                     const AllowedFolders& folders = AllowedFolders::anywhere());

// Images (N x rows x cols) and labels (N, each below `classes`) of one IDX split, checked against each other.
struct LabelledImages {
  uint32_t count = 0;
  uint32_t channels = 0;
  uint32_t height = 0;
  uint32_t width = 0;
  std::vector<uint8_t> pixels;  // count x channels x height x width
  std::vector<uint8_t> labels;  // count
};

LabelledImages readIdxSplit(const std::string& imagesPath, const std::string& labelsPath, int classes = 10,
                            const AllowedFolders& folders = AllowedFolders::anywhere());

// CIFAR-10 binary batches: records of 1 label byte followed by 3 x 32 x 32 pixel bytes (channel-major).
// Several files are concatenated in the order given.
LabelledImages readCifarBatches(const std::vector<std::string>& paths,
                                const AllowedFolders& folders = AllowedFolders::anywhere());

// Fashion-MNIST's files in `dir`: "train" or "t10k", preferring the .gz names Debian installs.
std::string fashionMnistFile(const std::string& dir, const std::string& split, const std::string& kind);

// The CIFAR-10 batch files in `dir` (or in its cifar-10-batches-bin folder): data_batch_1..5.bin for training
// (those present, at least one), test_batch.bin for testing.
std::vector<std::string> cifarTrainFiles(const std::string& dir);
std::string cifarTestFile(const std::string& dir);

}  // namespace ringmaster::worker
