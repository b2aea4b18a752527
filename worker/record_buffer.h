// SPDX-License-Identifier: GPL-3.0-or-later
// A bounded buffer between the training threads (producers) and the telemetry sender (consumer).
// Training never waits on telemetry: when the buffer is full the record is dropped and counted.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

#include "ringmaster/v1/records.pb.h"

namespace ringmaster::worker {

class RecordBuffer {
 public:
  explicit RecordBuffer(size_t capacity);

  // Adds a record; returns false (and counts a drop) when full.
  bool push(v1::Record record);
  // Moves out up to `max` records, oldest first.
  std::vector<v1::Record> drain(size_t max);

  size_t capacity() const { return capacity_; }
  uint64_t pushed() const;
  uint64_t dropped() const;
  // Counts records the consumer had to give up on (e.g. the agent was gone).
  void countDropped(uint64_t n);

 private:
  const size_t capacity_;
  mutable std::mutex mutex_;
  std::vector<v1::Record> records_;
  uint64_t pushed_ = 0;
  uint64_t dropped_ = 0;
};

}  // namespace ringmaster::worker
