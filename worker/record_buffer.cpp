// SPDX-License-Identifier: GPL-3.0-or-later
#include "worker/record_buffer.h"

#include <algorithm>
#include <vector>

namespace ringmaster::worker {

RecordBuffer::RecordBuffer(size_t capacity) : capacity_(capacity) {}

bool RecordBuffer::push(v1::Record&& record) {
  bool wake = false;
  {
    std::lock_guard lock(mutex_);
    if (static_cast<size_t>(records_.size()) >= capacity_) {
      ++dropped_;
      return false;
    }
    // Add() hands out a cleared record left by an earlier drain when there is one; the move is a swap.
    *records_.Add() = std::move(record);
    ++pushed_;
    wake = highWater_ > 0 && static_cast<size_t>(records_.size()) == highWater_;
  }
  if (wake) wake_();
  return true;
}

Records RecordBuffer::drain(size_t max) {
  Records out;
  drainInto(out, max);
  return out;
}

void RecordBuffer::drainInto(Records& out, size_t max) {
  out.Clear();
  std::lock_guard lock(mutex_);
  const int take = static_cast<int>(std::min(max, static_cast<size_t>(records_.size())));
  if (take == records_.size()) {
    out.Swap(&records_);  // everything: swap the fields (and give the buffer `out`'s cleared records)
    return;
  }
  // Part of it: move the oldest `take` records' pointers across.
  std::vector<v1::Record*> oldest(static_cast<size_t>(take));
  records_.ExtractSubrange(0, take, oldest.data());
  for (auto* record : oldest) out.AddAllocated(record);
}

void RecordBuffer::setHighWater(size_t records, std::function<void()> wake) {
  std::lock_guard lock(mutex_);
  highWater_ = wake ? records : 0;
  wake_ = std::move(wake);
}

uint64_t RecordBuffer::pushed() const {
  std::lock_guard lock(mutex_);
  return pushed_;
}

uint64_t RecordBuffer::dropped() const {
  std::lock_guard lock(mutex_);
  return dropped_;
}

void RecordBuffer::countDropped(uint64_t n) {
  std::lock_guard lock(mutex_);
  dropped_ += n;
}

}  // namespace ringmaster::worker
