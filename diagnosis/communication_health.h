// SPDX-License-Identifier: GPL-3.0-or-later
// Communication health: all-reduce bus bandwidth per op against the run's median for ops of that size, each
// rank's bandwidth against the other ranks', the share of step time spent waiting on communication that the
// backward pass did not hide (exposed communication), and how much of the all-reduce time was overlapped.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ringmaster/v1/records.pb.h"

namespace ringmaster::diagnosis {

namespace v1 = ::ringmaster::v1;

struct CommunicationSummary {
  uint64_t ops = 0;
  double medianBusbwGbps = 0;
  double medianLatencyUs = 0;
  uint64_t slowOps = 0;                 // busbw under half the median of ops of the same size
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
  void add(const v1::StepSample& sample);
  void add(const v1::AllreduceOp& op);

  CommunicationSummary summary() const;
  std::vector<v1::Finding> findings() const;

 private:
  void keep(std::vector<double>& values, double value);

  CommunicationConfig config_;
  std::map<int, std::string> hosts_;
  std::map<int, std::vector<double>> busbwByRank_;
  std::map<int, std::vector<double>> busbwBySize_;  // by log2 of the payload size
  std::vector<double> latencies_;
  uint64_t ops_ = 0, stepSamples_ = 0;
  double commWaitNs_ = 0, stepNs_ = 0, opLatencyNs_ = 0, opBytes_ = 0;
};

}  // namespace ringmaster::diagnosis
