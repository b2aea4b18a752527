// SPDX-License-Identifier: GPL-3.0-or-later
// Finds stalls and hangs: the Horovod engine's stall reports name the ranks that have not submitted a tensor;
// rank progress shows a job that stopped, and which ranks stopped behind the others; heartbeats tell the rank
// that stopped calling collectives (a user's program says where it is) or that went silent (any rank frozen,
// stopped or swapped out) from those waiting for it. A stall a rank caused is kept once the job goes on.
//
// Times passed in are the console's monotonic clock when a record arrived (live use); a stored run has only
// the stall reports.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "ringmaster/v1/records.pb.h"

namespace ringmaster::diagnosis {

namespace v1 = ::ringmaster::v1;

struct StallConfig {
  double stallSeconds = 5;  // no step completed by any rank for this long = a stall (seconds)
};

class StallDetector {
 public:
  explicit StallDetector(int worldSize, StallConfig config = {});

  void setHost(int rank, const std::string& host);
  void add(const v1::StallReport& report);
  void progress(const v1::StepSample& sample, int64_t arrivalNs);
  void heartbeat(const v1::Heartbeat& beat, int64_t arrivalNs);
  // A rank that exited is not stalled (the launcher reports it). When a rank fails while the job is stalled,
  // the stall found as of then stays among the findings: it is why the job ended.
  void exited(int rank, bool failed = false, int64_t arrivalNs = 0);
  // Looks at progress as of `nowNs` (same clock as arrivals) and returns every stall finding so far.
  std::vector<v1::Finding> findings(int64_t nowNs) const;
  std::vector<v1::Finding> findings() const { return findings(0); }

 private:
  struct Beat {
    v1::Heartbeat beat;
    int64_t arrivalNs = 0;
  };
  std::vector<v1::Finding> progressFindings(int64_t nowNs) const;
  // A stall that a named rank caused is ending (progress or the rank's heartbeats are back): kept as a
  // warning.
  void rememberStallThatEnds(int64_t nowNs);
  static constexpr double kSilentS = 5;  // heartbeats come every second: five missed is a rank gone quiet
  // The ranks holding a stalled job up by their heartbeats: not waiting in a collective while others are, or
  // silent while others still beat. Empty when heartbeats cannot tell.
  std::vector<v1::Finding> heartbeatFindings(int64_t nowNs, double quietS) const;

  struct Missing {
    std::set<std::string> tensors;
    std::set<int> reporters;
    double waitedS = 0;
  };

  int worldSize_;
  StallConfig config_;
  std::map<int, std::string> hosts_;
  std::map<int, Missing> missing_;         // from stall reports, by missing rank
  std::map<int, uint64_t> lastStep_;       // last completed step per rank
  std::map<int, int64_t> lastProgressNs_;  // when it arrived
  std::set<int> exited_;
  int64_t lastAnyProgressNs_ = 0;
  std::map<int, Beat> beats_;         // latest heartbeat per rank
  std::vector<v1::Finding> latched_;  // the stall a failed rank ended
  std::vector<v1::Finding> ended_;    // stalls the job came out of, one per rank that caused one
};

}  // namespace ringmaster::diagnosis
