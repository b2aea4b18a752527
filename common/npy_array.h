// SPDX-License-Identifier: GPL-3.0-or-later
// NumPy's .npy files (format versions 1 to 3, as numpy.save writes them), memory-mapped: the header is
// checked (magic, version, dtype, C order, shape against the file's size) and the values are used where they
// lie, so a data set larger than memory is paged in as the sampler reads it. Every problem is an InputError
// naming the file and what to do. No LibTorch here: the worker wraps the mapped values in tensors without a
// copy.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/allowed_folders.h"

namespace ringmaster {

// The element types Ringmaster reads: images or features (float32, uint8), class labels (int64), regression
// targets (float32).
enum class NpyType { Float32, UInt8, Int64 };

std::string_view npyTypeName(NpyType type);  // "float32", "uint8", "int64"
size_t npyTypeSize(NpyType type);

// What a .npy header says.
struct NpyHeader {
  NpyType type = NpyType::Float32;
  std::vector<int64_t> shape;  // at least one dimension: the samples
  size_t dataOffset = 0;       // where the values start in the file (bytes)
  size_t dataBytes = 0;        // product of the shape times the element size
};

// Parses the header at the start of `bytes` (a whole file) and checks it against the file's size. Throws
// InputError beginning with `path`.
NpyHeader parseNpyHeader(std::string_view bytes, const std::string& path);

// A .npy file mapped into memory (private, copy-on-write: nothing is ever written back) for as long as the
// object lives.
class NpyArray {
 public:
  // Maps and checks `path`, opened beneath `folders`. Throws InputError naming it when it is missing,
  // unreadable, not a .npy file Ringmaster reads, or outside `folders`.
  explicit NpyArray(const std::string& path, const AllowedFolders& folders = AllowedFolders::anywhere());
  ~NpyArray();
  NpyArray(const NpyArray&) = delete;
  NpyArray& operator=(const NpyArray&) = delete;

  const std::string& path() const { return path_; }
  const NpyHeader& header() const { return header_; }
  NpyType type() const { return header_.type; }
  const std::vector<int64_t>& shape() const { return header_.shape; }
  // The values, C order; aligned for their type.
  void* data() const { return static_cast<char*>(mapping_) + header_.dataOffset; }
  // "float32 (60000, 1, 28, 28)" for messages.
  std::string describe() const;

 private:
  std::string path_;
  void* mapping_ = nullptr;
  size_t mappedBytes_ = 0;
  NpyHeader header_;
};

// "(60000, 1, 28, 28)"
std::string formatShape(const std::vector<int64_t>& shape);

}  // namespace ringmaster
