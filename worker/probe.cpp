// SPDX-License-Identifier: GPL-3.0-or-later
#include "worker/probe.h"

#include "common/allreduce_bandwidth.h"

namespace ringmaster::worker {

Probe::Probe(int rank, int worldSize, size_t capacity)
    : rank_(rank), worldSize_(worldSize), buffer_(capacity) {}

void Probe::record(v1::Record record) {
  buffer_.push(std::move(record));
}

void Probe::step(v1::StepSample sample) {
  sample.set_rank(rank_);
  lastStep_.store(static_cast<int64_t>(sample.step()), std::memory_order_relaxed);
  v1::Record r;
  *r.mutable_step() = std::move(sample);
  record(std::move(r));
}

void Probe::allreduce(v1::AllreduceOp op) {
  op.set_rank(rank_);
  setLatencyAndBandwidth(op, worldSize_);
  v1::Record r;
  *r.mutable_allreduce() = std::move(op);
  record(std::move(r));
}

void Probe::memory(v1::MemorySample sample) {
  sample.set_rank(rank_);
  v1::Record r;
  *r.mutable_memory() = std::move(sample);
  record(std::move(r));
}

void Probe::timeline(const std::string& lane, const std::string& name, int64_t startNs, int64_t endNs,
                     uint64_t step, std::map<std::string, std::string> args) {
  if (!timelineOn()) return;
  v1::Record r;
  auto* e = r.mutable_timeline();
  e->set_rank(rank_);
  e->set_lane(lane);
  e->set_name(name);
  e->set_start_ns(startNs);
  e->set_end_ns(endNs);
  e->set_step(step);
  for (auto& [k, v] : args) (*e->mutable_args())[k] = std::move(v);
  record(std::move(r));
}

void Probe::stall(v1::StallReport report) {
  report.set_reporting_rank(rank_);
  v1::Record r;
  *r.mutable_stall() = std::move(report);
  record(std::move(r));
}

void Probe::summary(v1::RankSummary summary) {
  summary.set_rank(rank_);
  v1::Record r;
  *r.mutable_summary() = std::move(summary);
  record(std::move(r));
}

}  // namespace ringmaster::worker
