// SPDX-License-Identifier: GPL-3.0-or-later
// RunStore's readers of stored runs: the runs, their ranks, hosts and measurements, logs, stall reports,
// findings and timelines.
#include <algorithm>
#include <charconv>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "history/run_store.h"
#include "history/run_store_impl.h"
#include "history/stored_text.h"
#include "history/timeline_chunk.h"

namespace ringmaster {

namespace {

constexpr const char* kRunColumns =
    "SELECT id, name, status, source, engine, backend, world_size, started_unix_ns, ended_unix_ns, spec, "
    "environment, notes, (SELECT group_concat(tag, char(31)) FROM (SELECT tag FROM run_tags t "
    "WHERE t.run_id = runs.id ORDER BY tag)), (SELECT group_concat(kind) FROM (SELECT DISTINCT kind FROM "
    "findings f WHERE f.run_id = runs.id AND f.severity > 0 ORDER BY kind)) FROM runs";

}  // namespace

RunInfo RunStore::Impl::readRun(Statement& q) const {
  RunInfo info;
  info.id = q.int64(0);
  info.name = q.text(1);
  info.status = orphanedRuns.count(info.id) ? "interrupted" : q.text(2);
  info.source = q.text(3);
  info.engine = q.text(4);
  info.backend = q.text(5);
  info.worldSize = q.integer(6);
  info.startedUnixNs = q.int64(7);
  info.endedUnixNs = q.int64(8);
  info.spec.ParseFromString(q.blob(9));
  info.environment = decodeStringMap(q.text(10));
  info.notes = q.text(11);
  std::string_view tags = q.text(12);
  // Tags are joined with a unit separator, which no tag contains (addTag refuses it).
  while (!tags.empty()) {
    size_t cut = tags.find('\x1f');
    info.tags.emplace_back(tags.substr(0, cut));
    if (cut == std::string_view::npos) break;
    tags.remove_prefix(cut + 1);
  }
  std::string_view kinds = q.text(13);
  while (!kinds.empty()) {
    const size_t cut = kinds.find(',');
    int kind = 0;
    const std::string_view one = kinds.substr(0, cut);
    if (std::from_chars(one.data(), one.data() + one.size(), kind).ec == std::errc())
      info.findingKinds.push_back(kind);
    if (cut == std::string_view::npos) break;
    kinds.remove_prefix(cut + 1);
  }
  return info;
}

void RunStore::Impl::damagedChunk(int64_t runId, int rank, std::string_view lane,
                                  const TimelineChunkError& error) const {
  throw StoreError("run store " + path + ": a timeline chunk of run " + std::to_string(runId) + " (rank " +
                   std::to_string(rank) + ", lane '" + std::string(lane) + "') is damaged: " + error.what() +
                   "; the run's other records can still be read");
}

void RunStore::Impl::damagedStepChunk(int64_t runId, int rank, const ChunkError& error) const {
  throw StoreError("run store " + path + ": a chunk of steps of run " + std::to_string(runId) + " (rank " +
                   std::to_string(rank) + ") is damaged: " + error.what() +
                   "; the run's other records can still be read");
}

int64_t RunStore::dataVersion() const {
  auto q = impl_->prepare("PRAGMA data_version");
  return q->step() ? q->int64(0) : 0;
}

std::vector<RunInfo> RunStore::runs() const {
  auto q = impl_->prepare(std::string(kRunColumns) + " ORDER BY id DESC");
  std::vector<RunInfo> out;
  while (q->step()) out.push_back(impl_->readRun(*q));
  return out;
}

std::optional<RunInfo> RunStore::run(int64_t runId) const {
  auto q = impl_->prepare(std::string(kRunColumns) + " WHERE id = ?");
  q->bind(1, runId);
  if (!q->step()) return std::nullopt;
  return impl_->readRun(*q);
}

int64_t RunStore::resolveRun(const std::string& text) const {
  if (text == "last" || text == "latest") {
    auto q = impl_->prepare("SELECT max(id) FROM runs");
    if (q->step() && !q->isNull(0)) return q->int64(0);
    throw InputError("run store " + impl_->path + " holds no runs yet");
  }
  int64_t id = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), id);
  if (ec == std::errc() && end == text.data() + text.size()) {
    if (run(id)) return id;
  } else {
    auto q = impl_->prepare("SELECT max(id) FROM runs WHERE name = ?");
    q->bind(1, text);
    if (q->step() && !q->isNull(0)) return q->int64(0);
  }
  throw InputError("no run '" + text + "' in " + impl_->path + "; `ringmaster runs` lists the runs it holds");
}

void RunStore::Impl::storeOpenStepsForReading() {
  if (!insertOp || changedSteps.empty()) return;  // read-only, or nothing its readers would miss
  try {
    flushOpenChunks();
  } catch (const StoreError&) {
    // Another process holds the store: what is stored is read.
  }
}

RunCounts RunStore::counts(int64_t runId) const {
  impl_->storeOpenStepsForReading();
  RunCounts c;
  auto count = [&](const char* table) {
    auto q = impl_->prepare(std::string("SELECT count(*) FROM ") + table + " WHERE run_id = ?");
    q->bind(1, runId);
    q->step();
    return q->int64(0);
  };
  c.steps = count("steps");
  {
    auto q = impl_->prepare("SELECT coalesce(sum(steps), 0) FROM step_chunks WHERE run_id = ?");
    q->bind(1, runId);
    q->step();
    c.steps += q->int64(0);
  }
  c.allreduceOps = count("allreduce_ops");
  c.memorySamples = count("memory_samples");
  c.timelineEvents = count("timeline_events");
  {
    auto q = impl_->prepare("SELECT coalesce(sum(events), 0) FROM timeline_chunks WHERE run_id = ?");
    q->bind(1, runId);
    q->step();
    c.timelineEvents += q->int64(0);
  }
  c.logLines = count("logs");
  c.stallReports = count("stall_reports");
  c.findings = count("findings");
  return c;
}

std::vector<RankInfo> RunStore::ranks(int64_t runId) const {
  auto q = impl_->prepare(
      "SELECT rank, host, pid, state, exit_code, signal, message, final_loss, test_accuracy, param_checksum, "
      "steps, "
      "samples_per_s, records_sent, records_dropped FROM ranks WHERE run_id = ? ORDER BY rank");
  q->bind(1, runId);
  std::vector<RankInfo> out;
  while (q->step()) {
    RankInfo r;
    r.rank = q->integer(0);
    r.host = q->text(1);
    r.pid = q->integer(2);
    r.state = static_cast<v1::RankState::State>(q->integer(3));
    r.exitCode = q->integer(4);
    r.signal = q->integer(5);
    r.message = q->text(6);
    if (!q->isNull(7)) r.finalLoss = q->real(7);
    if (!q->isNull(8)) r.testAccuracy = q->real(8);
    r.paramChecksum = q->text(9);
    r.steps = uint64_t(q->int64(10));
    r.samplesPerS = q->real(11);
    r.recordsSent = uint64_t(q->int64(12));
    r.recordsDropped = uint64_t(q->int64(13));
    out.push_back(std::move(r));
  }
  return out;
}

std::map<std::string, std::map<std::string, std::string>> RunStore::hosts(int64_t runId) const {
  auto q = impl_->prepare("SELECT host, info FROM hosts WHERE run_id = ? ORDER BY host");
  q->bind(1, runId);
  std::map<std::string, std::map<std::string, std::string>> out;
  while (q->step()) out[std::string(q->text(0))] = decodeStringMap(q->text(1));
  return out;
}

std::vector<RankSeries> RunStore::rankSeries(int64_t runId) const {
  impl_->storeOpenStepsForReading();
  std::map<int, RankSeries> byRank;
  auto series = [&](int rank) -> RankSeries& {
    RankSeries& s = byRank[rank];
    s.rank = rank;
    return s;
  };
  {
    auto q = impl_->prepare(
        "SELECT rank, step, epoch, start_ns, data_ns, forward_ns, backward_ns, comm_wait_ns, optimizer_ns, "
        "total_ns, samples, loss, lr FROM steps WHERE run_id = ?");
    q->bind(1, runId);
    while (q->step()) {
      v1::StepSample s;
      s.set_rank(q->integer(0));
      s.set_step(uint64_t(q->int64(1)));
      s.set_epoch(uint32_t(q->int64(2)));
      s.set_start_ns(q->int64(3));
      s.set_data_ns(q->int64(4));
      s.set_forward_ns(q->int64(5));
      s.set_backward_ns(q->int64(6));
      s.set_comm_wait_ns(q->int64(7));
      s.set_optimizer_ns(q->int64(8));
      s.set_total_ns(q->int64(9));
      s.set_samples(uint32_t(q->int64(10)));
      // NULL: a value that was not a finite number, which SQLite keeps as NULL.
      s.set_loss(q->isNull(11) ? std::numeric_limits<double>::quiet_NaN() : q->real(11));
      s.set_lr(q->isNull(12) ? std::numeric_limits<double>::quiet_NaN() : q->real(12));
      series(s.rank()).steps.push_back(std::move(s));
    }
  }
  {
    auto q = impl_->prepare("SELECT rank, data FROM step_chunks WHERE run_id = ?");
    q->bind(1, runId);
    while (q->step()) {
      const int rank = q->integer(0);
      RankSeries& s = series(rank);
      try {
        decodeStepChunk(q->blobView(1), rank,
                        [&](v1::StepSample&& step) { s.steps.push_back(std::move(step)); });
      } catch (const ChunkError& error) {
        impl_->damagedStepChunk(runId, rank, error);
      }
    }
  }
  {
    auto q = impl_->prepare(
        "SELECT rank, step, bucket, bytes, start_ns, end_ns, latency_us, algbw_gbps, busbw_gbps, tensors "
        "FROM allreduce_ops WHERE run_id = ?");
    q->bind(1, runId);
    while (q->step()) {
      v1::AllreduceOp o;
      o.set_rank(q->integer(0));
      o.set_step(uint64_t(q->int64(1)));
      o.set_bucket(uint32_t(q->int64(2)));
      o.set_bytes(uint64_t(q->int64(3)));
      o.set_start_ns(q->int64(4));
      o.set_end_ns(q->int64(5));
      o.set_latency_us(q->real(6));
      o.set_algbw_gbps(q->real(7));
      o.set_busbw_gbps(q->real(8));
      o.set_tensors(uint32_t(q->int64(9)));
      series(o.rank()).allreduce.push_back(std::move(o));
    }
  }
  {
    auto q = impl_->prepare(
        "SELECT rank, step, time_ns, rss_bytes, heap_bytes, device_used_bytes, device_total_bytes, "
        "host_total_bytes FROM memory_samples WHERE run_id = ?");
    q->bind(1, runId);
    while (q->step()) {
      v1::MemorySample m;
      m.set_rank(q->integer(0));
      m.set_step(uint64_t(q->int64(1)));
      m.set_time_ns(q->int64(2));
      m.set_rss_bytes(uint64_t(q->int64(3)));
      m.set_heap_bytes(uint64_t(q->int64(4)));
      m.set_device_used_bytes(uint64_t(q->int64(5)));
      m.set_device_total_bytes(uint64_t(q->int64(6)));
      m.set_host_total_bytes(uint64_t(q->int64(7)));
      series(m.rank()).memory.push_back(std::move(m));
    }
  }
  {
    auto q = impl_->prepare("SELECT rank, step, name, value FROM scalars WHERE run_id = ?");
    q->bind(1, runId);
    while (q->step()) {
      v1::Scalar s;
      s.set_rank(q->integer(0));
      s.set_step(uint64_t(q->int64(1)));
      s.set_name(std::string(q->text(2)));
      s.set_value(q->isNull(3) ? std::numeric_limits<double>::quiet_NaN() : q->real(3));
      series(s.rank()).scalars.push_back(std::move(s));
    }
  }
  std::vector<RankSeries> out;
  out.reserve(byRank.size());
  for (auto& [rank, s] : byRank) {
    auto byStep = [](const auto& a, const auto& b) { return a.step() < b.step(); };
    std::stable_sort(s.steps.begin(), s.steps.end(), byStep);
    std::stable_sort(s.allreduce.begin(), s.allreduce.end(), [](const auto& a, const auto& b) {
      return a.step() != b.step() ? a.step() < b.step() : a.start_ns() < b.start_ns();
    });
    std::stable_sort(s.memory.begin(), s.memory.end(), byStep);
    std::stable_sort(s.scalars.begin(), s.scalars.end(), byStep);
    out.push_back(std::move(s));
  }
  return out;
}

std::vector<v1::LogLine> RunStore::logs(int64_t runId, std::optional<int> rank) const {
  auto q = impl_->prepare(
      rank ? "SELECT rank, stream, time_unix_ns, text FROM logs WHERE run_id = ? AND rank = ? "
             "ORDER BY rowid"
           : "SELECT rank, stream, time_unix_ns, text FROM logs WHERE run_id = ? ORDER BY rowid");
  q->bind(1, runId);
  if (rank) q->bind(2, *rank);
  std::vector<v1::LogLine> out;
  while (q->step()) {
    v1::LogLine l;
    l.set_rank(q->integer(0));
    l.set_stream(static_cast<v1::LogLine::Stream>(q->integer(1)));
    l.set_time_unix_ns(q->int64(2));
    l.set_text(std::string(q->text(3)));
    out.push_back(std::move(l));
  }
  return out;
}

std::vector<v1::StallReport> RunStore::stallReports(int64_t runId) const {
  auto q = impl_->prepare(
      "SELECT reporting_rank, missing_ranks, tensors, waited_s FROM stall_reports WHERE run_id = ? ORDER BY "
      "rowid");
  q->bind(1, runId);
  std::vector<v1::StallReport> out;
  while (q->step()) {
    v1::StallReport s;
    s.set_reporting_rank(q->integer(0));
    splitRanks(q->text(1), *s.mutable_missing_ranks());
    decodeStrings(q->text(2), *s.mutable_tensors());
    s.set_waited_s(q->real(3));
    out.push_back(std::move(s));
  }
  return out;
}

std::vector<v1::Finding> RunStore::findings(int64_t runId) const {
  auto q = impl_->prepare(
      "SELECT kind, severity, rank, host, since_step, cause, summary, evidence, sentence FROM findings "
      "WHERE run_id = ? ORDER BY severity DESC, rowid");
  q->bind(1, runId);
  std::vector<v1::Finding> out;
  while (q->step()) {
    v1::Finding f;
    f.set_kind(static_cast<v1::Finding::Kind>(q->integer(0)));
    f.set_severity(static_cast<v1::Finding::Severity>(q->integer(1)));
    f.set_rank(q->integer(2));
    f.set_host(std::string(q->text(3)));
    f.set_since_step(uint64_t(q->int64(4)));
    f.set_cause(std::string(q->text(5)));
    f.set_summary(std::string(q->text(6)));
    decodeEvidence(q->text(7), *f.mutable_evidence());
    // A sentence that does not parse (a damaged row) leaves the finding with its English summary.
    if (const std::string_view bytes = q->blobView(8); !bytes.empty()) {
      if (!f.mutable_sentence()->ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
        f.clear_sentence();
    }
    out.push_back(std::move(f));
  }
  return out;
}

TimelineExtent RunStore::timelineExtent(int64_t runId) const {
  TimelineExtent extent;
  std::set<std::pair<int, std::string>> seen;
  // Rows of runs stored before chunks come first, as forEachTimelineEvent reads them.
  for (const char* query :
       {"SELECT rank, lane, count(*), min(start_ns), max(end_ns) FROM timeline_events WHERE run_id = ? GROUP "
        "BY rank, lane ORDER BY min(rowid)",
        "SELECT rank, lane, sum(events), min(first_start_ns), max(last_end_ns) FROM timeline_chunks WHERE "
        "run_id = ? GROUP BY rank, lane ORDER BY min(id)"}) {
    auto q = impl_->prepare(query);
    q->bind(1, runId);
    while (q->step()) {
      const int64_t begin = q->int64(3), end = q->int64(4);
      extent.beginNs = extent.events ? std::min(extent.beginNs, begin) : begin;
      extent.endNs = extent.events ? std::max(extent.endNs, end) : end;
      extent.events += q->int64(2);
      TimelineExtent::Lane lane{q->integer(0), std::string(q->text(1)), begin};
      if (seen.insert({lane.rank, lane.name}).second) {
        extent.lanes.push_back(std::move(lane));
      } else {
        for (auto& known : extent.lanes) {
          if (known.rank == lane.rank && known.name == lane.name) {
            known.firstStartNs = std::min(known.firstStartNs, begin);
          }
        }
      }
    }
  }
  return extent;
}

void RunStore::forEachTimelineEvent(int64_t runId,
                                    const std::function<void(const v1::TimelineEvent&)>& visit) const {
  forEachTimelineEvent(runId, std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max(),
                       visit);
}

void RunStore::forEachTimelineEvent(int64_t runId, int64_t fromNs, int64_t toNs,
                                    const std::function<void(const v1::TimelineEvent&)>& visit) const {
  const bool everything =
      fromNs == std::numeric_limits<int64_t>::min() && toNs == std::numeric_limits<int64_t>::max();
  {
    auto q = impl_->prepare(
        "SELECT rank, lane, name, start_ns, end_ns, step, args FROM timeline_events WHERE run_id = ? AND "
        "(? OR (start_ns < ? AND end_ns >= ?)) ORDER BY rowid");
    q->bind(1, runId).bind(2, int(everything)).bind(3, toNs).bind(4, fromNs);
    v1::TimelineEvent e;
    while (q->step()) {
      e.Clear();
      e.set_rank(q->integer(0));
      e.set_lane(std::string(q->text(1)));
      e.set_name(std::string(q->text(2)));
      e.set_start_ns(q->int64(3));
      e.set_end_ns(q->int64(4));
      e.set_step(uint64_t(q->int64(5)));
      if (!q->isNull(6)) {
        for (auto& [key, value] : decodeStringMap(q->text(6))) (*e.mutable_args())[key] = value;
      }
      visit(e);
    }
  }
  auto q = impl_->prepare(
      "SELECT rank, lane, data FROM timeline_chunks WHERE run_id = ? AND (? OR (first_start_ns < ? AND "
      "last_end_ns >= ?)) ORDER BY id");
  q->bind(1, runId).bind(2, int(everything)).bind(3, toNs).bind(4, fromNs);
  while (q->step()) {
    const int rank = q->integer(0);
    const std::string lane(q->text(1));
    try {
      decodeTimelineChunk(q->blobView(2), rank, lane, [&](const v1::TimelineEvent& e) {
        if (everything || (e.start_ns() < toNs && e.end_ns() >= fromNs)) visit(e);
      });
    } catch (const TimelineChunkError& error) {
      impl_->damagedChunk(runId, rank, lane, error);
    }
  }
}

}  // namespace ringmaster
