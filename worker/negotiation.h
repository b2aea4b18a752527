// SPDX-License-Identifier: GPL-3.0-or-later
// Horovod's controller, the part that decides: every cycle each rank reports which named tensors it has
// ready, rank 0 (the coordinator) answers with the tensors that every rank has ready, in one order for
// everyone, and watches for tensors that only some ranks ever submit (the stall inspector).
//
// Plain C++ (no LibTorch): the engine moves these messages over a Gloo group as int64 tensors.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ringmaster::worker {

// One rank's report for one cycle. Encoded as [flags, readyNs(0), ..., readyNs(n-1)].
struct CycleReport {
  bool shutdown = false;  // this rank's engine is closing
  bool active = false;    // this rank is inside a synchronised backward (it expects reductions)
  // Per tensor: the job-clock time this rank submitted it, or 0 when it has nothing waiting for that tensor.
  std::vector<int64_t> readyNs;

  std::vector<int64_t> encode() const;
  static CycleReport decode(const int64_t* data, size_t tensors);
  static size_t encodedSize(size_t tensors) { return tensors + 1; }
};

// The coordinator's answer. Encoded as [flags, count, index...] padded to tensors + 2 entries.
struct CycleResponse {
  bool shutdown = false;      // some rank is closing: everyone stops
  bool idle = false;          // no rank is inside a backward: wait for local work before the next cycle
  std::vector<size_t> order;  // the tensors to reduce now, in this order on every rank

  std::vector<int64_t> encode(size_t tensors) const;
  static CycleResponse decode(const int64_t* data, size_t tensors);
  static size_t encodedSize(size_t tensors) { return tensors + 2; }
};

// Tensors that some ranks submitted and others did not, for longer than the threshold.
struct Stall {
  std::map<int, std::vector<size_t>> missing;  // rank -> tensors it has not submitted
  std::vector<int> readyRanks;                 // ranks that submitted at least one of those tensors
  double waitedS = 0;                          // how long the oldest of them has waited

  // A warning in the shape of Horovod's, naming tensors by `names`.
  std::string describe(const std::vector<std::string>& names, double thresholdS) const;
};

class StallInspector {
 public:
  StallInspector(size_t tensors, double thresholdS);

  // Feeds one cycle's reports (rank by rank). Returns a stall when a partly submitted tensor has waited past
  // the threshold; the same stall is reported again only after another threshold has passed.
  std::optional<Stall> check(const std::vector<CycleReport>& reports, int64_t nowNs);
  // Feeds one cycle answered from the response cache, which tells only which tensors some ranks have ready
  // and others not (`partlyReady`, by tensor). Returns true when check() would warn about one of them: the
  // next cycle should be a full negotiation, whose reports name the missing ranks.
  bool wantsDetail(const std::vector<bool>& partlyReady, int64_t nowNs);

 private:
  std::vector<int64_t> firstSeenNs_;  // 0 when the tensor is not partly submitted
  int64_t thresholdNs_;
  int64_t lastWarningNs_ = 0;

  bool warningDue(int64_t nowNs) const {
    return lastWarningNs_ == 0 || nowNs - lastWarningNs_ >= thresholdNs_;
  }
};

// Rank 0's decision: a tensor is ready when every rank reported it; ready tensors go in the order in which
// they became ready everywhere (the latest rank's submission time), ties by tensor index.
CycleResponse coordinate(const std::vector<CycleReport>& reports);

}  // namespace ringmaster::worker
