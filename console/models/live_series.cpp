// SPDX-License-Identifier: GPL-3.0-or-later
#include "console/models/live_series.h"

#include <algorithm>
#include <cassert>
#include <cmath>

#include "common/record_checks.h"

namespace ringmaster::console {
namespace {

constexpr double kNsPerMs = 1e6;
constexpr double kBytesPerMiB = 1024.0 * 1024.0;
// A rank number beyond this is a corrupt record, not a job (validateJobSpec allows 4096 ranks).
constexpr int kMaxRanks = 4096;

// A record no job makes (a rank beyond any job, a step beyond kMaxStep, which a series would allocate up to):
// passed over. Stores written before imports refused such steps may hold them.
bool impossible(int rank, uint64_t step) {
  return rank < 0 || rank >= kMaxRanks || step > kMaxStep;
}

float ms(int64_t ns) {
  return static_cast<float>(static_cast<double>(ns) / kNsPerMs);
}

// Folds `value` into the running mean of `step`, `n` being the count including this value.
void foldMean(StepSeries& mean, uint64_t step, double value, double n) {
  const float old = mean.at(step);
  mean.set(step, static_cast<float>(std::isnan(old) ? value : old + (value - old) / n));
}

}  // namespace

LiveSeries::Rank& LiveSeries::rankEntry(int rank) {
  if (rank >= static_cast<int>(ranks_.size())) ranks_.resize(static_cast<size_t>(rank) + 1);
  return ranks_[static_cast<size_t>(rank)];
}

StepSeries& LiveSeries::rank(int rank, RankMetric metric) {
  assert(rank >= 0 && rank < rankCount());
  return ranks_[static_cast<size_t>(rank)].metrics[static_cast<int>(metric)];
}

const StepSeries& LiveSeries::rank(int rank, RankMetric metric) const {
  assert(rank >= 0 && rank < rankCount());
  return ranks_[static_cast<size_t>(rank)].metrics[static_cast<int>(metric)];
}

void LiveSeries::ingest(const v1::Record& record) {
  switch (record.body_case()) {
    case v1::Record::kStep:
      ingest(record.step());
      break;
    case v1::Record::kAllreduce:
      ingest(record.allreduce());
      break;
    case v1::Record::kMemory:
      ingest(record.memory());
      break;
    default:
      break;
  }
}

void LiveSeries::ingest(const v1::StepSample& s) {
  if (impossible(s.rank(), s.step())) return;
  Rank& r = rankEntry(s.rank());
  const uint64_t step = s.step();
  auto set = [&](RankMetric m, float v) { r.metrics[static_cast<int>(m)].set(step, v); };
  set(RankMetric::DataMs, ms(s.data_ns()));
  set(RankMetric::ForwardMs, ms(s.forward_ns()));
  set(RankMetric::BackwardMs, ms(s.backward_ns()));
  set(RankMetric::ComputeMs, ms(s.forward_ns() + s.backward_ns()));
  set(RankMetric::CommWaitMs, ms(s.comm_wait_ns()));
  set(RankMetric::OptimizerMs, ms(s.optimizer_ns()));
  if (s.total_ns() > 0) set(RankMetric::StepMs, ms(s.total_ns()));
  // A step with no sample count (an imported trace) has no throughput to show: not measured, not 0.
  if (s.total_ns() > 0 && s.samples() > 0) {
    const float throughput = static_cast<float>(s.samples() * 1e9 / static_cast<double>(s.total_ns()));
    StepSeries& own = r.metrics[static_cast<int>(RankMetric::Throughput)];
    const float before = own.at(step);
    own.set(step, throughput);
    // A step reported again replaces its share of the total instead of adding twice.
    totalThroughput_.add(step, std::isnan(before) ? throughput : throughput - before);
  }
  if (std::isfinite(s.loss())) {
    const float seen = lossRanks_.at(step);
    const double n = std::isnan(seen) ? 1.0 : seen + 1.0;
    foldMean(loss_, step, s.loss(), n);
    lossRanks_.set(step, static_cast<float>(n));
  }
  seeStep(step);
  keepSpreadsCurrent();
}

void LiveSeries::ingest(const v1::AllreduceOp& op) {
  if (impossible(op.rank(), op.step())) return;
  Rank& r = rankEntry(op.rank());
  seeStep(op.step());
  // An op with no time (an imported trace that does not time it) or no size is not measured: no point, not 0.
  const bool timed = op.latency_us() > 0;
  const bool sized = timed && op.bytes() > 0;
  if (!timed) return;
  const double latencyMs = op.latency_us() / 1000.0;
  if (r.opStep != op.step()) {
    r.opStep = op.step();
    r.opLatencySum = r.opBusbwSum = 0;
    r.opLatencyCount = r.opBusbwCount = 0;
  }
  r.opLatencySum += latencyMs;
  ++r.opLatencyCount;
  r.metrics[static_cast<int>(RankMetric::AllreduceLatencyMs)].set(
      op.step(), static_cast<float>(r.opLatencySum / r.opLatencyCount));
  if (sized) {
    r.opBusbwSum += op.busbw_gbps();
    ++r.opBusbwCount;
    r.metrics[static_cast<int>(RankMetric::AllreduceBusbwGbps)].set(
        op.step(), static_cast<float>(r.opBusbwSum / r.opBusbwCount));
  }
  Bucket& b = buckets_[op.bucket()];
  const float seen = b.ranksSeen.at(op.step());
  const double n = std::isnan(seen) ? 1.0 : seen + 1.0;
  foldMean(b.latencyMs, op.step(), latencyMs, n);
  if (sized) foldMean(b.busbwGbps, op.step(), op.busbw_gbps(), n);
  b.ranksSeen.set(op.step(), static_cast<float>(n));
  keepSpreadsCurrent();
}

void LiveSeries::ingest(const v1::MemorySample& m) {
  if (impossible(m.rank(), m.step())) return;
  Rank& r = rankEntry(m.rank());
  r.metrics[static_cast<int>(RankMetric::RssMb)].set(
      m.step(), static_cast<float>(static_cast<double>(m.rss_bytes()) / kBytesPerMiB));
  if (m.host_total_bytes() > 0) r.hostMemoryBytes = m.host_total_bytes();
  seeStep(m.step());
  keepSpreadsCurrent();
}

RankSpread& LiveSeries::spread(RankMetric metric) {
  std::vector<StepSeries*> ranks;
  ranks.reserve(ranks_.size());
  for (Rank& r : ranks_) ranks.push_back(&r.metrics[static_cast<int>(metric)]);
  RankSpread& spread = spreads_[static_cast<int>(metric)];
  spread.update(ranks);
  return spread;
}

void LiveSeries::keepSpreadsCurrent() {
  // A lag of a chunk leaves three more before any rank's step is summarised.
  if (rankCount() <= kRanksDrawnOneByOne || endStep_ < spreadsAt_ + StepSeries::kChunkSize) return;
  for (RankMetric m : kChartedMetrics) spread(m);
  spreadsAt_ = endStep_;
}

std::vector<uint32_t> LiveSeries::buckets() const {
  std::vector<uint32_t> out;
  for (const auto& [index, bucket] : buckets_) out.push_back(index);
  return out;
}

uint64_t LiveSeries::hostMemoryBytes(int rank) const {
  if (rank < 0 || rank >= rankCount()) return 0;
  return ranks_[static_cast<size_t>(rank)].hostMemoryBytes;
}

std::vector<double> LiveSeries::phaseMeans(int rank, uint64_t from, uint64_t to) const {
  std::vector<double> means;
  for (RankMetric m : kPhaseMetrics) means.push_back(this->rank(rank, m).mean(from, to));
  return means;
}

int64_t LiveSeries::updateHeatmap(const PixelGrid& grid, std::vector<float>& cells, bool whole) {
  const int64_t columns = grid.valid() ? grid.columns : 0;
  const size_t size = ranks_.size() * static_cast<size_t>(columns);
  if (whole || cells.size() != size) {
    cells.assign(size, std::numeric_limits<float>::quiet_NaN());
    whole = true;
  }
  int64_t lowest = columns;
  if (columns == 0) return lowest;
  const double width = (grid.x1 - grid.x0) / static_cast<double>(columns);
  for (size_t r = 0; r < ranks_.size(); ++r) {
    StepSeries& compute = ranks_[r].metrics[static_cast<int>(RankMetric::ComputeMs)];
    int64_t changed = 0;
    const QList<QPointF>& points = compute.decimated(grid, &changed);
    const int64_t from = whole ? 0 : std::max<int64_t>(changed, 0);
    if (from >= columns) continue;
    lowest = std::min(lowest, from);
    float* row = cells.data() + r * static_cast<size_t>(columns);
    std::fill(row + from, row + columns, std::numeric_limits<float>::quiet_NaN());
    // The decimated points hold each column's highest value.
    for (qsizetype i = compute.columnPointsBegin(from); i < points.size(); ++i) {
      const int64_t c = grid.columnOf(points[i].x());
      if (c < from) continue;
      if (c >= columns) break;
      float& cell = row[c];
      if (!(static_cast<float>(points[i].y()) <= cell)) cell = static_cast<float>(points[i].y());
    }
    // Zoomed in beyond a step per column, a step spans several columns: each shows the step under its middle.
    if (width >= 1) continue;
    for (int64_t c = from; c < columns; ++c) {
      const double middle = grid.x0 + (static_cast<double>(c) + 0.5) * width;
      if (std::isnan(row[c]) && middle >= 0) row[c] = compute.at(static_cast<uint64_t>(middle));
    }
  }
  return lowest;
}

size_t LiveSeries::bytesHeld() const {
  size_t bytes = sizeof(*this) + totalThroughput_.bytesHeld() + loss_.bytesHeld() + lossRanks_.bytesHeld();
  for (const Rank& r : ranks_) {
    for (const StepSeries& s : r.metrics) bytes += s.bytesHeld();
  }
  for (const auto& [index, b] : buckets_) {
    bytes += b.latencyMs.bytesHeld() + b.busbwGbps.bytesHeld() + b.ranksSeen.bytesHeld();
  }
  for (const RankSpread& s : spreads_) bytes += s.bytesHeld();
  return bytes;
}

}  // namespace ringmaster::console
