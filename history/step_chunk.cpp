// SPDX-License-Identifier: GPL-3.0-or-later
#include "history/step_chunk.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <limits>

namespace ringmaster {

// Named, not anonymous: a unity build puts this file beside timeline_chunk.cpp.
namespace step_packing {

constexpr char kStepFormat = 1;
constexpr int kStepLevel = Z_BEST_SPEED;
constexpr uint64_t kMaxSteps = 1u << 20;  // what a blob may claim

enum Column : size_t {
  kStep,
  kEpoch,
  kData,
  kForward,
  kBackward,
  kCommWait,
  kOptimizer,
  kTotal,
  kStart,  // after total, which foretells it
  kSamples,
  kLoss,
  kLr,
};
static_assert(kLr + 1 == StepChunkEncoder::kColumns);

enum Mode : uint8_t { kReference = 0, kPrevious = 1, kPredicted = 2, kXor = 3 };

using Columns = std::array<std::vector<uint64_t>, StepChunkEncoder::kColumns>;

uint64_t bits(double value) {
  uint64_t out;
  std::memcpy(&out, &value, sizeof out);
  return out;
}

double fromBits(uint64_t value) {
  double out;
  std::memcpy(&out, &value, sizeof out);
  return out;
}

int bitLength(uint64_t value) {
  return value == 0 ? 0 : 64 - __builtin_clzll(value);
}

bool hasPrediction(size_t column) {
  return column == kStep || column == kTotal || column == kStart;
}

// What the columns decoded so far foretell for `column` at `i` (> 0).
uint64_t predicted(const Columns& c, size_t column, size_t i) {
  switch (column) {
    case kStep:
      return c[kStep][i - 1] + 1;
    case kTotal:
      return c[kData][i] + c[kForward][i] + c[kBackward][i] + c[kCommWait][i] + c[kOptimizer][i];
    default:  // kStart
      return c[kStart][i - 1] + c[kTotal][i - 1];
  }
}

struct Encoded {
  Mode mode = kReference;
  uint64_t first = 0, least = 0;  // as each mode needs them
  std::vector<uint64_t> numbers;
  uint64_t cost = 0;  // bits of the numbers, roughly what they take packed
};

Encoded encodeAs(const Columns& c, size_t column, Mode mode) {
  const std::vector<uint64_t>& v = c[column];
  Encoded e;
  e.mode = mode;
  e.numbers.resize(v.size());
  if (v.empty()) return e;
  if (mode == kXor) {
    for (size_t i = 0; i < v.size(); ++i) e.numbers[i] = v[i] ^ (i ? v[i - 1] : 0);
  } else if (mode == kReference) {
    e.least = uint64_t(*std::min_element(v.begin(), v.end(),
                                         [](uint64_t a, uint64_t b) { return int64_t(a) < int64_t(b); }));
    for (size_t i = 0; i < v.size(); ++i) e.numbers[i] = v[i] - e.least;
  } else {
    e.first = v[0];
    std::vector<uint64_t> differences(v.size(), 0);
    for (size_t i = 1; i < v.size(); ++i)
      differences[i] = v[i] - (mode == kPrevious ? v[i - 1] : predicted(c, column, i));
    if (v.size() > 1) {
      e.least = uint64_t(*std::min_element(differences.begin() + 1, differences.end(),
                                           [](uint64_t a, uint64_t b) { return int64_t(a) < int64_t(b); }));
    }
    for (size_t i = 1; i < v.size(); ++i) e.numbers[i] = differences[i] - e.least;
  }
  for (uint64_t n : e.numbers) e.cost += uint64_t(bitLength(n));
  return e;
}

void putColumn(std::string& out, const Encoded& e) {
  out.push_back(char(e.mode));
  if (e.mode == kReference) putVarint(out, zigzag(e.least));
  if (e.mode == kPrevious || e.mode == kPredicted) {
    putVarint(out, zigzag(e.first));
    putVarint(out, zigzag(e.least));
  }
  uint64_t largest = 0;
  for (uint64_t n : e.numbers) largest = std::max(largest, n);
  const int width = (bitLength(largest) + 7) / 8;
  out.push_back(char(width));
  for (int b = 0; b < width; ++b) {
    for (uint64_t n : e.numbers) out.push_back(char(uint8_t(n >> (8 * b))));
  }
}

uint8_t byteOf(ChunkCursor& cursor) {
  return uint8_t(cursor.bytes(1)[0]);
}

void readColumn(ChunkCursor& cursor, Columns& c, size_t column, size_t count) {
  const uint8_t mode = byteOf(cursor);
  if (mode > kXor || (mode == kPredicted && !hasPrediction(column)))
    throw ChunkError("the chunk's column " + std::to_string(column) + " is in no way this build knows");
  uint64_t first = 0, least = 0;
  if (mode == kReference) least = unzigzag(cursor.varint());
  if (mode == kPrevious || mode == kPredicted) {
    first = unzigzag(cursor.varint());
    least = unzigzag(cursor.varint());
  }
  const uint8_t width = byteOf(cursor);
  if (width > 8) throw ChunkError("the chunk's column " + std::to_string(column) + " is damaged");
  const std::string_view planes = cursor.bytes(uint64_t(width) * count);
  std::vector<uint64_t>& v = c[column];
  v.assign(count, 0);
  for (size_t b = 0; b < width; ++b) {
    for (size_t i = 0; i < count; ++i) v[i] |= uint64_t(uint8_t(planes[b * count + i])) << (8 * b);
  }
  for (size_t i = 0; i < count; ++i) {
    switch (mode) {
      case kReference:
        v[i] += least;
        break;
      case kXor:
        v[i] ^= i ? v[i - 1] : 0;
        break;
      default:
        v[i] = i == 0 ? first : v[i] + least + (mode == kPrevious ? v[i - 1] : predicted(c, column, i));
    }
  }
}

}  // namespace step_packing

using namespace step_packing;

void StepChunkEncoder::add(const v1::StepSample& s) {
  const uint64_t values[kColumns] = {s.step(),
                                     s.epoch(),
                                     uint64_t(s.data_ns()),
                                     uint64_t(s.forward_ns()),
                                     uint64_t(s.backward_ns()),
                                     uint64_t(s.comm_wait_ns()),
                                     uint64_t(s.optimizer_ns()),
                                     uint64_t(s.total_ns()),
                                     uint64_t(s.start_ns()),
                                     s.samples(),
                                     bits(s.loss()),
                                     bits(s.lr())};
  if (empty()) firstStep_ = lastStep_ = s.step();
  firstStep_ = std::min(firstStep_, s.step());
  lastStep_ = std::max(lastStep_, s.step());
  for (size_t c = 0; c < kColumns; ++c) columns_[c].push_back(values[c]);
}

void StepChunkEncoder::clear() {
  for (auto& column : columns_) column.clear();
}

std::string StepChunkEncoder::encode() const {
  std::string packed;
  for (size_t column = 0; column < kColumns; ++column) {
    std::vector<Mode> modes = {kReference, kPrevious, kXor};
    if (hasPrediction(column)) modes.push_back(kPredicted);
    Encoded best;
    bool any = false;
    for (Mode mode : modes) {
      Encoded e = encodeAs(columns_, column, mode);
      if (!any || e.cost < best.cost) best = std::move(e);
      any = true;
    }
    putColumn(packed, best);
  }
  return packChunk(kStepFormat, size(), packed, kStepLevel);
}

void decodeStepChunk(std::string_view blob, int rank, const std::function<void(v1::StepSample&&)>& visit) {
  // Every column takes at least its two bytes of mode and width.
  const UnpackedChunk unpacked = unpackChunk(blob, kStepFormat, kMaxSteps, 0, "steps");
  const size_t count = size_t(unpacked.count);
  ChunkCursor cursor(unpacked.packed, "the chunk's columns");
  Columns c;
  for (size_t column = 0; column < StepChunkEncoder::kColumns; ++column) readColumn(cursor, c, column, count);
  if (!cursor.atEnd()) throw ChunkError("the chunk holds bytes after its last column");
  constexpr uint64_t kMost32 = std::numeric_limits<uint32_t>::max();
  for (size_t i = 0; i < count; ++i) {
    if (c[kEpoch][i] > kMost32 || c[kSamples][i] > kMost32)
      throw ChunkError("the chunk's epochs or samples are damaged");
  }
  for (size_t i = 0; i < count; ++i) {
    v1::StepSample s;
    s.set_rank(rank);
    s.set_step(c[kStep][i]);
    s.set_epoch(uint32_t(c[kEpoch][i]));
    s.set_start_ns(int64_t(c[kStart][i]));
    s.set_data_ns(int64_t(c[kData][i]));
    s.set_forward_ns(int64_t(c[kForward][i]));
    s.set_backward_ns(int64_t(c[kBackward][i]));
    s.set_comm_wait_ns(int64_t(c[kCommWait][i]));
    s.set_optimizer_ns(int64_t(c[kOptimizer][i]));
    s.set_total_ns(int64_t(c[kTotal][i]));
    s.set_samples(uint32_t(c[kSamples][i]));
    s.set_loss(fromBits(c[kLoss][i]));
    s.set_lr(fromBits(c[kLr][i]));
    visit(std::move(s));
  }
}

}  // namespace ringmaster
