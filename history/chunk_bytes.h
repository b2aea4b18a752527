// SPDX-License-Identifier: GPL-3.0-or-later
// What the run store's chunks (timeline_chunk.h, step_chunk.h) are built from: varints, differences taken
// modulo 2^64 and zigzagged, a cursor for which reading past the end is damage, and the blob around a chunk's
// packed bytes: a format byte, the item count and the packed size as varints, then zlib's deflate of them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/error.h"

namespace ringmaster {

// A blob that is not a chunk this build can read: what is wrong with it.
class ChunkError : public InputError {
 public:
  using InputError::InputError;
};

void putVarint(std::string& out, uint64_t value);

// Differences are taken modulo 2^64, so any two int64 values round-trip.
inline uint64_t zigzag(uint64_t difference) {
  const auto signedValue = static_cast<int64_t>(difference);
  return (difference << 1) ^ static_cast<uint64_t>(signedValue >> 63);
}

inline uint64_t unzigzag(uint64_t value) {
  return (value >> 1) ^ (~(value & 1) + 1);
}

// Reads varints and byte runs from a blob's part; whatever runs past its end is damage.
class ChunkCursor {
 public:
  ChunkCursor(std::string_view bytes, const char* part) : bytes_(bytes), part_(part) {}

  uint64_t varint();
  std::string_view bytes(uint64_t length);
  // A varint below `limit`, an index into something the chunk holds.
  uint32_t index(size_t limit);
  void skip(size_t n) { bytes(n); }
  size_t offset() const { return at_; }
  bool atEnd() const { return at_ == bytes_.size(); }

 private:
  std::string_view bytes_;
  size_t at_ = 0;
  const char* part_;
};

// The blob of a chunk of `count` items whose columns are `packed`, deflated at zlib's `level`.
std::string packChunk(char format, uint64_t count, std::string_view packed, int level);

// What a chunk blob holds, checked against `format` and the limits: `count` items, each taking at least
// `minBytesPerItem` packed bytes, at most `maxCount` of them. `items` names them in messages ("events").
// Throws ChunkError.
struct UnpackedChunk {
  uint64_t count = 0;
  std::string packed;
};
UnpackedChunk unpackChunk(std::string_view blob, char format, uint64_t maxCount, uint64_t minBytesPerItem,
                          const char* items);

}  // namespace ringmaster
