// SPDX-License-Identifier: GPL-3.0-or-later
// RunStore's insides, private to rm_history: the connection, the statements the writers use and a live run's
// open timeline chunks. Several files define RunStore's members over it: run_store.cpp (opening, migrating,
// a run's life), run_store_writing.cpp (appends, timeline chunks, findings) and run_store_reading.cpp (the
// readers of stored runs).
#pragma once

#include <sqlite3.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "history/run_store.h"
#include "history/statement.h"
#include "history/step_chunk.h"
#include "history/timeline_chunk.h"

namespace ringmaster {

struct RunStore::Impl {
  std::string path;
  sqlite3* db = nullptr;
  int openedVersion = 0;
  int version = 0;
  // Opened read-only: the runs left "running" or "importing" by processes that have died, read as
  // "interrupted" (a reader does not mark them so; the next writer does).
  std::set<int64_t> orphanedRuns;
  std::unique_ptr<Statement> insertOp, insertMemory, insertScalar, insertChunk, updateChunk, insertLog,
      insertStall, insertFinding, upsertRankState, upsertRankSummary, upsertHealth, insertHost,
      insertStepChunk, updateStepChunk;

  // A live run's ranks' last chunk of steps, not yet full, and that chunk's row (0: none yet): stored when it
  // changed a second ago (timelineFlushMs), each rank's on its own, so that a thousand ranks' chunks are not
  // all encoded in one batch; at once when it has no row yet; when the run ends and when the store closes.
  struct OpenSteps {
    StepChunkEncoder steps;
    int64_t row = 0;
    bool changed = false;
    std::chrono::steady_clock::time_point dueAt{};  // when changed: when to store it
    // Steps in the chunk: the rank's first is from half a chunk to a whole one as the rank goes, so that a
    // thousand ranks in step fill theirs a few at a time rather than all in the same second.
    size_t capacity = kStepChunkSteps;
  };
  std::map<std::pair<int64_t, int>, OpenSteps> openSteps;  // by run and rank
  std::vector<std::map<std::pair<int64_t, int>, OpenSteps>::iterator> changedSteps;

  // A live run's lanes: the events of each one's last chunk, not yet full, and that chunk's row (0: none
  // yet). The chunks changed by the batch being appended are stored before it commits.
  struct LaneKey {
    int64_t runId;
    int rank;
    std::string lane;
    bool operator<(const LaneKey& other) const {
      return std::tie(runId, rank, lane) < std::tie(other.runId, other.rank, other.lane);
    }
  };
  struct OpenChunk {
    TimelineChunkEncoder events;
    int64_t row = 0;
    bool changed = false;
  };
  std::map<LaneKey, OpenChunk> openChunks;
  std::vector<std::map<LaneKey, OpenChunk>::iterator> changedChunks;
  int timelineFlushMs = 1000;
  // None until the open chunks are first stored: the first batch is due at once, however long the machine
  // has been up (the steady clock counts from boot).
  std::optional<std::chrono::steady_clock::time_point> lastTimelineFlush;

  // Stores what the open chunks hold unstored, then closes the connection.
  ~Impl();

  // Throws the StoreError for SQLite's `rc`: what is wrong with the file and what to do.
  [[noreturn]] void fail(int rc, const std::string& doing) const;
  void exec(std::string_view sql, const std::string& doing);
  int pragmaInt(const char* sql);
  std::unique_ptr<Statement> prepare(std::string_view sql) {
    return std::make_unique<Statement>(db, sql, path);
  }

  // BEGIN IMMEDIATE ... COMMIT, rolled back if the body throws.
  template <typename Body>
  void transaction(Body&& body) {
    exec("BEGIN IMMEDIATE", "write to");
    try {
      body();
    } catch (...) {
      sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
      throw;
    }
    exec("COMMIT", "write to");
  }

  // Checks that the file is a run store this build can read and, opened for writing, brings it to the current
  // schema.
  void migrate(bool readOnly);
  // The statements of append and the timeline writer: a store opened for writing only.
  void prepareWriters();

  void insert(int64_t runId, const v1::Record& record);
  void addStep(int64_t runId, const v1::StepSample& s);
  // Stores `steps` of `rank` as a new row (row 0) or over row `row`; returns its row.
  int64_t storeStepChunk(int64_t runId, int rank, const StepChunkEncoder& steps, int64_t row);
  void insertFindingRow(int64_t runId, const v1::Finding& f);
  void insertTimelineEvent(int64_t runId, const v1::TimelineEvent& e);
  // Stores a chunk as a new row (row 0) or over row `row`; returns its row.
  int64_t storeChunk(int64_t runId, int rank, const std::string& lane, const TimelineChunkEncoder& events,
                     int64_t row);
  // Drops the run's open chunks, of its timeline and its steps, from memory (what they hold that was not
  // stored is lost).
  void forgetOpenChunks(int64_t runId);
  // Stores the open timeline chunks changed since they were last stored (inside a transaction).
  void storeChangedChunks();
  // The same for the ranks' open chunks of steps: all of them, or those due.
  void storeChangedSteps(bool all);
  // Appends in one transaction, storing the changed open chunks with it when they are due.
  template <typename Body>
  void appending(Body&& body) {
    try {
      transaction([&] {
        body();
        if (!changedChunks.empty() &&
            (!lastTimelineFlush || std::chrono::steady_clock::now() - *lastTimelineFlush >=
                                       std::chrono::milliseconds(timelineFlushMs))) {
          storeChangedChunks();
        }
        if (!changedSteps.empty()) storeChangedSteps(false);
      });
    } catch (...) {
      // Rows inserted by the rolled-back transaction are gone: lanes and ranks start new chunks, and what the
      // open ones held unstored is lost with the batch.
      changedChunks.clear();
      openChunks.clear();
      changedSteps.clear();
      openSteps.clear();
      throw;
    }
  }

  // Stores the changed open chunks now, in a transaction of their own.
  void flushOpenChunks();
  // The same before the store that writes a run reads its steps, so that it reads each one it was given.
  void storeOpenStepsForReading();

  // A row of the runs' columns the readers select; a run whose console died reads as "interrupted".
  RunInfo readRun(Statement& q) const;
  // Throws the StoreError naming the run and lane of a chunk that cannot be unpacked.
  [[noreturn]] void damagedChunk(int64_t runId, int rank, std::string_view lane,
                                 const TimelineChunkError& error) const;
  // The same for a chunk of steps.
  [[noreturn]] void damagedStepChunk(int64_t runId, int rank, const ChunkError& error) const;
};

}  // namespace ringmaster
