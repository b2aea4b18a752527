// SPDX-License-Identifier: GPL-3.0-or-later
#include "console/models/run_data.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "console/session/launcher.h"
#include "diagnosis/run_diagnosis.h"

namespace ringmaster::console {
namespace {

// Ranks' recent throughput and step time are averaged over this many steps.
constexpr uint64_t kRecentSteps = 20;

}  // namespace

void RunData::ingest(const v1::Record& record) {
  switch (record.body_case()) {
    case v1::Record::kStep:
    case v1::Record::kAllreduce:
    case v1::Record::kMemory:
      series.ingest(record);
      break;
    case v1::Record::kTimeline:
      timeline.add(record.timeline());
      break;
    case v1::Record::kLog:
      logs.push_back(record.log());
      break;
    case v1::Record::kRankState:
      rankStates[record.rank_state().rank()] = record.rank_state();
      break;
    case v1::Record::kSummary:
      summaries[record.summary().rank()] = record.summary();
      break;
    case v1::Record::kScalar:
      accuracy.add(record.scalar());
      break;
    default:
      break;
  }
}

void RunData::ingest(const v1::RecordBatch& batch) {
  for (const v1::Record& record : batch.records()) ingest(record);
}

namespace {

// Samples over time across steps [from, to): each step's throughput weighted by its time, which is the
// report's samples / step time; NaN when no step has both.
double samplesPerSecond(const StepSeries& throughput, const StepSeries& stepMs, uint64_t from, uint64_t to) {
  double samples = 0, ms = 0;
  for (uint64_t step = from; step < to; ++step) {
    const float perS = throughput.at(step), took = stepMs.at(step);
    if (std::isnan(perS) || !(took > 0)) continue;
    samples += double(perS) * took;
    ms += took;
  }
  return ms > 0 ? samples / ms : std::numeric_limits<double>::quiet_NaN();
}

}  // namespace

void LoggedAccuracy::add(const v1::Scalar& scalar) {
  if (scalar.name() != "test_accuracy" && scalar.name() != "accuracy") return;
  if (!std::isfinite(scalar.value())) return;
  Sum& sum = byStep_[scalar.step()];
  sum.sum += scalar.value();
  sum.ranks += 1;
  ++values_;
}

std::vector<std::pair<uint64_t, double>> LoggedAccuracy::percent() const {
  bool fractions = true;
  for (const auto& [step, sum] : byStep_) fractions = fractions && sum.sum <= sum.ranks;
  std::vector<std::pair<uint64_t, double>> out;
  out.reserve(byStep_.size());
  for (const auto& [step, sum] : byStep_)
    out.emplace_back(step, sum.sum / sum.ranks * (fractions ? 100.0 : 1.0));
  return out;
}

std::vector<RankRow> RunData::rankRows(RankWindow window) const {
  std::map<int, RankRow> rows;
  for (int r = 0; r < series.rankCount(); ++r) rows[r].rank = r;
  for (const auto& [rank, state] : rankStates) {
    RankRow& row = rows[rank];
    row.rank = rank;
    row.host = state.host();
    row.state = state.state();
    row.exitCode = state.exit_code();
    row.signal = state.signal();
    row.stoppedByAgent = stoppedByAgent(state);
    row.stopWhy = stopReason(state);
  }
  for (auto& [rank, row] : rows) {
    if (rank < 0 || rank >= series.rankCount()) continue;
    // Every step sample sets the data phase; throughput needs the step's sample count, which an imported
    // trace does not have.
    const StepSeries& stepsSeen = series.rank(rank, RankMetric::DataMs);
    row.steps = static_cast<uint64_t>(stepsSeen.count());
    const uint64_t end = stepsSeen.endStep();
    const uint64_t from = window == RankWindow::WholeRun || end <= kRecentSteps ? 0 : end - kRecentSteps;
    row.samplesPerS = samplesPerSecond(series.rank(rank, RankMetric::Throughput),
                                       series.rank(rank, RankMetric::StepMs), from, end);
    // The step's wall time where the rank reports it; the phases' sum otherwise.
    double stepMs = 0;
    for (RankMetric m : kPhaseMetrics) {
      const double v = series.rank(rank, m).mean(from, end);
      if (!std::isnan(v)) stepMs += v;
    }
    const double wall = series.rank(rank, RankMetric::StepMs).mean(from, end);
    row.stepMs = std::isnan(wall) ? stepMs : wall;
    const double compute = series.rank(rank, RankMetric::ComputeMs).mean(from, end);
    row.computeMs = std::isnan(compute) ? 0 : compute;
    const double wait = series.rank(rank, RankMetric::CommWaitMs).mean(from, end);
    row.waitMs = std::isnan(wait) ? 0 : wait;
    const StepSeries& rss = series.rank(rank, RankMetric::RssMb);
    const float latest = rss.endStep() > 0 ? rss.at(rss.endStep() - 1) : NAN;
    row.rssMb = latest;
    row.imported = info && info->source.rfind("import:", 0) == 0;
  }
  std::vector<RankRow> out;
  for (auto& [rank, row] : rows) out.push_back(std::move(row));
  return out;
}

TimelineModel loadTimeline(const RunStore& store, int64_t runId, const TimelineExtent& extent, int64_t fromNs,
                           int64_t toNs) {
  TimelineModel model;
  if (fromNs <= extent.beginNs && toNs > extent.endNs) {
    store.forEachTimelineEvent(runId, [&](const v1::TimelineEvent& e) { model.add(e); });
    return model;
  }
  for (const TimelineExtent::Lane& lane : extent.lanes)
    model.addLane(lane.rank, lane.name, lane.firstStartNs);
  store.forEachTimelineEvent(runId, fromNs, toNs, [&](const v1::TimelineEvent& e) { model.add(e); });
  model.setWindow({fromNs, toNs, extent.beginNs, extent.endNs, extent.events});
  return model;
}

RunData loadRun(const RunStore& store, int64_t runId, int64_t timelineEventsAtOnce) {
  RunData data;
  data.info = store.run(runId);
  if (!data.info) throw StoreError("run " + std::to_string(runId) + " is not in " + store.path());
  // The ranks' records go in together, a stretch of steps at a time, as a live run's arrive: the spread
  // across many ranks is computed from every rank's whole steps before any rank's are summarised.
  const std::vector<RankSeries> ranks = store.rankSeries(runId);
  struct Cursor {
    size_t steps = 0, ops = 0, memory = 0;
  };
  std::vector<Cursor> at(ranks.size());
  constexpr uint64_t kStretch = 1024;
  for (;;) {
    // The stretch holding the lowest step not taken yet (stretches without any are skipped).
    bool left = false;
    uint64_t next = std::numeric_limits<uint64_t>::max();
    auto see = [&](const auto& records, size_t i) {
      if (i == records.size()) return;
      left = true;
      next = std::min<uint64_t>(next, records[i].step());
    };
    for (size_t r = 0; r < ranks.size(); ++r) {
      see(ranks[r].steps, at[r].steps);
      see(ranks[r].allreduce, at[r].ops);
      see(ranks[r].memory, at[r].memory);
    }
    if (!left) break;
    const uint64_t last = next / kStretch * kStretch + (kStretch - 1);  // no overflow: kStretch divides 2^64
    auto take = [&](const auto& records, size_t& i) {
      for (; i < records.size() && records[i].step() <= last; ++i) data.series.ingest(records[i]);
    };
    for (size_t r = 0; r < ranks.size(); ++r) {
      take(ranks[r].steps, at[r].steps);
      take(ranks[r].allreduce, at[r].ops);
      take(ranks[r].memory, at[r].memory);
    }
  }
  for (const RankSeries& rank : ranks) {
    for (const auto& s : rank.scalars) data.accuracy.add(s);
  }
  data.timelineExtent = store.timelineExtent(runId);
  const TimelineExtent& extent = data.timelineExtent;
  if (extent.events <= timelineEventsAtOnce) {
    store.forEachTimelineEvent(runId, [&](const v1::TimelineEvent& e) { data.timeline.add(e); });
  } else {
    // The beginning: as long a time as holds about timelineEventsAtOnce events where they come evenly.
    const double share = double(timelineEventsAtOnce) / double(extent.events);
    const auto span = static_cast<int64_t>(share * double(extent.endNs - extent.beginNs)) + 1;
    data.timeline = loadTimeline(store, runId, extent, extent.beginNs, extent.beginNs + span);
  }
  data.logs = store.logs(runId);
  data.findings = diagnosis::storedFindings(store, runId);
  data.hosts = store.hosts(runId);
  for (const RankInfo& r : store.ranks(runId)) {
    v1::RankState state;
    state.set_rank(r.rank);
    state.set_host(r.host);
    state.set_pid(r.pid);
    state.set_state(r.state);
    state.set_exit_code(r.exitCode);
    state.set_signal(r.signal);
    state.set_message(r.message);
    data.rankStates[r.rank] = state;
  }
  return data;
}

}  // namespace ringmaster::console
