// SPDX-License-Identifier: GPL-3.0-or-later
#include "worker/record_buffer.h"

#include <algorithm>
#include <iterator>

namespace ringmaster::worker {

RecordBuffer::RecordBuffer(size_t capacity) : capacity_(capacity) { records_.reserve(std::min<size_t>(capacity, 4096)); }

bool RecordBuffer::push(v1::Record record) {
  std::lock_guard lock(mutex_);
  if (records_.size() >= capacity_) {
    ++dropped_;
    return false;
  }
  records_.push_back(std::move(record));
  ++pushed_;
  return true;
}

std::vector<v1::Record> RecordBuffer::drain(size_t max) {
  std::lock_guard lock(mutex_);
  std::vector<v1::Record> out;
  if (records_.size() <= max) {
    out.swap(records_);
    records_.reserve(std::min<size_t>(capacity_, 4096));
    return out;
  }
  out.assign(std::make_move_iterator(records_.begin()), std::make_move_iterator(records_.begin() + max));
  records_.erase(records_.begin(), records_.begin() + max);
  return out;
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
