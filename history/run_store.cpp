// SPDX-License-Identifier: GPL-3.0-or-later
#include "history/run_store.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "common/clock.h"
#include "common/job_spec.h"
#include "history/console_claims.h"
#include "history/run_store_impl.h"
#include "history/store_schema.h"

namespace ringmaster {

RunStore::Impl::~Impl() {
  try {
    flushOpenChunks();
  } catch (...) {
    // The store cannot be written now: those events are lost, as with a console that dies.
  }
  // Statements must go before the connection.
  insertOp.reset();
  insertMemory.reset();
  insertChunk.reset();
  updateChunk.reset();
  insertLog.reset();
  insertStall.reset();
  insertFinding.reset();
  upsertRankState.reset();
  upsertRankSummary.reset();
  upsertHealth.reset();
  insertHost.reset();
  insertStepChunk.reset();
  updateStepChunk.reset();
  if (db) sqlite3_close_v2(db);
}

void RunStore::Impl::fail(int rc, const std::string& doing) const {
  std::string detail = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
  int primary = rc & 0xFF;
  if (primary == SQLITE_NOTADB || primary == SQLITE_CORRUPT) {
    throw StoreError("run store " + path + " is damaged or not a database (" + detail +
                     "); move it aside to start a new history, or pass another file with --store");
  }
  if (primary == SQLITE_BUSY || primary == SQLITE_LOCKED) {
    throw StoreError("run store " + path + " is locked by another process (" + detail +
                     "); wait for it to finish or pass another file with --store");
  }
  if (primary == SQLITE_FULL) {
    throw StoreError("cannot " + doing + " run store " + path + ": the disk holding it is full (" + detail +
                     "); free space there, or pass another file with --store");
  }
  if (primary == SQLITE_CANTOPEN || primary == SQLITE_READONLY || primary == SQLITE_PERM) {
    throw StoreError("cannot " + doing + " run store " + path + " (" + detail +
                     "); check that the folder exists and is writable, or pass another file with --store");
  }
  throw StoreError("run store " + path + ": " + doing + " failed: " + detail);
}

void RunStore::Impl::exec(std::string_view sql, const std::string& doing) {
  char* message = nullptr;
  int rc = sqlite3_exec(db, std::string(sql).c_str(), nullptr, nullptr, &message);
  sqlite3_free(message);
  if (rc != SQLITE_OK) fail(rc, doing);
}

int RunStore::Impl::pragmaInt(const char* sql) {
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v2(db, sql, -1, &stmt, nullptr);
  if (rc != SQLITE_OK) fail(rc, "read");
  rc = sqlite3_step(stmt);
  int value = rc == SQLITE_ROW ? sqlite3_column_int(stmt, 0) : 0;
  sqlite3_finalize(stmt);
  if (rc != SQLITE_ROW && rc != SQLITE_DONE) fail(rc, "read");
  return value;
}

void RunStore::Impl::migrate(bool readOnly) {
  int applicationId = pragmaInt("PRAGMA application_id");
  openedVersion = pragmaInt("PRAGMA user_version");
  int tables = pragmaInt("SELECT count(*) FROM sqlite_schema");
  if (readOnly && applicationId == 0 && tables == 0) {
    // Only a writer makes a store of an empty file: a reader leaves it as it is.
    throw StoreError("run store " + path +
                     " is not a Ringmaster run store (it is empty); give --store the file a run or an "
                     "import was stored in");
  }
  if (applicationId != store_schema::kApplicationId && (applicationId != 0 || tables > 0)) {
    throw StoreError("run store " + path +
                     " is an SQLite file of another program; pass a new file name with --store");
  }
  if (openedVersion > store_schema::kCurrentVersion) {
    throw StoreError("run store " + path + " was written by a newer Ringmaster (schema version " +
                     std::to_string(openedVersion) + ", this build knows up to " +
                     std::to_string(store_schema::kCurrentVersion) + "); update Ringmaster to read it");
  }
  version = openedVersion;
  if (version == store_schema::kCurrentVersion) return;
  if (readOnly) {
    throw StoreError("run store " + path + " needs a schema upgrade (version " + std::to_string(version) +
                     " to " + std::to_string(store_schema::kCurrentVersion) +
                     "); open it once with a command that stores runs (ringmaster run, ringmaster import) "
                     "or the console window");
  }
  transaction([&] {
    // Someone else may have migrated it while we waited for the write lock.
    version = pragmaInt("PRAGMA user_version");
    const auto& steps = store_schema::migrations();
    for (int v = version; v < store_schema::kCurrentVersion; ++v) {
      exec(steps[size_t(v)], "upgrade the schema of");
    }
    exec("PRAGMA application_id = " + std::to_string(store_schema::kApplicationId), "write to");
    exec("PRAGMA user_version = " + std::to_string(store_schema::kCurrentVersion), "write to");
    version = store_schema::kCurrentVersion;
  });
}

namespace {

// A new store is made readable by this user only (0600): it holds the user's jobs, their logs and their
// hosts. SQLite gives the store's -wal and -shm files the store's own mode.
void createPrivately(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::symlink_status(path, ec).type() != std::filesystem::file_type::not_found) return;
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd >= 0) ::close(fd);  // else SQLite says what is wrong (a missing folder, one this user may not write)
}

}  // namespace

RunStore::RunStore(const std::string& path, Options options) : impl_(std::make_unique<Impl>()) {
  impl_->path = path;
  impl_->timelineFlushMs = options.timelineFlushMs;
  if (options.readOnly) {
    openForReading(options);
  } else {
    createPrivately(path);
    int rc = sqlite3_open_v2(path.c_str(), &impl_->db,
                             SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
    if (rc != SQLITE_OK) impl_->fail(rc, "create or open");
    sqlite3_extended_result_codes(impl_->db, 1);
    sqlite3_busy_timeout(impl_->db, options.busyTimeoutMs);
  }

  if (!options.readOnly) {
    // WAL lets readers run while a run is ingested; NORMAL sync is durable across crashes of the process.
    impl_->exec("PRAGMA journal_mode = WAL", "open");
    impl_->exec("PRAGMA synchronous = NORMAL", "open");
  }
  impl_->exec("PRAGMA cache_size = -32768", "open");
  impl_->exec("PRAGMA temp_store = MEMORY", "open");
  impl_->migrate(options.readOnly);
  if (options.readOnly) {
    auto q = impl_->prepare("SELECT id, console FROM runs WHERE status IN ('running', 'importing')");
    while (q->step()) {
      if (!consoleSeemsAlive(path, std::string(q->text(1)))) impl_->orphanedRuns.insert(q->int64(0));
    }
  } else {
    impl_->prepareWriters();
    try {
      markInterruptedRuns();
    } catch (const StoreError&) {
      // Another writer holds the store: the next console to open it looks again.
    }
  }
}

void RunStore::openForReading(const Options& options) {
  // A store in WAL mode is read through its -shm file, which a reader who may not write the folder cannot
  // create: such a store (a colleague's, a read-only mount) is read as it is on disk, "immutable".
  std::string uri = "file:";
  for (char c : impl_->path) {
    if (c == '?' || c == '#' || c == '%') {
      char escaped[4];
      std::snprintf(escaped, sizeof escaped, "%%%02X", static_cast<unsigned char>(c));
      uri += escaped;
    } else {
      uri += c;
    }
  }
  for (const char* query : {"?mode=ro", "?immutable=1"}) {
    if (impl_->db) sqlite3_close_v2(std::exchange(impl_->db, nullptr));
    int rc = sqlite3_open_v2((uri + query).c_str(), &impl_->db,
                             SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, nullptr);
    if (rc != SQLITE_OK) impl_->fail(rc, "open");
    sqlite3_extended_result_codes(impl_->db, 1);
    sqlite3_busy_timeout(impl_->db, options.busyTimeoutMs);
    rc = sqlite3_exec(impl_->db, "SELECT count(*) FROM sqlite_schema", nullptr, nullptr, nullptr);
    if (rc == SQLITE_OK) return;
    int primary = rc & 0xFF;
    if (primary != SQLITE_CANTOPEN && primary != SQLITE_READONLY) impl_->fail(rc, "open");
  }
  impl_->fail(SQLITE_CANTOPEN, "open");
}

RunStore::~RunStore() = default;
RunStore::RunStore(RunStore&&) noexcept = default;
RunStore& RunStore::operator=(RunStore&&) noexcept = default;

const std::string& RunStore::path() const {
  return impl_->path;
}
int RunStore::openedSchemaVersion() const {
  return impl_->openedVersion;
}
int RunStore::schemaVersion() const {
  return impl_->version;
}

int RunStore::markInterruptedRuns() {
  std::vector<std::pair<int64_t, std::string>> running;
  {
    auto q = impl_->prepare("SELECT id, console FROM runs WHERE status IN ('running', 'importing')");
    while (q->step()) running.emplace_back(q->int64(0), std::string(q->text(1)));
  }
  int marked = 0;
  for (const auto& [id, console] : running) {
    if (consoleAlive(impl_->path, console)) continue;  // this process's own runs included: its lock is held
    impl_
        ->prepare(
            "UPDATE runs SET status = 'interrupted' WHERE id = ? AND status IN ('running', 'importing')")
        ->bind(1, id)
        .run();
    releaseEndRoom(impl_->path, id);
    ++marked;
  }
  return marked;
}

bool isInterruptedImport(const RunInfo& run) {
  return run.status == "interrupted" &&
         (run.source.rfind("import:", 0) == 0 || run.source.rfind("records:", 0) == 0);
}

int64_t RunStore::createRun(const NewRun& run) {
  auto q = impl_->prepare(
      "INSERT INTO runs (name, status, source, engine, backend, world_size, started_unix_ns, spec, "
      "environment, "
      "console) VALUES (?,?,?,?,?,?,?,?,?,?)");
  // A user's program chose its own engine and backend: Ringmaster's fields do not describe it.
  std::string engine = isUserProgram(run.spec) ? "program" : "";
  std::string backend;
  if (!isUserProgram(run.spec)) {
    if (run.spec.engine() == v1::ENGINE_DDP) engine = "ddp";
    if (run.spec.engine() == v1::ENGINE_HOROVOD) engine = "horovod";
    if (run.spec.backend() == v1::BACKEND_GLOO) backend = "gloo";
    if (run.spec.backend() == v1::BACKEND_NCCL) backend = "nccl";
  }
  q->bind(1, run.name).bind(2, run.status).bind(3, run.source).bind(4, engine).bind(5, backend);
  q->bind(6, run.worldSize ? run.worldSize : int(run.spec.world_size()));
  q->bind(7, run.startedUnixNs ? run.startedUnixNs : unixNs());
  q->bindBlob(8, run.spec.SerializeAsString()).bind(9, encodeStringMap(run.environment));
  const bool live = run.status == "running" || run.status == "importing";
  q->bind(10, live ? claimForThisProcess(impl_->path) : std::string());
  q->run();
  const int64_t id = sqlite3_last_insert_rowid(impl_->db);
  if (run.status == "running") keepEndRoom(impl_->path, id);
  return id;
}

void RunStore::setRunStatus(int64_t runId, const std::string& status, int64_t endedUnixNs) {
  if (status != "running") {
    impl_->flushOpenChunks();
    impl_->forgetOpenChunks(runId);
  }
  auto q = impl_->prepare("UPDATE runs SET status = ?, ended_unix_ns = ? WHERE id = ?");
  q->bind(1, status).bind(2, endedUnixNs).bind(3, runId).run();
  if (status != "running") releaseEndRoom(impl_->path, runId);
}

void RunStore::endRun(int64_t runId, const std::string& status, int64_t endedUnixNs,
                      const std::vector<v1::Finding>& findings) {
  try {
    impl_->flushOpenChunks();
  } catch (const StoreError&) {
    // The last second of its timeline is lost: the run's end matters more.
  }
  impl_->forgetOpenChunks(runId);
  auto write = [&] {
    impl_->transaction([&] {
      impl_->prepare("DELETE FROM findings WHERE run_id = ?")->bind(1, runId).run();
      for (const auto& f : findings) impl_->insertFindingRow(runId, f);
      impl_->prepare("UPDATE runs SET status = ?, ended_unix_ns = ? WHERE id = ?")
          ->bind(1, status)
          .bind(2, endedUnixNs)
          .bind(3, runId)
          .run();
    });
  };
  try {
    write();
  } catch (const StoreError&) {
    // The disk is full: the room kept for this end, given back, is what it needs.
    if (!releaseEndRoom(impl_->path, runId)) throw;
    write();
  }
  releaseEndRoom(impl_->path, runId);
}

void RunStore::setWorldSize(int64_t runId, int worldSize) {
  impl_->prepare("UPDATE runs SET world_size = ? WHERE id = ?")->bind(1, worldSize).bind(2, runId).run();
}

void RunStore::renameRun(int64_t runId, const std::string& name) {
  impl_->prepare("UPDATE runs SET name = ? WHERE id = ?")->bind(1, name).bind(2, runId).run();
}

void RunStore::setNotes(int64_t runId, const std::string& notes) {
  impl_->prepare("UPDATE runs SET notes = ? WHERE id = ?")->bind(1, notes).bind(2, runId).run();
}

void RunStore::addTag(int64_t runId, const std::string& tag) {
  if (tag.empty() || tag.find('\x1f') != std::string::npos) {
    throw InputError("tag '" + tag + "' is empty or holds a control character");
  }
  impl_->prepare("INSERT OR IGNORE INTO run_tags (run_id, tag) VALUES (?,?)")
      ->bind(1, runId)
      .bind(2, tag)
      .run();
}

void RunStore::removeTag(int64_t runId, const std::string& tag) {
  impl_->prepare("DELETE FROM run_tags WHERE run_id = ? AND tag = ?")->bind(1, runId).bind(2, tag).run();
}

void RunStore::deleteRun(int64_t runId) {
  impl_->forgetOpenChunks(runId);
  releaseEndRoom(impl_->path, runId);
  impl_->transaction([&] {
    for (const char* table :
         {"hosts", "ranks", "steps", "step_chunks", "allreduce_ops", "memory_samples", "scalars",
          "timeline_events", "timeline_chunks", "logs", "stall_reports", "findings", "run_tags"}) {
      impl_->prepare(std::string("DELETE FROM ") + table + " WHERE run_id = ?")->bind(1, runId).run();
    }
    impl_->prepare("DELETE FROM runs WHERE id = ?")->bind(1, runId).run();
  });
}

void RunStore::setHostInfo(int64_t runId, const std::string& host,
                           const std::map<std::string, std::string>& info) {
  impl_
      ->prepare(
          "INSERT INTO hosts (run_id, host, info) VALUES (?,?,?) ON CONFLICT (run_id, host) DO UPDATE SET "
          "info = excluded.info")
      ->bind(1, runId)
      .bind(2, host)
      .bind(3, encodeStringMap(info))
      .run();
}

void RunStore::setEnvironment(int64_t runId, const std::map<std::string, std::string>& environment) {
  impl_->prepare("UPDATE runs SET environment = ? WHERE id = ?")
      ->bind(1, encodeStringMap(environment))
      .bind(2, runId)
      .run();
}

}  // namespace ringmaster
