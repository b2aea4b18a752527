// SPDX-License-Identifier: GPL-3.0-or-later
// What a rank measures about itself. The training loop and the engines call these; records land in a bounded
// buffer that the telemetry sender drains (to the agent, and to the --timeline file).
#pragma once

#include <atomic>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/clock.h"
#include "worker/record_buffer.h"

namespace ringmaster::worker {

class Probe {
 public:
  Probe(int rank, int worldSize, size_t capacity = 1 << 16);

  int rank() const { return rank_; }
  int worldSize() const { return worldSize_; }
  JobClock& clock() { return clock_; }
  // Nanoseconds on the job clock.
  int64_t now() const { return clock_.now(); }

  void step(v1::StepSample sample);
  // Index of the last step recorded, -1 before the first (for heartbeats).
  int64_t lastStep() const { return lastStep_.load(std::memory_order_relaxed); }
  // Fills latency, algbw and busbw (nccl-tests' definitions, GB = 1e9 bytes) from bytes, start and end.
  void allreduce(v1::AllreduceOp op);
  void memory(v1::MemorySample sample);
  // Timeline events are recorded only while the timeline is on (cheap check first).
  bool timelineOn() const { return timelineOn_.load(std::memory_order_relaxed); }
  void setTimelineOn(bool on) { timelineOn_.store(on, std::memory_order_relaxed); }
  void timeline(const std::string& lane, const std::string& name, int64_t startNs, int64_t endNs,
                uint64_t step, std::map<std::string, std::string> args = {});
  void stall(v1::StallReport report);
  void summary(v1::RankSummary summary);
  void replicas(v1::ReplicaHashes hashes);
  // A collective on the default group joins the step's sequence (records.proto: StepSample.collectives):
  // step() puts the count and CRC on the step, and sends the calls when they are not the step before's.
  void collective(const char* op, const char* reduction, const char* dtype, uint64_t elements,
                  const std::string& site);
  // The step in progress's calls so far, for a heartbeat.
  void fillCollectives(v1::Heartbeat& heartbeat) const;
  void record(v1::Record record);

  RecordBuffer& buffer() { return buffer_; }

 private:
  const int rank_;
  const int worldSize_;
  JobClock clock_;
  std::atomic<bool> timelineOn_{false};
  std::atomic<int64_t> lastStep_{-1};
  RecordBuffer buffer_;
  // The collectives of the step in progress (any thread may call one: the Horovod engine's background loop).
  mutable std::mutex collectivesMutex_;
  uint64_t collectivesStep_ = 0;
  uint32_t collectivesCount_ = 0;
  uint32_t collectivesCrc_ = 0;
  std::vector<v1::Collective> calls_;
  std::optional<std::pair<uint32_t, uint32_t>> previousPattern_;
};

}  // namespace ringmaster::worker
