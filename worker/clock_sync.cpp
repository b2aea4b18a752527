// SPDX-License-Identifier: GPL-3.0-or-later
#include "worker/clock_sync.h"

#include "common/clock.h"

namespace ringmaster::worker {
namespace {

constexpr int kClockRounds = 8;

std::string key(const char* kind, int rank, int round) {
  return std::string("clock/") + kind + "/" + std::to_string(rank) + "/" + std::to_string(round);
}

}  // namespace

// Each rank r > 0 plays ping-pong with rank 0 through the store, one rank after another: r notes its clock,
// sets a ping key, rank 0 answers with its clock, r notes its clock again. Rank 0's reading lies between the
// two, so offset = t0 - (send + receive) / 2, with an error of at most half the round trip; the fastest round
// wins.
ClockSync synchroniseClocks(int rank, int worldSize, const ClockSyncStore& store) {
  ClockSync clock;
  if (rank == 0) {
    for (int r = 1; r < worldSize; ++r) {
      for (int round = 0; round < kClockRounds; ++round) {
        store.get(key("ping", r, round));  // blocks until r has pinged
        store.set(key("pong", r, round), std::to_string(monotonicNs()));
      }
    }
    clock.epochNs = monotonicNs();
    store.set("clock/epoch", std::to_string(clock.epochNs));
    return clock;
  }
  int64_t bestRtt = INT64_MAX;
  for (int round = 0; round < kClockRounds; ++round) {
    int64_t sent = monotonicNs();
    store.set(key("ping", rank, round), "1");
    int64_t remote = std::stoll(store.get(key("pong", rank, round)));
    int64_t received = monotonicNs();
    if (received - sent < bestRtt) {
      bestRtt = received - sent;
      clock.offsetNs = remote - (sent + received) / 2;
    }
  }
  clock.rttNs = bestRtt;
  clock.epochNs = std::stoll(store.get("clock/epoch"));
  return clock;
}

}  // namespace ringmaster::worker
