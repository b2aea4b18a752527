// SPDX-License-Identifier: GPL-3.0-or-later
#include "worker/probe.h"

#include <zlib.h>

#include "common/allreduce_bandwidth.h"

namespace ringmaster::worker {

Probe::Probe(int rank, int worldSize, size_t capacity)
    : rank_(rank), worldSize_(worldSize), buffer_(capacity) {}

void Probe::record(v1::Record record) {
  buffer_.push(std::move(record));
}

namespace {
constexpr size_t kKeptCalls = 32;  // calls of one step that travel (as the Python package keeps)
}  // namespace

void Probe::step(v1::StepSample sample) {
  sample.set_rank(rank_);
  lastStep_.store(static_cast<int64_t>(sample.step()), std::memory_order_relaxed);
  std::vector<v1::Collective> calls;
  bool changed = false;
  {
    std::lock_guard lock(collectivesMutex_);
    sample.set_collectives(collectivesCount_);
    sample.set_collectives_crc(collectivesCrc_);
    const std::pair pattern{collectivesCount_, collectivesCrc_};
    changed = collectivesCount_ > 0 && previousPattern_ != pattern;
    previousPattern_ = pattern;
    calls.swap(calls_);
    collectivesCount_ = 0;
    collectivesCrc_ = 0;
    collectivesStep_ = sample.step() + 1;
  }
  if (changed) {
    v1::Record c;
    auto* out = c.mutable_collective_calls();
    out->set_rank(rank_);
    out->set_step(sample.step());
    out->set_count(sample.collectives());
    out->set_crc(sample.collectives_crc());
    for (auto& call : calls) *out->add_calls() = std::move(call);
    record(std::move(c));
  }
  v1::Record r;
  *r.mutable_step() = std::move(sample);
  record(std::move(r));
}

void Probe::collective(const char* op, const char* reduction, const char* dtype, uint64_t elements,
                       const std::string& site) {
  // The same key and CRC as the Python package's (python/ringmaster/_collectives.py).
  const std::string key = std::string(op) + "|" + reduction + "|" + dtype + "|" + std::to_string(elements);
  std::lock_guard lock(collectivesMutex_);
  collectivesCrc_ = static_cast<uint32_t>(
      ::crc32(collectivesCrc_, reinterpret_cast<const Bytef*>(key.data()), static_cast<uInt>(key.size())));
  if (calls_.size() < kKeptCalls) {
    v1::Collective& c = calls_.emplace_back();
    c.set_index(collectivesCount_);
    c.set_op(op);
    c.set_reduction(reduction);
    c.set_dtype(dtype);
    c.set_elements(elements);
    c.set_group("world");
    c.set_site(site);
  }
  ++collectivesCount_;
}

void Probe::fillCollectives(v1::Heartbeat& heartbeat) const {
  std::lock_guard lock(collectivesMutex_);
  heartbeat.set_collectives_step(collectivesStep_);
  heartbeat.set_step_collectives(collectivesCount_);
  for (const auto& c : calls_) *heartbeat.add_collectives() = c;
}

void Probe::replicas(v1::ReplicaHashes hashes) {
  hashes.set_rank(rank_);
  v1::Record r;
  *r.mutable_replicas() = std::move(hashes);
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
