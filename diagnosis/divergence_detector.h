// SPDX-License-Identifier: GPL-3.0-or-later
// Divergence: a rank's loss stops being a number (NaN or infinite). Training goes on computing garbage, so
// the first such step on each rank is what the user needs, with the last loss that was still a number.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "diagnosis/finding.h"

namespace ringmaster::diagnosis {

class DivergenceDetector {
 public:
  explicit DivergenceDetector(int worldSize) : worldSize_(worldSize) {}

  void setHost(int rank, const std::string& host) { hosts_[rank] = host; }
  void add(const v1::StepSample& step);
  // One finding for the ranks that diverged at the same step ("on every rank" when all did), earliest first.
  std::vector<v1::Finding> findings() const;

 private:
  struct Rank {
    bool diverged = false;
    uint64_t firstStep = 0;  // first step whose loss was not a number
    double value = 0;        // that loss: NaN, +inf or -inf
    double lastFinite = 0;   // the loss before it
    bool sawFinite = false;
  };
  int worldSize_;
  std::map<int, Rank> ranks_;
  std::map<int, std::string> hosts_;
};

}  // namespace ringmaster::diagnosis
