// SPDX-License-Identifier: GPL-3.0-or-later
// Which rank kept a Horovod job waiting, from the ready ticks in rank 0's timeline.
//
// For every tensor negotiated in a cycle, Horovod's timeline holds a NEGOTIATE_<OP> span on the tensor's row
// with one zero-length tick per rank, named by the rank, at the moment the coordinator learned that rank was
// ready. The last rank to tick held the tensor's collective back, by the gap to the tick before it. A rank
// that is last far more often than its fair share (1 in N, judged with a binomial score) is a straggler; the
// finding says how often and by how much. Ties (the last two ticks in the same instant) blame no one.
//
// With Horovod's response cache on, a cached tensor skips negotiation and leaves no ticks: when too few
// complete negotiations remain to judge, the tally says so instead of guessing.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "ringmaster/v1/records.pb.h"

namespace ringmaster::diagnosis {

namespace v1 = ::ringmaster::v1;

struct ReadinessConfig {
  uint64_t minNegotiations = 20;  // complete negotiations needed before anyone is judged (count)
  double minScore = 4.0;  // binomial z-score of a rank's last-count over its fair share (dimensionless)
  double minShareOverFair = 1.5;  // and its share must be at least this multiple of 1/N (ratio)
};

// One rank's record as the last to be ready.
struct RankLateness {
  int rank = 0;
  uint64_t last = 0;        // complete negotiations in which it ticked last, alone (count)
  double medianLateNs = 0;  // median gap to the tick before its own, over those (ns)
};

class ReadinessTally {
 public:
  explicit ReadinessTally(ReadinessConfig config = {});

  // Events of a Horovod timeline in the order the timeline reader emits them: a rank's ready tick (an instant
  // named by the rank number) comes before the NEGOTIATE_* span that holds it.
  void observe(const v1::TimelineEvent& event);

  int worldSize() const { return maxRank_ + 1; }
  // Negotiations holding a tick from every rank (of worldSize()), and those missing some.
  uint64_t completeNegotiations() const;
  uint64_t incompleteNegotiations() const;
  // Every rank that was last at least once, most often first.
  std::vector<RankLateness> lateness() const;

  // A straggler finding for each rank that is last far beyond its share; an info finding when ticks exist but
  // too few negotiations are complete to judge; nothing for a timeline without ticks.
  std::vector<v1::Finding> findings() const;

 private:
  struct Tick {
    int rank;
    int64_t atNs;
  };
  struct Negotiation {
    int ranks = 0;       // distinct ranks that ticked
    int last = -1;       // the rank that ticked last, alone; -1 on a tie
    int64_t lateNs = 0;  // its gap to the tick before
  };

  ReadinessConfig config_;
  std::unordered_map<std::string, std::vector<Tick>> pending_;  // ticks by row, until their span closes
  std::vector<Negotiation> negotiations_;
  int maxRank_ = -1;
};

}  // namespace ringmaster::diagnosis
