// SPDX-License-Identifier: GPL-3.0-or-later
// How the run store keeps timeline events: the events of one lane (rank, lane name), up to
// kTimelineChunkEvents of them in the order they came, as one compressed blob. A trace has millions of events
// but few distinct names, and consecutive events of a lane start close together, so a chunk holds its names
// and argument texts once and each event as small numbers; a row per event made an imported trace's store
// larger than the trace itself.
//
// Blob: a format byte (1), the event count and the unpacked size as varints, then zlib's deflate of: the
// chunk's texts (count, then length + bytes each), then five columns, each its byte length and its varints:
// start (zigzag difference from the previous event's), duration (zigzag end - start), name (text index), step
// (zigzag difference from the previous event's) and args (count, then key and value text indexes). Columns
// keep alike numbers together, which deflate packs better than whole events one after another.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "history/chunk_bytes.h"
#include "ringmaster/v1/records.pb.h"

namespace ringmaster {

// Events per chunk: large enough that a chunk's texts and zlib's framing cost little per event, small enough
// that a view of a short range unpacks little it does not show and a live run's lane rewrites its open chunk
// cheaply.
inline constexpr size_t kTimelineChunkEvents = 1024;
// A chunk is also full once its texts and columns take this many bytes (a lane of events with long args), so
// that each stays far below what a reader unpacks (1 GiB) and an import holds little per lane.
inline constexpr size_t kTimelineChunkBytes = size_t{8} << 20;

// A blob that is not a timeline chunk this build can read: what is wrong with it.
using TimelineChunkError = ChunkError;

// Collects one lane's events and packs them into a blob. Rank and lane are the chunk's and are not stored.
class TimelineChunkEncoder {
 public:
  TimelineChunkEncoder() = default;
  // Moved, never copied: its text list points into its text map.
  TimelineChunkEncoder(const TimelineChunkEncoder&) = delete;
  TimelineChunkEncoder& operator=(const TimelineChunkEncoder&) = delete;
  TimelineChunkEncoder(TimelineChunkEncoder&&) = default;
  TimelineChunkEncoder& operator=(TimelineChunkEncoder&&) = default;

  void add(const v1::TimelineEvent& event);
  void clear();
  size_t size() const { return count_; }
  bool empty() const { return count_ == 0; }
  // Whether it holds a chunk's worth: kTimelineChunkEvents events or kTimelineChunkBytes of texts and
  // columns.
  bool full() const {
    return count_ >= kTimelineChunkEvents ||
           textBytes_ + starts_.size() + durations_.size() + names_.size() + steps_.size() + args_.size() >=
               kTimelineChunkBytes;
  }
  int64_t firstStartNs() const { return firstStartNs_; }  // the earliest start of its events
  int64_t lastEndNs() const { return lastEndNs_; }        // the latest end
  std::string encode() const;

 private:
  uint32_t text(const std::string& value);

  size_t count_ = 0;
  int64_t firstStartNs_ = 0;
  int64_t lastEndNs_ = 0;
  int64_t previousStart_ = 0;
  uint64_t previousStep_ = 0;
  size_t textBytes_ = 0;
  std::vector<const std::string*> texts_;  // by index, pointing into textIds_
  std::unordered_map<std::string, uint32_t> textIds_;
  std::string starts_, durations_, names_, steps_, args_;
};

// Unpacks `blob` and calls `visit` for each event in the order they were added, with `rank` and `lane` set.
// Throws TimelineChunkError when the blob is damaged or of an unknown format; nothing is visited then.
void decodeTimelineChunk(std::string_view blob, int rank, const std::string& lane,
                         const std::function<void(const v1::TimelineEvent&)>& visit);

}  // namespace ringmaster
