// SPDX-License-Identifier: GPL-3.0-or-later
#include "worker/dataset_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>

#include "common/error.h"

namespace ringmaster::worker {
namespace {

namespace fs = std::filesystem;

constexpr uint8_t kIdxUnsignedByte = 0x08;
constexpr uint32_t kCifarSide = 32;
constexpr uint32_t kCifarChannels = 3;
constexpr size_t kCifarRecord = 1 + kCifarChannels * kCifarSide * kCifarSide;

// A gzip-or-plain file read through zlib (gzread passes plain files through unchanged).
class GzFile {
 public:
  GzFile(const std::string& path, const AllowedFolders& folders) : path_(path) {
    FileDescriptor fd = folders.open(path, O_RDONLY);
    if (!fd) {
      throw InputError(path + ": " +
                       (errno == ENOENT ? std::string("no such data file") : std::strerror(errno)));
    }
    struct stat info {};
    if (::fstat(fd.get(), &info) != 0 || !S_ISREG(info.st_mode))
      throw InputError(path + ": no such data file");
    file_ = gzdopen(fd.get(), "rb");
    if (!file_) throw InputError(path + ": cannot open data file");
    fd.release();  // gzclose closes it
    gzbuffer(file_, 1 << 17);
  }
  ~GzFile() { gzclose(file_); }
  GzFile(const GzFile&) = delete;
  GzFile& operator=(const GzFile&) = delete;

  // Reads up to `size` bytes; returns how many it got (fewer only at the end of the file).
  size_t readSome(uint8_t* data, size_t size) {
    size_t done = 0;
    while (done < size) {
      unsigned chunk = static_cast<unsigned>(std::min<size_t>(size - done, 1u << 30));
      int got = gzread(file_, data + done, chunk);
      if (got < 0) {
        int code = 0;
        throw InputError(path_ + ": corrupt data file (" + gzerror(file_, &code) + ")");
      }
      if (got == 0) break;
      done += static_cast<size_t>(got);
    }
    return done;
  }

  void readExactly(uint8_t* data, size_t size, const std::string& what) {
    size_t got = readSome(data, size);
    if (got != size) {
      throw InputError(path_ + ": truncated data file (" + what + ": expected " + std::to_string(size) +
                       " bytes, found " + std::to_string(got) + ")");
    }
  }

  bool atEnd() {
    uint8_t byte = 0;
    return readSome(&byte, 1) == 0;
  }

 private:
  std::string path_;
  gzFile file_ = nullptr;
};

uint32_t bigEndian32(const uint8_t* b) {
  return (uint32_t{b[0]} << 24) | (uint32_t{b[1]} << 16) | (uint32_t{b[2]} << 8) | uint32_t{b[3]};
}

std::string firstExisting(const std::vector<std::string>& candidates) {
  for (const auto& c : candidates) {
    if (fs::exists(c)) return c;
  }
  return candidates.front();
}

}  // namespace

IdxArray readIdxFile(const std::string& path, int expectedRank, const AllowedFolders& folders) {
  GzFile file(path, folders);
  uint8_t magic[4];
  file.readExactly(magic, sizeof magic, "IDX header");
  if (magic[0] != 0 || magic[1] != 0) throw InputError(path + ": not an IDX file (bad magic number)");
  if (magic[2] != kIdxUnsignedByte) {
    throw InputError(path + ": IDX element type " + std::to_string(magic[2]) + " is not unsigned byte (8)");
  }
  if (magic[3] != expectedRank) {
    throw InputError(path + ": IDX file has " + std::to_string(magic[3]) + " dimensions, expected " +
                     std::to_string(expectedRank));
  }
  IdxArray array;
  uint64_t total = 1;
  for (int i = 0; i < expectedRank; ++i) {
    uint8_t dim[4];
    file.readExactly(dim, sizeof dim, "IDX dimensions");
    array.dims.push_back(bigEndian32(dim));
    total *= array.dims.back();
  }
  if (total == 0 || total > (uint64_t{1} << 34)) {
    throw InputError(path + ": IDX dimensions give " + std::to_string(total) +
                     " values, which is not plausible");
  }
  array.values.resize(total);
  file.readExactly(array.values.data(), total, "IDX values");
  if (!file.atEnd()) throw InputError(path + ": IDX file is longer than its dimensions say");
  return array;
}

LabelledImages readIdxSplit(const std::string& imagesPath, const std::string& labelsPath, int classes,
                            const AllowedFolders& folders) {
  IdxArray images = readIdxFile(imagesPath, 3, folders);
  IdxArray labels = readIdxFile(labelsPath, 1, folders);
  if (images.dims[0] != labels.dims[0]) {
    throw InputError(labelsPath + ": holds " + std::to_string(labels.dims[0]) + " labels but " + imagesPath +
                     " holds " + std::to_string(images.dims[0]) + " images");
  }
  for (size_t i = 0; i < labels.values.size(); ++i) {
    if (labels.values[i] >= classes) {
      throw InputError(labelsPath + ": label " + std::to_string(labels.values[i]) + " at index " +
                       std::to_string(i) + " is not below " + std::to_string(classes));
    }
  }
  LabelledImages split;
  split.count = images.dims[0];
  split.channels = 1;
  split.height = images.dims[1];
  split.width = images.dims[2];
  split.pixels = std::move(images.values);
  split.labels = std::move(labels.values);
  return split;
}

LabelledImages readCifarBatches(const std::vector<std::string>& paths, const AllowedFolders& folders) {
  LabelledImages split;
  split.channels = kCifarChannels;
  split.height = kCifarSide;
  split.width = kCifarSide;
  std::vector<uint8_t> record(kCifarRecord);
  for (const auto& path : paths) {
    GzFile file(path, folders);
    uint64_t records = 0;
    while (true) {
      size_t got = file.readSome(record.data(), record.size());
      if (got == 0) break;
      if (got != record.size()) {
        throw InputError(path + ": truncated CIFAR-10 batch (its size is not a multiple of " +
                         std::to_string(kCifarRecord) + " bytes)");
      }
      if (record[0] >= 10) {
        throw InputError(path + ": record " + std::to_string(records) + " has label " +
                         std::to_string(record[0]) + ", CIFAR-10 labels are 0-9");
      }
      split.labels.push_back(record[0]);
      split.pixels.insert(split.pixels.end(), record.begin() + 1, record.end());
      ++records;
    }
    if (records == 0) throw InputError(path + ": empty CIFAR-10 batch file");
    split.count += static_cast<uint32_t>(records);
  }
  return split;
}

std::string fashionMnistFile(const std::string& dir, const std::string& split, const std::string& kind) {
  std::string base =
      (fs::path(dir) / (split + "-" + kind + (kind == "images" ? "-idx3-ubyte" : "-idx1-ubyte"))).string();
  return firstExisting({base + ".gz", base});
}

namespace {
fs::path cifarDir(const std::string& dir) {
  fs::path nested = fs::path(dir) / "cifar-10-batches-bin";
  return fs::is_directory(nested) ? nested : fs::path(dir);
}
}  // namespace

std::vector<std::string> cifarTrainFiles(const std::string& dir) {
  fs::path base = cifarDir(dir);
  std::vector<std::string> files;
  for (int i = 1; i <= 5; ++i) {
    fs::path p = base / ("data_batch_" + std::to_string(i) + ".bin");
    if (fs::exists(p)) files.push_back(p.string());
  }
  if (files.empty()) {
    throw InputError((base / "data_batch_1.bin").string() +
                     ": no such data file (give --data-dir with the CIFAR-10 binary batches)");
  }
  return files;
}

std::string cifarTestFile(const std::string& dir) {
  return (cifarDir(dir) / "test_batch.bin").string();
}

}  // namespace ringmaster::worker
