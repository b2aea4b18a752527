// SPDX-License-Identifier: GPL-3.0-or-later
// Collectives out of step: ranks of one group must call the same collectives in the same order, with the same
// op, reduction, dtype and element count. A rank that calls one the others do not (an all_reduce behind
// `if rank == 0`) leaves them waiting in another collective, or makes Gloo abort with a size mismatch; the
// stall or crash that follows says where the ranks stopped, not why.
//
// What the ranks send (records.proto): each step's default-group count and CRC (StepSample), the calls of a
// step whose count and CRC are not the step before's (CollectiveCalls), and the calls of the step in progress
// with every heartbeat. The first collective where two ranks differ is found by comparing their calls at the
// same place of the same step: the calls in progress (a rank stuck, or its last heartbeat before it died), or
// a completed step's calls looked up by its count and CRC. Of the two, the rank whose call is not what its
// own earlier steps called there is the one out of step.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "diagnosis/finding.h"

namespace ringmaster::diagnosis {

class CollectiveSequenceDetector {
 public:
  explicit CollectiveSequenceDetector(int worldSize) : worldSize_(worldSize) {}

  void setHost(int rank, const std::string& host) { hosts_[rank] = host; }
  void add(const v1::StepSample& step);
  void add(const v1::CollectiveCalls& calls);
  void heartbeat(const v1::Heartbeat& heartbeat);
  // The rank's process ended. One that ended cleanly while another stays in a collective it did not make
  // (seen in two heartbeats of the other, the later after the end) never makes it: uneven inputs, an extra
  // call. A rank that failed has the crash finding instead.
  void exited(int rank, bool failed);

  // At most one finding: the first step and collective where ranks differ.
  std::vector<v1::Finding> findings() const;

 private:
  using Calls = std::vector<v1::Collective>;
  struct Pattern {
    uint32_t count = 0;
    uint32_t crc = 0;
    bool operator<(const Pattern& o) const { return count != o.count ? count < o.count : crc < o.crc; }
    bool operator==(const Pattern& o) const { return count == o.count && crc == o.crc; }
  };
  struct Rank {
    std::map<uint64_t, Pattern> steps;  // completed steps not yet compared with every rank's
    std::map<Pattern, Calls> known;     // the calls of each pattern its steps had
    std::optional<Pattern> usual;
    std::optional<uint64_t> lastCompleted;  // its latest completed step's pattern
    uint64_t inProgressStep = 0;            // the step its last heartbeat was in
    Calls inProgress;                       // and the calls made in it so far
    uint64_t lastBeat = 0;                  // event number of its last heartbeat
    uint64_t stateSince = 0;                // of its first heartbeat in this step with as many calls
    bool exited = false;
    bool exitedCleanly = false;
    uint64_t exitedAt = 0;  // event number of its end
  };
  struct Difference {
    uint64_t step = 0;
    int rank = 0;  // the rank out of step (or the first of the two)
    int other = 0;
    std::optional<v1::Collective> call;       // the rank's call at the place they differ
    std::optional<v1::Collective> otherCall;  // the other's there; none: it never calls one there
    std::string group;                        // the group they differ on
    size_t place = 0;                         // the place among its calls there
    bool inferred = false;        // the other's call there is what its steps call, not one it was seen in
    bool knownOdd = false;        // `rank` is the one whose call is not what its steps call
    uint32_t counts[2] = {0, 0};  // completed-step counts when no calls are known
  };

  // The calls `rank` made (or is making) in `step`, if known.
  const Calls* callsOf(const Rank& r, uint64_t step) const;
  // What the rank's latest completed step called at `at` on `group`, if known.
  const v1::Collective* usualAt(const Rank& r, const std::string& group, size_t at) const;
  // A suspected difference holds: a rank failed (or b ended while a stayed in the call), and neither rank got
  // past the step.
  bool confirmed(const Difference& d) const;
  void compareInProgress();
  void compareCompleted(uint64_t step);
  void note(Difference d);

  int worldSize_;
  std::map<int, Rank> ranks_;
  std::map<int, std::string> hosts_;
  std::optional<Difference> first_;
  std::vector<Difference> suspects_;
  bool anyFailed_ = false;  // a rank ended with an error or a signal
  uint64_t events_ = 0;     // heartbeats and ends seen, in order
};

}  // namespace ringmaster::diagnosis
