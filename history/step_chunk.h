// SPDX-License-Identifier: GPL-3.0-or-later
// How the run store keeps a rank's steps once there are enough of them: up to kStepChunkSteps step samples of
// one rank, in the order they came, as one compressed blob (table step_chunks). A row per step took about 80
// bytes; a thousand ranks train millions of steps.
//
// Blob (chunk_bytes.h): format 1, the step count, then deflate of twelve columns in this order: step, epoch,
// data, forward, backward, comm_wait, optimizer, total, start, samples, loss, lr. Each column is its values
// as 64-bit words (a double's bits) encoded in the way that leaves the smallest numbers, told by its first
// byte:
//   0 reference: each value less the column's least (a varint after the mode);
//   1 previous:  each value less the one before (the first value a varint), less the least such difference;
//   2 predicted: each value less what the others foretell (step: the step before + 1; total: the step's
//                phases added up; start: the start before + its total), less the least such difference;
//   3 xor:       each value's bits xor the bits before (a double that changes slowly keeps its high bytes).
// then a byte giving how many bytes the largest of those numbers takes (0 to 8), and the numbers' bytes, the
// lowest byte of every value first, then the next: jitter fills the low bytes, and the high ones, nearly
// alike, pack to almost nothing. Nothing is rounded: every field reads back as it was written.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "history/chunk_bytes.h"
#include "ringmaster/v1/records.pb.h"

namespace ringmaster {

// Steps per chunk: enough that a chunk's framing costs a fraction of a byte a step, few enough that a live
// run of a thousand ranks holds little of each rank's steps in memory before it packs them.
inline constexpr size_t kStepChunkSteps = 256;

// Collects one rank's steps and packs them. The rank is the chunk's and is not stored.
class StepChunkEncoder {
 public:
  void add(const v1::StepSample& step);
  void clear();
  size_t size() const { return columns_[0].size(); }
  bool empty() const { return size() == 0; }
  bool full() const { return size() >= kStepChunkSteps; }
  uint64_t firstStep() const { return firstStep_; }  // the lowest step it holds
  uint64_t lastStep() const { return lastStep_; }    // the highest
  std::string encode() const;

  static constexpr size_t kColumns = 12;

 private:
  std::array<std::vector<uint64_t>, kColumns> columns_;
  uint64_t firstStep_ = 0, lastStep_ = 0;
};

// Unpacks `blob` and calls `visit` for each step in the order they were added, with `rank` set. Throws
// ChunkError when the blob is damaged or of an unknown format; nothing is visited then.
void decodeStepChunk(std::string_view blob, int rank, const std::function<void(v1::StepSample&&)>& visit);

}  // namespace ringmaster
