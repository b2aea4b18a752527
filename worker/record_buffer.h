// SPDX-License-Identifier: GPL-3.0-or-later
// A bounded buffer between the training threads (producers) and the telemetry sender (consumer).
// Training never waits on telemetry: when the buffer is full the record is dropped and counted.
//
// Records live in a protobuf RepeatedPtrField that the consumer swaps out whole, so a drain moves pointers,
// not records. When the consumer hands back the (cleared) field it drained last time, the buffer adds into
// its cleared records again: a steady producer allocates no Record objects at all.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>

#include "ringmaster/v1/records.pb.h"

namespace ringmaster::worker {

using Records = google::protobuf::RepeatedPtrField<v1::Record>;

class RecordBuffer {
 public:
  explicit RecordBuffer(size_t capacity);

  // Adds a record; returns false (and counts a drop) when full.
  bool push(v1::Record&& record);
  // Moves out up to `max` records, oldest first.
  Records drain(size_t max);
  // The same into `out`, which should be empty: a cleared field drained earlier gives its records back for
  // reuse.
  void drainInto(Records& out, size_t max);

  // Calls `wake` (outside the lock, from the producer's thread) each time the buffer fills up to `records`,
  // so that a consumer batching by time can send early instead of letting the buffer overflow.
  void setHighWater(size_t records, std::function<void()> wake);

  size_t capacity() const { return capacity_; }
  uint64_t pushed() const;
  uint64_t dropped() const;
  // Counts records the consumer had to give up on (e.g. the agent was gone).
  void countDropped(uint64_t n);

 private:
  const size_t capacity_;
  mutable std::mutex mutex_;
  Records records_;
  uint64_t pushed_ = 0;
  uint64_t dropped_ = 0;
  size_t highWater_ = 0;
  std::function<void()> wake_;
};

}  // namespace ringmaster::worker
