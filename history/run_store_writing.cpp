// SPDX-License-Identifier: GPL-3.0-or-later
// RunStore's writers of a run's records: appends, the timeline writer of imports, the open chunks of a live
// run's lanes, clipping, forgetting steps and replacing findings.
#include <algorithm>
#include <cassert>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "history/run_store.h"
#include "history/run_store_impl.h"
#include "history/stored_text.h"
#include "history/timeline_chunk.h"

namespace ringmaster {

void RunStore::Impl::prepareWriters() {
  insertOp = prepare(
      "INSERT INTO allreduce_ops (run_id, rank, step, bucket, bytes, start_ns, end_ns, latency_us, "
      "algbw_gbps, "
      "busbw_gbps, tensors) VALUES (?,?,?,?,?,?,?,?,?,?,?)");
  insertMemory = prepare(
      "INSERT INTO memory_samples (run_id, rank, step, time_ns, rss_bytes, heap_bytes, device_used_bytes, "
      "device_total_bytes, host_total_bytes) VALUES (?,?,?,?,?,?,?,?,?)");
  insertChunk = prepare(
      "INSERT INTO timeline_chunks (run_id, rank, lane, first_start_ns, last_end_ns, events, data) "
      "VALUES (?,?,?,?,?,?,?)");
  updateChunk = prepare(
      "UPDATE timeline_chunks SET first_start_ns = ?, last_end_ns = ?, events = ?, data = ? WHERE id = ?");
  insertStepChunk = prepare(
      "INSERT INTO step_chunks (run_id, rank, first_step, last_step, steps, data) VALUES (?,?,?,?,?,?)");
  updateStepChunk =
      prepare("UPDATE step_chunks SET first_step = ?, last_step = ?, steps = ?, data = ? WHERE id = ?");
  insertScalar = prepare("INSERT INTO scalars (run_id, rank, step, name, value) VALUES (?,?,?,?,?)");
  insertLog = prepare("INSERT INTO logs (run_id, rank, stream, time_unix_ns, text) VALUES (?,?,?,?,?)");
  insertStall = prepare(
      "INSERT INTO stall_reports (run_id, reporting_rank, missing_ranks, tensors, waited_s) VALUES "
      "(?,?,?,?,?)");
  insertFinding = prepare(
      "INSERT INTO findings (run_id, kind, severity, rank, host, since_step, cause, summary, evidence, "
      "sentence) VALUES (?,?,?,?,?,?,?,?,?,?)");
  upsertRankState = prepare(
      "INSERT INTO ranks (run_id, rank, host, pid, state, exit_code, signal, message) VALUES "
      "(?,?,?,?,?,?,?,?) "
      "ON CONFLICT (run_id, rank) DO UPDATE SET "
      "host = CASE WHEN excluded.host <> '' THEN excluded.host ELSE host END, "
      "pid = CASE WHEN excluded.pid <> 0 THEN excluded.pid ELSE pid END, "
      "state = excluded.state, exit_code = excluded.exit_code, signal = excluded.signal, "
      "message = excluded.message");
  upsertRankSummary = prepare(
      "INSERT INTO ranks (run_id, rank, final_loss, test_accuracy, param_checksum, steps, samples_per_s) "
      "VALUES (?,?,?,?,?,?,?) ON CONFLICT (run_id, rank) DO UPDATE SET "
      "final_loss = excluded.final_loss, test_accuracy = excluded.test_accuracy, "
      "param_checksum = excluded.param_checksum, steps = excluded.steps, samples_per_s = "
      "excluded.samples_per_s");
  upsertHealth = prepare(
      "INSERT INTO ranks (run_id, rank, records_sent, records_dropped) VALUES (?,?,?,?) "
      "ON CONFLICT (run_id, rank) DO UPDATE SET "
      "records_sent = excluded.records_sent, records_dropped = excluded.records_dropped");
  insertHost = prepare("INSERT OR IGNORE INTO hosts (run_id, host) VALUES (?,?)");
}

void RunStore::Impl::insertFindingRow(int64_t runId, const v1::Finding& f) {
  insertFinding->bind(1, runId)
      .bind(2, int(f.kind()))
      .bind(3, int(f.severity()))
      .bind(4, f.rank())
      .bind(5, f.host())
      .bind(6, f.since_step())
      .bind(7, f.cause())
      .bind(8, f.summary())
      .bind(9, encodeEvidence(f.evidence()));
  if (f.has_sentence()) {
    insertFinding->bindBlob(10, f.sentence().SerializeAsString());
  } else {
    insertFinding->bindNull(10);
  }
  insertFinding->run();
}

int64_t RunStore::Impl::storeChunk(int64_t runId, int rank, const std::string& lane,
                                   const TimelineChunkEncoder& events, int64_t row) {
  const std::string blob = events.encode();
  if (row == 0) {
    insertChunk->bind(1, runId).bind(2, rank).bind(3, lane).bind(4, events.firstStartNs());
    insertChunk->bind(5, events.lastEndNs()).bind(6, uint64_t(events.size())).bindBlob(7, blob).run();
    return sqlite3_last_insert_rowid(db);
  }
  updateChunk->bind(1, events.firstStartNs()).bind(2, events.lastEndNs()).bind(3, uint64_t(events.size()));
  updateChunk->bindBlob(4, blob).bind(5, row).run();
  return row;
}

void RunStore::Impl::insertTimelineEvent(int64_t runId, const v1::TimelineEvent& e) {
  auto it = openChunks.try_emplace(LaneKey{runId, e.rank(), e.lane()}).first;
  OpenChunk& open = it->second;
  open.events.add(e);
  if (open.events.full()) {
    storeChunk(runId, e.rank(), e.lane(), open.events, open.row);
    open = OpenChunk();
  } else if (!open.changed) {
    open.changed = true;
    changedChunks.push_back(it);
  }
}

void RunStore::Impl::forgetOpenChunks(int64_t runId) {
  changedChunks.erase(std::remove_if(changedChunks.begin(), changedChunks.end(),
                                     [&](const auto& it) { return it->first.runId == runId; }),
                      changedChunks.end());
  constexpr int kLowest = std::numeric_limits<int>::min();
  openChunks.erase(openChunks.lower_bound(LaneKey{runId, kLowest, ""}),
                   openChunks.lower_bound(LaneKey{runId + 1, kLowest, ""}));
  changedSteps.erase(std::remove_if(changedSteps.begin(), changedSteps.end(),
                                    [&](const auto& it) { return it->first.first == runId; }),
                     changedSteps.end());
  openSteps.erase(openSteps.lower_bound({runId, kLowest}), openSteps.lower_bound({runId + 1, kLowest}));
}

void RunStore::Impl::storeChangedChunks() {
  for (auto it : changedChunks) {
    OpenChunk& open = it->second;
    if (!open.changed) continue;  // filled and stored since
    open.row = storeChunk(it->first.runId, it->first.rank, it->first.lane, open.events, open.row);
    open.changed = false;
  }
  changedChunks.clear();
  lastTimelineFlush = std::chrono::steady_clock::now();
}

void RunStore::Impl::storeChangedSteps(bool all) {
  const auto now = std::chrono::steady_clock::now();
  size_t kept = 0;
  for (auto it : changedSteps) {
    OpenSteps& open = it->second;
    if (!open.changed) continue;
    if (!all && open.dueAt > now) {
      changedSteps[kept++] = it;
      continue;
    }
    open.changed = false;
    if (!open.steps.empty())
      open.row = storeStepChunk(it->first.first, it->first.second, open.steps, open.row);
  }
  changedSteps.resize(kept);
}

void RunStore::Impl::flushOpenChunks() {
  if (changedChunks.empty() && changedSteps.empty()) return;
  appending([this] {
    storeChangedChunks();
    storeChangedSteps(true);
  });
}

void RunStore::Impl::addStep(int64_t runId, const v1::StepSample& s) {
  auto [it, added] = openSteps.try_emplace({runId, s.rank()});
  OpenSteps& open = it->second;
  if (added) {
    constexpr size_t kHalf = kStepChunkSteps / 2;
    open.capacity = kHalf + (size_t(uint32_t(s.rank())) * 97) % kHalf;
  }
  open.steps.add(s);
  if (open.steps.size() >= open.capacity) {
    storeStepChunk(runId, s.rank(), open.steps, open.row);
    open.steps.clear();
    open.row = 0;
    open.capacity = kStepChunkSteps;  // stays marked changed, if it was: an empty chunk is not stored
  } else if (!open.changed) {
    open.changed = true;
    open.dueAt = std::chrono::steady_clock::now();
    if (open.row != 0) open.dueAt += std::chrono::milliseconds(timelineFlushMs);
    changedSteps.push_back(it);
  }
}

int64_t RunStore::Impl::storeStepChunk(int64_t runId, int rank, const StepChunkEncoder& steps, int64_t row) {
  const std::string blob = steps.encode();
  if (row == 0) {
    insertStepChunk->bind(1, runId).bind(2, rank).bind(3, steps.firstStep()).bind(4, steps.lastStep());
    insertStepChunk->bind(5, uint64_t(steps.size())).bindBlob(6, blob).run();
    return sqlite3_last_insert_rowid(db);
  }
  updateStepChunk->bind(1, steps.firstStep()).bind(2, steps.lastStep()).bind(3, uint64_t(steps.size()));
  updateStepChunk->bindBlob(4, blob).bind(5, row).run();
  return row;
}

void RunStore::Impl::insert(int64_t runId, const v1::Record& record) {
  switch (record.body_case()) {
    case v1::Record::kStep:
      addStep(runId, record.step());
      break;
    case v1::Record::kAllreduce: {
      const auto& o = record.allreduce();
      insertOp->bind(1, runId).bind(2, o.rank()).bind(3, o.step()).bind(4, o.bucket()).bind(5, o.bytes());
      insertOp->bind(6, o.start_ns()).bind(7, o.end_ns()).bind(8, o.latency_us()).bind(9, o.algbw_gbps());
      insertOp->bind(10, o.busbw_gbps()).bind(11, o.tensors()).run();
      break;
    }
    case v1::Record::kMemory: {
      const auto& m = record.memory();
      insertMemory->bind(1, runId).bind(2, m.rank()).bind(3, m.step()).bind(4, m.time_ns());
      insertMemory->bind(5, m.rss_bytes()).bind(6, m.heap_bytes()).bind(7, m.device_used_bytes());
      insertMemory->bind(8, m.device_total_bytes()).bind(9, m.host_total_bytes()).run();
      break;
    }
    case v1::Record::kTimeline:
      insertTimelineEvent(runId, record.timeline());
      break;
    case v1::Record::kLog: {
      const auto& l = record.log();
      insertLog->bind(1, runId).bind(2, l.rank()).bind(3, int(l.stream())).bind(4, l.time_unix_ns());
      insertLog->bind(5, l.text()).run();
      break;
    }
    case v1::Record::kRankState: {
      const auto& r = record.rank_state();
      upsertRankState->bind(1, runId)
          .bind(2, r.rank())
          .bind(3, r.host())
          .bind(4, r.pid())
          .bind(5, int(r.state()));
      upsertRankState->bind(6, r.exit_code()).bind(7, r.signal()).bind(8, r.message()).run();
      if (!r.host().empty()) insertHost->bind(1, runId).bind(2, r.host()).run();
      break;
    }
    case v1::Record::kFinding:
      insertFindingRow(runId, record.finding());
      break;
    case v1::Record::kHealth: {
      const auto& h = record.health();
      upsertHealth->bind(1, runId)
          .bind(2, h.rank())
          .bind(3, h.records_sent())
          .bind(4, h.records_dropped())
          .run();
      break;
    }
    case v1::Record::kStall: {
      const auto& s = record.stall();
      insertStall->bind(1, runId).bind(2, s.reporting_rank()).bind(3, joinRanks(s.missing_ranks()));
      insertStall->bind(4, encodeStrings(s.tensors())).bind(5, s.waited_s()).run();
      break;
    }
    case v1::Record::kSummary: {
      const auto& s = record.summary();
      upsertRankSummary->bind(1, runId).bind(2, s.rank()).bind(3, s.final_loss());
      if (s.test_accuracy() >= 0)
        upsertRankSummary->bind(4, s.test_accuracy());
      else
        upsertRankSummary->bindNull(4);
      upsertRankSummary->bind(5, s.param_checksum()).bind(6, s.steps()).bind(7, s.samples_per_s()).run();
      break;
    }
    case v1::Record::kScalar: {
      const auto& s = record.scalar();
      insertScalar->bind(1, runId)
          .bind(2, s.rank())
          .bind(3, static_cast<int64_t>(s.step()))
          .bind(4, s.name());
      if (std::isfinite(s.value()))
        insertScalar->bind(5, s.value());
      else
        insertScalar->bindNull(5);
      insertScalar->run();
      break;
    }
    case v1::Record::kHeartbeat:  // where a rank is now: for the live diagnosis only
    case v1::Record::kRuntime:    // kept as its host's facts and the run's environment (console::RunIngest)
    case v1::Record::kCollectiveCalls:  // for the live diagnosis; what it finds is stored as findings
    case v1::Record::kReplicas:
    case v1::Record::BODY_NOT_SET:
      break;
  }
}

void RunStore::append(int64_t runId, const v1::RecordBatch& batch) {
  assert(impl_->insertOp && "read-only store");
  impl_->appending([&] {
    for (const auto& record : batch.records()) impl_->insert(runId, record);
  });
}

void RunStore::append(int64_t runId, const std::vector<v1::Record>& records) {
  assert(impl_->insertOp && "read-only store");
  impl_->appending([&] {
    for (const auto& record : records) impl_->insert(runId, record);
  });
}

void RunStore::appendTimeline(int64_t runId, const std::vector<v1::TimelineEvent>& events) {
  assert(impl_->insertOp && "read-only store");
  impl_->appending([&] {
    for (const auto& event : events) impl_->insertTimelineEvent(runId, event);
  });
}

struct RunStore::TimelineWriter::Lanes {
  struct Lane {
    int rank;
    std::string name;
    TimelineChunkEncoder events;
  };
  struct Chunk {
    size_t lane;
    int64_t firstStartNs, lastEndNs;
    uint64_t events;
    std::string data;
  };
  std::vector<Lane> lanes;  // in order of their first event
  std::unordered_map<std::string, std::unordered_map<int, size_t>> byName;
  std::vector<Chunk> full;  // packed, waiting to be stored
  size_t fullBytes = 0;

  void pack(size_t index) {
    Lane& lane = lanes[index];
    full.push_back({index, lane.events.firstStartNs(), lane.events.lastEndNs(), lane.events.size(),
                    lane.events.encode()});
    fullBytes += full.back().data.size();
    lane.events.clear();
  }
};

// Full chunks are stored a few megabytes or a few hundred chunks at a time: one transaction each, and little
// held in memory.
constexpr size_t kChunkBytesPerTransaction = 4 << 20;
constexpr size_t kChunksPerTransaction = 256;

RunStore::TimelineWriter::TimelineWriter(RunStore& store, int64_t runId)
    : store_(store), runId_(runId), lanes_(std::make_unique<Lanes>()) {
  assert(store_.impl_->insertChunk && "read-only store");
}

RunStore::TimelineWriter::~TimelineWriter() = default;

void RunStore::TimelineWriter::add(const v1::TimelineEvent& event) {
  auto& byRank = lanes_->byName[event.lane()];
  auto [it, added] = byRank.try_emplace(event.rank(), lanes_->lanes.size());
  if (added) lanes_->lanes.push_back({event.rank(), event.lane(), {}});
  const size_t index = it->second;
  lanes_->lanes[index].events.add(event);
  if (!lanes_->lanes[index].events.full()) return;
  lanes_->pack(index);
  if (lanes_->fullBytes >= kChunkBytesPerTransaction || lanes_->full.size() >= kChunksPerTransaction) {
    storeFull();
  }
}

void RunStore::TimelineWriter::finish() {
  for (size_t i = 0; i < lanes_->lanes.size(); ++i) {
    if (!lanes_->lanes[i].events.empty()) lanes_->pack(i);
  }
  storeFull();
}

void RunStore::TimelineWriter::storeFull() {
  Impl& impl = *store_.impl_;
  impl.transaction([&] {
    for (const auto& chunk : lanes_->full) {
      const auto& lane = lanes_->lanes[chunk.lane];
      impl.insertChunk->bind(1, runId_).bind(2, lane.rank).bind(3, lane.name).bind(4, chunk.firstStartNs);
      impl.insertChunk->bind(5, chunk.lastEndNs).bind(6, chunk.events).bindBlob(7, chunk.data).run();
    }
  });
  lanes_->full.clear();
  lanes_->fullBytes = 0;
}

RunStore::ClippedEnds RunStore::clipTimelineEnds(int64_t runId, int64_t afterNs) {
  ClippedEnds clipped;
  impl_->flushOpenChunks();
  impl_->forgetOpenChunks(runId);  // its chunks are rewritten here
  impl_->transaction([&] {
    // Rows of runs stored before chunks.
    auto late = impl_->prepare(
        "SELECT count(*), coalesce(max(end_ns - start_ns), 0) FROM timeline_events WHERE run_id = ? AND "
        "end_ns > ?");
    late->bind(1, runId).bind(2, afterNs);
    late->step();
    clipped.events = late->int64(0);
    clipped.longestNs = late->int64(1);
    auto end = impl_->prepare(
        "SELECT max(end_ns) FROM timeline_events WHERE run_id = ? AND end_ns <= ? UNION ALL "
        "SELECT max(last_end_ns) FROM timeline_chunks WHERE run_id = ? AND last_end_ns <= ?");
    end->bind(1, runId).bind(2, afterNs).bind(3, runId).bind(4, afterNs);
    std::optional<int64_t> lastPlausibleEnd;
    while (end->step()) {
      if (!end->isNull(0)) lastPlausibleEnd = std::max(lastPlausibleEnd.value_or(INT64_MIN), end->int64(0));
    }
    // Chunks holding late events: counted first, since where they are clipped depends on every chunk.
    std::vector<int64_t> lateChunks;
    auto chunks = impl_->prepare(
        "SELECT id, rank, lane, data FROM timeline_chunks WHERE run_id = ? AND last_end_ns > ? ORDER BY id");
    chunks->bind(1, runId).bind(2, afterNs);
    while (chunks->step()) {
      lateChunks.push_back(chunks->int64(0));
      try {
        decodeTimelineChunk(chunks->blobView(3), chunks->integer(1), "", [&](const v1::TimelineEvent& e) {
          if (e.end_ns() > afterNs) {
            ++clipped.events;
            clipped.longestNs = std::max(clipped.longestNs, e.end_ns() - e.start_ns());
          } else {
            lastPlausibleEnd = std::max(lastPlausibleEnd.value_or(INT64_MIN), e.end_ns());
          }
        });
      } catch (const TimelineChunkError& error) {
        impl_->damagedChunk(runId, chunks->integer(1), chunks->text(2), error);
      }
    }
    if (clipped.events == 0) return;
    clipped.clippedToNs = lastPlausibleEnd.value_or(afterNs);

    impl_
        ->prepare(
            "UPDATE timeline_events SET end_ns = max(start_ns, ?1), "
            "args = json_set(coalesce(args, '{}'), '$.recorded_dur_ns', CAST(end_ns - start_ns AS TEXT)) "
            "WHERE run_id = ?2 AND end_ns > ?3")
        ->bind(1, clipped.clippedToNs)
        .bind(2, runId)
        .bind(3, afterNs)
        .run();
    auto read = impl_->prepare("SELECT rank, data FROM timeline_chunks WHERE id = ?");
    for (int64_t id : lateChunks) {
      read->bind(1, id);
      read->step();
      TimelineChunkEncoder events;
      decodeTimelineChunk(read->blobView(1), 0, "", [&](const v1::TimelineEvent& e) {
        if (e.end_ns() <= afterNs) {
          events.add(e);
          return;
        }
        v1::TimelineEvent shortened = e;
        (*shortened.mutable_args())["recorded_dur_ns"] = std::to_string(e.end_ns() - e.start_ns());
        shortened.set_end_ns(std::max(e.start_ns(), clipped.clippedToNs));
        events.add(shortened);
      });
      read->reset();
      impl_->storeChunk(runId, 0, "", events, id);
    }
  });
  return clipped;
}

void RunStore::forgetStepsFrom(int64_t runId, uint64_t fromStep) {
  impl_->flushOpenChunks();
  impl_->forgetOpenChunks(runId);  // the steps trained again start chunks of their own
  impl_->transaction([&] {
    // Chunks holding steps from `fromStep` on keep those before it, in a chunk of their own.
    auto chunks =
        impl_->prepare("SELECT id, rank, data FROM step_chunks WHERE run_id = ? AND last_step >= ?");
    chunks->bind(1, runId).bind(2, static_cast<int64_t>(fromStep));
    std::vector<std::pair<int, StepChunkEncoder>> kept;
    std::vector<int64_t> replaced;
    while (chunks->step()) {
      replaced.push_back(chunks->int64(0));
      kept.emplace_back(chunks->integer(1), StepChunkEncoder());
      try {
        decodeStepChunk(chunks->blobView(2), chunks->integer(1), [&](v1::StepSample&& s) {
          if (s.step() < fromStep) kept.back().second.add(s);
        });
      } catch (const ChunkError& error) {
        impl_->damagedStepChunk(runId, chunks->integer(1), error);
      }
    }
    chunks.reset();
    for (int64_t id : replaced) impl_->prepare("DELETE FROM step_chunks WHERE id = ?")->bind(1, id).run();
    for (const auto& [rank, steps] : kept) {
      if (!steps.empty()) impl_->storeStepChunk(runId, rank, steps, 0);
    }
    for (const char* table : {"steps", "allreduce_ops", "memory_samples", "scalars"}) {
      impl_->prepare(std::string("DELETE FROM ") + table + " WHERE run_id = ? AND step >= ?")
          ->bind(1, runId)
          .bind(2, static_cast<int64_t>(fromStep))
          .run();
    }
  });
}

void RunStore::replaceFindings(int64_t runId, const std::vector<v1::Finding>& findings) {
  impl_->transaction([&] {
    impl_->prepare("DELETE FROM findings WHERE run_id = ?")->bind(1, runId).run();
    for (const auto& f : findings) impl_->insertFindingRow(runId, f);
  });
}

}  // namespace ringmaster
