// SPDX-License-Identifier: GPL-3.0-or-later
#include "history/run_store.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cassert>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "common/clock.h"
#include "common/job_spec.h"
#include "common/json.h"
#include "history/console_claims.h"
#include "history/run_store_impl.h"
#include "history/statement.h"
#include "history/store_schema.h"
#include "history/stored_text.h"
#include "history/timeline_chunk.h"

namespace ringmaster {

RunStore::Impl::~Impl() {
  try {
    flushOpenChunks();
  } catch (...) {
    // The store cannot be written now: those events are lost, as with a console that dies.
  }
  // Statements must go before the connection.
  insertStep.reset();
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
  return info;
}

void RunStore::Impl::damagedChunk(int64_t runId, int rank, std::string_view lane,
                                  const TimelineChunkError& error) const {
  throw StoreError("run store " + path + ": a timeline chunk of run " + std::to_string(runId) + " (rank " +
                   std::to_string(rank) + ", lane '" + std::string(lane) + "') is damaged: " + error.what() +
                   "; the run's other records can still be read");
}

namespace {

constexpr const char* kRunColumns =
    "SELECT id, name, status, source, engine, backend, world_size, started_unix_ns, ended_unix_ns, spec, "
    "environment, notes, (SELECT group_concat(tag, char(31)) FROM (SELECT tag FROM run_tags t "
    "WHERE t.run_id = runs.id ORDER BY tag)) FROM runs";

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
  return run.status == "interrupted" && run.source.rfind("import:", 0) == 0;
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
    for (const char* table : {"hosts", "ranks", "steps", "allreduce_ops", "memory_samples", "timeline_events",
                              "timeline_chunks", "logs", "stall_reports", "findings", "run_tags"}) {
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

RunCounts RunStore::counts(int64_t runId) const {
  RunCounts c;
  auto count = [&](const char* table) {
    auto q = impl_->prepare(std::string("SELECT count(*) FROM ") + table + " WHERE run_id = ?");
    q->bind(1, runId);
    q->step();
    return q->int64(0);
  };
  c.steps = count("steps");
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
  std::vector<RankSeries> out;
  out.reserve(byRank.size());
  for (auto& [rank, s] : byRank) {
    auto byStep = [](const auto& a, const auto& b) { return a.step() < b.step(); };
    std::stable_sort(s.steps.begin(), s.steps.end(), byStep);
    std::stable_sort(s.allreduce.begin(), s.allreduce.end(), [](const auto& a, const auto& b) {
      return a.step() != b.step() ? a.step() < b.step() : a.start_ns() < b.start_ns();
    });
    std::stable_sort(s.memory.begin(), s.memory.end(), byStep);
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
      "SELECT kind, severity, rank, host, since_step, cause, summary, evidence FROM findings WHERE run_id = "
      "? "
      "ORDER BY severity DESC, rowid");
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
