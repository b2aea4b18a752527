// SPDX-License-Identifier: GPL-3.0-or-later
// Communication health: all-reduce bus bandwidth per collective against the run's median for collectives of
// that size, each rank's bandwidth against the other ranks', the share of step time spent waiting on
// communication that the backward pass did not hide (exposed communication), and how much of the all-reduce
// time was overlapped.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "ringmaster/v1/records.pb.h"

namespace ringmaster::diagnosis {

namespace v1 = ::ringmaster::v1;

struct CommunicationSummary {
  uint64_t ops = 0;
  double medianBusbwGbps = 0;
  double medianLatencyUs = 0;
  // Collectives judged (every rank's op of one step, bucket and size), and those whose bus bandwidth was
  // under half the median of collectives their size. A collective's bandwidth is that of the rank that
  // waited least in it: the others' ops also hold their wait for a peer that arrived late.
  uint64_t judgedOps = 0;
  uint64_t slowOps = 0;
  std::map<int, double> rankBusbwGbps;  // median per rank
  double exposedCommShare = 0;          // sum of comm wait / sum of step time (fraction)
  double overlapPct = 0;                // share of all-reduce time hidden behind compute (%)
  double opsPerStep = 0;                // all-reduce ops per rank and step; 0 without step samples
  double meanOpBytes = 0;
};

struct CommunicationConfig {
  double slowRankFraction = 0.6;  // a rank below this share of the ranks' median busbw is slow (fraction)
  double slowOpFraction = 0.5;    // an op below this share of its size class's median is slow (fraction)
  double exposedWarning = 0.30;   // exposed communication share worth a warning (fraction)
  size_t minOpsPerRank = 10;      // ops a rank needs before it is judged (count)
};

class CommunicationMonitor {
 public:
  explicit CommunicationMonitor(CommunicationConfig config = {});

  void setHost(int rank, const std::string& host);
  // The ranks whose ops make one collective; 0 or 1: each op is judged alone.
  void setRanks(int ranks);
  void add(const v1::StepSample& sample);
  void add(const v1::AllreduceOp& op);

  CommunicationSummary summary() const;
  std::vector<v1::Finding> findings() const;

 private:
  void keep(std::vector<double>& values, double value);
  // A collective's ops seen so far: the ranks, and the best bus bandwidth among them.
  struct Collective {
    std::vector<int> ranks;
    double bestBusbwGbps = 0;
  };
  using CollectiveKey = std::tuple<uint64_t, uint32_t, uint64_t>;  // step, bucket, bytes
  void judge(const CollectiveKey& key, const Collective& c);

  CommunicationConfig config_;
  std::map<int, std::string> hosts_;
  std::map<int, std::vector<double>> busbwByRank_;
  std::map<int, std::vector<double>> busbwBySize_;  // collectives' bandwidth by log2 of the payload size
  std::map<CollectiveKey, Collective> open_;        // collectives some ranks' ops have not reached yet
  std::vector<double> opBusbw_;                     // every op's own bus bandwidth
  int ranks_ = 0;
  uint64_t judged_ = 0;
  std::vector<double> latencies_;
  uint64_t ops_ = 0, stepSamples_ = 0;
  double commWaitNs_ = 0, stepNs_ = 0, opLatencyNs_ = 0, opBytes_ = 0;
};

}  // namespace ringmaster::diagnosis
