// SPDX-License-Identifier: GPL-3.0-or-later
// Clocks: every record carries nanoseconds on the job's clock (the rank's monotonic clock shifted by its
// offset to rank 0, counted from the job's epoch), so that ranks on different hosts share one time axis.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

namespace ringmaster {

// CLOCK_MONOTONIC in nanoseconds.
inline int64_t monotonicNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Wall clock in nanoseconds since the Unix epoch (for log lines and rank states).
inline int64_t unixNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// Maps this process's monotonic clock onto the job's clock.
class JobClock {
 public:
  // `offsetNs` is what to add to this rank's monotonic time to get rank 0's monotonic time;
  // `epochNs` is rank 0's monotonic time at the job's start.
  void calibrate(int64_t offsetNs, int64_t epochNs) {
    offset_.store(offsetNs - epochNs, std::memory_order_relaxed);
  }
  int64_t now() const { return toJob(monotonicNs()); }
  int64_t toJob(int64_t monotonic) const { return monotonic + offset_.load(std::memory_order_relaxed); }

 private:
  std::atomic<int64_t> offset_{0};
};

}  // namespace ringmaster
