// SPDX-License-Identifier: GPL-3.0-or-later
// Live progress of a running job from its records: step of total, samples/s, ETA and a compact per-rank
// table. The terminal's progress bar and the GUI's status line read the same snapshot.
#pragma once

#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "console/session/record_sink.h"
#include "ringmaster/v1/job.pb.h"

namespace ringmaster::console {

struct RankProgress {
  int rank = 0;
  std::string host;
  uint64_t step = 0;       // steps done
  double samplesPerS = 0;  // over the last few steps
  double loss = 0;
  double computeMs = 0;   // forward + backward of the last step
  double commWaitMs = 0;  // exposed communication wait of the last step
  double rssMb = 0;
  std::string state = "starting";  // starting, running, done, failed (+ how)
};

struct ProgressSnapshot {
  uint64_t step = 0;        // the slowest rank's
  uint64_t totalSteps = 0;  // 0: unknown
  double samplesPerS = 0;   // all ranks together
  double etaS = -1;         // negative: unknown
  double loss = 0;          // rank 0's last
  std::vector<RankProgress> ranks;
};

// Optimizer steps the job will run, as the worker counts them (DistributedSampler padding, batch,
// accumulation).
uint64_t expectedSteps(const v1::JobSpec& spec);

class LiveProgress : public RecordSink {
 public:
  explicit LiveProgress(const v1::JobSpec& spec);
  void onRecords(const std::string& jobId, const std::string& host,
                 const std::vector<v1::Record>& records) override;
  ProgressSnapshot snapshot() const;

 private:
  struct Rank {
    RankProgress progress;
    std::deque<std::pair<uint32_t, int64_t>> recent;  // (samples, total_ns) of the last steps
  };
  const uint64_t totalSteps_;
  const int worldSize_;
  mutable std::mutex mutex_;
  std::map<int, Rank> ranks_;
};

}  // namespace ringmaster::console
