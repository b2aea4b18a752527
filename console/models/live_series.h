// SPDX-License-Identifier: GPL-3.0-or-later
// The numbers a dashboard charts for one run, per rank and per step, built from the records as they stream
// in: throughput, step phases, all-reduce latency and bus bandwidth (per rank and per bucket), memory and
// loss. Each metric is a StepSeries (4 bytes a step), so 64 ranks x 100 000 steps x 11 metrics stay near 290
// MB.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "console/models/rank_spread.h"
#include "console/models/step_series.h"
#include "ringmaster/v1/records.pb.h"

namespace ringmaster::console {

namespace v1 = ::ringmaster::v1;

enum class RankMetric {
  Throughput,  // samples/s of this rank
  DataMs,      // waiting for the batch
  ForwardMs,
  BackwardMs,  // backward compute, before waiting on communication
  CommWaitMs,  // exposed communication wait
  OptimizerMs,
  RssMb,               // resident memory (MiB)
  AllreduceLatencyMs,  // mean all-reduce latency of the step
  AllreduceBusbwGbps,  // mean all-reduce bus bandwidth of the step (GB/s)
  ComputeMs,           // forward + backward: what a straggler shows in
  StepMs,              // the step's wall time, phases and what they do not cover
};
constexpr int kRankMetricCount = 11;

// The metrics a dashboard charts a line per rank of (or, with many ranks, their spread).
constexpr RankMetric kChartedMetrics[] = {RankMetric::Throughput, RankMetric::AllreduceLatencyMs,
                                          RankMetric::AllreduceBusbwGbps, RankMetric::RssMb};

// The step phases in the order they stack.
constexpr RankMetric kPhaseMetrics[] = {RankMetric::DataMs, RankMetric::ForwardMs, RankMetric::BackwardMs,
                                        RankMetric::CommWaitMs, RankMetric::OptimizerMs};

class LiveSeries {
 public:
  // Takes what charts show from one record (steps, all-reduce ops, memory); other records are ignored.
  void ingest(const v1::Record& record);
  void ingest(const v1::StepSample& sample);
  void ingest(const v1::AllreduceOp& op);
  void ingest(const v1::MemorySample& sample);

  // One past the highest rank seen.
  int rankCount() const { return static_cast<int>(ranks_.size()); }
  // One past the highest step seen by any metric.
  uint64_t endStep() const { return endStep_; }

  StepSeries& rank(int rank, RankMetric metric);
  const StepSeries& rank(int rank, RankMetric metric) const;
  // Sum of the ranks' throughput per step (samples/s).
  StepSeries& totalThroughput() { return totalThroughput_; }
  const StepSeries& totalThroughput() const { return totalThroughput_; }
  // Mean loss over the ranks that reported the step.
  StepSeries& loss() { return loss_; }

  // Per bucket (DDP bucket or Horovod fusion buffer index): mean over ranks of latency (ms) and busbw (GB/s).
  std::vector<uint32_t> buckets() const;
  StepSeries& bucketLatency(uint32_t bucket) { return buckets_[bucket].latencyMs; }
  StepSeries& bucketBusbw(uint32_t bucket) { return buckets_[bucket].busbwGbps; }

  // Physical memory of the host the rank runs on (bytes), 0 when unknown.
  uint64_t hostMemoryBytes(int rank) const;

  // Beyond kRanksDrawnOneByOne ranks the charted metrics' spreads are kept up to date as steps arrive, so
  // that they are computed from every rank's whole steps. How `metric` spreads across the ranks step by step,
  // brought up to date on the way.
  RankSpread& spread(RankMetric metric);

  // Mean milliseconds of each phase (kPhaseMetrics order) of a rank over steps [from, to).
  std::vector<double> phaseMeans(int rank, uint64_t from, uint64_t to) const;

  // Compute time (forward + backward, ms) per rank and pixel column of `grid` (x = step) in `cells`: the
  // highest value of the column's steps, NaN where a rank has no step there. Row-major:
  // [rank * grid.columns + column]. Served from each rank's ComputeMs decimation (the heatmap's alone): only
  // the columns from the first one each rank's steps changed in are filled again, unless `whole` (a new grid
  // or rank count: `cells` is sized and filled anew). Returns the lowest column filled again (grid.columns
  // when none).
  int64_t updateHeatmap(const PixelGrid& grid, std::vector<float>& cells, bool whole);

  size_t bytesHeld() const;

 private:
  struct Rank {
    StepSeries metrics[kRankMetricCount];
    uint64_t hostMemoryBytes = 0;
    // The all-reduce ops of the step in progress, averaged as they arrive.
    uint64_t opStep = UINT64_MAX;
    double opLatencySum = 0;
    double opBusbwSum = 0;
    int opLatencyCount = 0;  // ops of opStep the trace or probe timed
    int opBusbwCount = 0;    // ... and whose size is known, so their bandwidth is
  };
  struct Bucket {
    StepSeries latencyMs;
    StepSeries busbwGbps;
    StepSeries ranksSeen;  // how many ranks' ops are in the means, per step
  };

  Rank& rankEntry(int rank);
  void seeStep(uint64_t step) { endStep_ = std::max(endStep_, step + 1); }
  // With many ranks, updates the charted metrics' spreads well before the ranks' steps are summarised.
  void keepSpreadsCurrent();

  std::vector<Rank> ranks_;
  StepSeries totalThroughput_;
  StepSeries loss_;
  StepSeries lossRanks_;
  std::map<uint32_t, Bucket> buckets_;
  uint64_t endStep_ = 0;
  RankSpread spreads_[kRankMetricCount];
  uint64_t spreadsAt_ = 0;  // endStep_ when keepSpreadsCurrent() last updated the spreads
};

}  // namespace ringmaster::console
