// SPDX-License-Identifier: GPL-3.0-or-later
// Each rank's clock against rank 0's, measured through the job's key-value store (no LibTorch: the rendezvous
// and the probe library for users' programs share it).
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace ringmaster::worker {

// This rank's clock against rank 0's, from the store round trip with the smallest delay.
struct ClockSync {
  int64_t offsetNs = 0;  // add to this rank's monotonic clock to get rank 0's
  int64_t rttNs = 0;     // the round trip the estimate came from (its error is at most half of it)
  int64_t epochNs = 0;   // rank 0's monotonic time when everyone had arrived: the job clock's zero
};

// The two store operations the measurement uses; `get` waits until the key is set.
struct ClockSyncStore {
  std::function<void(const std::string& key, const std::string& value)> set;
  std::function<std::string(const std::string& key)> get;
};

// Every rank calls this once, at the same point. Throws what the store throws (a rank that never answers).
ClockSync synchroniseClocks(int rank, int worldSize, const ClockSyncStore& store);

}  // namespace ringmaster::worker
