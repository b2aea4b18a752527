// SPDX-License-Identifier: GPL-3.0-or-later
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <filesystem>
#include <limits>
#include <thread>

#include "common/sentence.h"
#include "history/run_store.h"
#include "history/store_schema.h"
#include "tests/support/files.h"
#include "tests/support/temp_dir.h"

using ringmaster::isInterruptedImport;
using ringmaster::NewRun;
using ringmaster::RunInfo;
using ringmaster::RunStore;
using ringmaster::StoreError;
namespace v1 = ringmaster::v1;
namespace fs = std::filesystem;

namespace {

class StoreTest : public ::testing::Test {
 protected:
  std::string file(const std::string& name = "runs.sqlite") const { return dir_.file(name); }

  ringmaster::test::TempDir dir_{"store"};
};

NewRun named(const std::string& name) {
  NewRun run;
  run.name = name;
  return run;
}

RunStore::Options readOnly() {
  RunStore::Options options;
  options.readOnly = true;
  return options;
}

RunStore::Options impatient() {
  RunStore::Options options;
  options.busyTimeoutMs = 100;
  return options;
}

v1::Record stepRecord(int rank, uint64_t step) {
  v1::Record r;
  auto* s = r.mutable_step();
  s->set_rank(rank);
  s->set_step(step);
  s->set_start_ns(int64_t(step) * 1'000'000);
  s->set_forward_ns(300'000 + rank);
  s->set_backward_ns(500'000);
  s->set_total_ns(1'000'000);
  s->set_samples(64);
  s->set_loss(2.5 - 0.01 * double(step));
  s->set_lr(0.1);
  return r;
}

// A small but complete batch: every record kind once or more.
v1::RecordBatch sampleBatch() {
  v1::RecordBatch batch;
  for (int rank = 0; rank < 2; ++rank) {
    for (uint64_t step = 0; step < 3; ++step) {
      *batch.add_records() = stepRecord(rank, 2 - step);  // out of order on purpose
      auto* op = batch.add_records()->mutable_allreduce();
      op->set_rank(rank);
      op->set_step(step);
      op->set_bytes(4 << 20);
      op->set_latency_us(800);
      op->set_busbw_gbps(5.2);
      auto* m = batch.add_records()->mutable_memory();
      m->set_rank(rank);
      m->set_step(step);
      m->set_rss_bytes(1'000'000'000 + step * 2'000'000);
      m->set_host_total_bytes(16'000'000'000ULL);
    }
    auto* state = batch.add_records()->mutable_rank_state();
    state->set_rank(rank);
    state->set_state(v1::RankState::STATE_RUNNING);
    state->set_pid(100 + rank);
    state->set_host(rank == 0 ? "alpha" : "beta");
  }
  auto* e = batch.add_records()->mutable_timeline();
  e->set_rank(1);
  e->set_lane("grad.fc1.weight");
  e->set_name("NEGOTIATE_ALLREDUCE");
  e->set_start_ns(10);
  e->set_end_ns(20);
  (*e->mutable_args())["ready \"ranks\""] = "0,1";
  auto* log = batch.add_records()->mutable_log();
  log->set_rank(0);
  log->set_text("epoch 0 done");
  auto* stall = batch.add_records()->mutable_stall();
  stall->set_reporting_rank(0);
  stall->add_missing_ranks(1);
  stall->add_missing_ranks(3);
  stall->add_tensors("grad.fc2.bias");
  stall->set_waited_s(61.5);
  auto* finding = batch.add_records()->mutable_finding();
  finding->set_kind(v1::Finding::KIND_STRAGGLER);
  finding->set_severity(v1::Finding::SEVERITY_WARNING);
  finding->set_rank(1);
  *finding->mutable_sentence() = ringmaster::sentence(
      "ringmaster::Finding", "%1 is slow by %2%",
      {ringmaster::sentence("ringmaster::Finding", "rank %1", {1}), ringmaster::Decimal{21.5, 1}});
  finding->set_summary(ringmaster::toText(finding->sentence()));
  (*finding->mutable_evidence())["slowdown_pct"] = 21.5;
  auto* summary = batch.add_records()->mutable_summary();
  summary->set_rank(0);
  summary->set_final_loss(0.25);
  summary->set_test_accuracy(-1);
  summary->set_param_checksum("abc123");
  auto* health = batch.add_records()->mutable_health();
  health->set_rank(1);
  health->set_records_sent(99);
  health->set_records_dropped(1);
  return batch;
}

}  // namespace

TEST_F(StoreTest, RoundTripsEveryRecordKind) {
  RunStore store(file());
  EXPECT_EQ(store.openedSchemaVersion(), 0);
  EXPECT_EQ(store.schemaVersion(), ringmaster::store_schema::kCurrentVersion);
  NewRun run;
  run.name = "mnist-ddp";
  run.spec.set_engine(v1::ENGINE_DDP);
  run.spec.set_backend(v1::BACKEND_GLOO);
  run.spec.set_world_size(2);
  run.environment["libtorch"] = "1.13.1";
  int64_t id = store.createRun(run);
  store.append(id, sampleBatch());

  auto info = store.run(id);
  ASSERT_TRUE(info);
  EXPECT_EQ(info->name, "mnist-ddp");
  EXPECT_EQ(info->engine, "ddp");
  EXPECT_EQ(info->backend, "gloo");
  EXPECT_EQ(info->worldSize, 2);
  EXPECT_EQ(info->environment.at("libtorch"), "1.13.1");
  EXPECT_EQ(info->status, "running");

  auto counts = store.counts(id);
  EXPECT_EQ(counts.steps, 6);
  EXPECT_EQ(counts.allreduceOps, 6);
  EXPECT_EQ(counts.memorySamples, 6);
  EXPECT_EQ(counts.timelineEvents, 1);
  EXPECT_EQ(counts.logLines, 1);
  EXPECT_EQ(counts.stallReports, 1);
  EXPECT_EQ(counts.findings, 1);

  auto series = store.rankSeries(id);
  ASSERT_EQ(series.size(), 2u);
  EXPECT_EQ(series[1].rank, 1);
  ASSERT_EQ(series[1].steps.size(), 3u);
  EXPECT_EQ(series[1].steps[0].step(), 0u);  // sorted
  EXPECT_EQ(series[1].steps[2].step(), 2u);
  EXPECT_EQ(series[1].steps[0].forward_ns(), 300'001);
  EXPECT_DOUBLE_EQ(series[0].allreduce[0].busbw_gbps(), 5.2);
  EXPECT_EQ(series[0].memory[2].rss_bytes(), 1'004'000'000u);

  auto ranks = store.ranks(id);
  ASSERT_EQ(ranks.size(), 2u);
  EXPECT_EQ(ranks[0].host, "alpha");
  EXPECT_EQ(ranks[0].pid, 100);
  EXPECT_EQ(ranks[0].paramChecksum, "abc123");
  EXPECT_DOUBLE_EQ(ranks[0].finalLoss.value(), 0.25);
  EXPECT_FALSE(ranks[0].testAccuracy.has_value());
  EXPECT_EQ(ranks[1].recordsDropped, 1u);
  EXPECT_EQ(store.hosts(id).size(), 2u);

  std::vector<v1::TimelineEvent> events;
  store.forEachTimelineEvent(id, [&](const v1::TimelineEvent& e) { events.push_back(e); });
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].lane(), "grad.fc1.weight");
  EXPECT_EQ(events[0].args().at("ready \"ranks\""), "0,1");

  auto stalls = store.stallReports(id);
  ASSERT_EQ(stalls.size(), 1u);
  ASSERT_EQ(stalls[0].missing_ranks_size(), 2);
  EXPECT_EQ(stalls[0].missing_ranks(1), 3);
  EXPECT_EQ(stalls[0].tensors(0), "grad.fc2.bias");

  auto findings = store.findings(id);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_DOUBLE_EQ(findings[0].evidence().at("slowdown_pct"), 21.5);
  EXPECT_EQ(findings[0].summary(), "rank 1 is slow by 21.5%");
  ASSERT_TRUE(findings[0].has_sentence()) << "the summary's sentence is kept with it";
  const v1::RecordBatch sent = sampleBatch();
  for (const auto& record : sent.records()) {
    if (record.has_finding()) {
      EXPECT_EQ(findings[0].sentence().SerializeAsString(), record.finding().sentence().SerializeAsString());
    }
  }
  EXPECT_EQ(store.logs(id, 0).size(), 1u);
  EXPECT_TRUE(store.logs(id, 1).empty());
}

TEST_F(StoreTest, FinishedRunReopensWithAllItsData) {
  int64_t id;
  {
    RunStore store(file());
    id = store.createRun(named("keep"));
    store.append(id, sampleBatch());
    store.setRunStatus(id, "finished", 12345);
  }
  RunStore reopened(file(), readOnly());
  EXPECT_EQ(reopened.run(id)->status, "finished");
  EXPECT_EQ(reopened.run(id)->endedUnixNs, 12345);
  EXPECT_EQ(reopened.counts(id).steps, 6);
}

TEST_F(StoreTest, ResolvesRunsByIdNameAndLast) {
  RunStore store(file());
  int64_t a = store.createRun(named("baseline"));
  int64_t b = store.createRun(named("nccl"));
  EXPECT_EQ(store.resolveRun(std::to_string(a)), a);
  EXPECT_EQ(store.resolveRun("nccl"), b);
  EXPECT_EQ(store.resolveRun("last"), b);
  try {
    store.resolveRun("nope");
    FAIL() << "expected an error";
  } catch (const ringmaster::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("'nope'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(store.resolveRun("999"), ringmaster::InputError);
}

TEST_F(StoreTest, TagsNotesRenameAndDelete) {
  RunStore store(file());
  int64_t id = store.createRun(named("x"));
  store.append(id, sampleBatch());
  store.addTag(id, "baseline");
  store.addTag(id, "gloo");
  store.addTag(id, "gloo");
  store.setNotes(id, "first try");
  store.renameRun(id, "y");
  auto info = store.run(id);
  EXPECT_EQ(info->name, "y");
  EXPECT_EQ(info->notes, "first try");
  EXPECT_EQ(info->tags, (std::vector<std::string>{"baseline", "gloo"}));
  store.removeTag(id, "gloo");
  EXPECT_EQ(store.run(id)->tags.size(), 1u);
  EXPECT_THROW(store.addTag(id, ""), ringmaster::InputError);
  store.deleteRun(id);
  EXPECT_FALSE(store.run(id));
  EXPECT_EQ(store.counts(id).total(), 0);
}

TEST_F(StoreTest, MigratesAVersionOneFile) {
  // Write a store the way version 1 of the schema left it, with one run in it.
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(file().c_str(), &db), SQLITE_OK);
    std::string v1sql(ringmaster::store_schema::migrations()[0]);
    ASSERT_EQ(sqlite3_exec(db, v1sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(
                  db,
                  "INSERT INTO runs (name, status, source, world_size) VALUES ('old', 'finished', 'live', 4);"
                  "INSERT INTO steps VALUES (1, 0, 0, 0, 0, 1, 2, 3, 4, 5, 15, 32, 1.5, 0.1);"
                  "INSERT INTO findings VALUES (1, 1, 1, 2, 'node2', 7, 'compute', 'rank 2 is slow', '{}');"
                  "PRAGMA application_id = 1380404563; PRAGMA user_version = 1;",
                  nullptr, nullptr, nullptr),
              SQLITE_OK);
    sqlite3_close(db);
  }
  RunStore store(file());
  EXPECT_EQ(store.openedSchemaVersion(), 1);
  EXPECT_EQ(store.schemaVersion(), ringmaster::store_schema::kCurrentVersion);
  int64_t id = store.resolveRun("old");
  EXPECT_EQ(store.run(id)->worldSize, 4);
  EXPECT_EQ(store.counts(id).steps, 1);
  EXPECT_DOUBLE_EQ(store.rankSeries(id).at(0).steps.at(0).loss(), 1.5);  // the steps table was copied whole
  EXPECT_EQ(store.run(id)->notes, "");
  // A finding stored before sentences were keeps its English, and a damaged sentence is as good as none.
  ASSERT_EQ(store.findings(id).size(), 1u);
  EXPECT_EQ(store.findings(id)[0].summary(), "rank 2 is slow");
  EXPECT_FALSE(store.findings(id)[0].has_sentence());
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(file().c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db, "UPDATE findings SET sentence = x'0affffff'", nullptr, nullptr, nullptr),
              SQLITE_OK);
    sqlite3_close(db);
  }
  ASSERT_EQ(store.findings(id).size(), 1u);
  EXPECT_EQ(store.findings(id)[0].summary(), "rank 2 is slow");
  EXPECT_FALSE(store.findings(id)[0].has_sentence());
  store.addTag(id, "migrated");  // a version 2 feature works on the migrated file
  EXPECT_EQ(store.run(id)->tags.at(0), "migrated");

  RunStore again(file());
  EXPECT_EQ(again.openedSchemaVersion(), ringmaster::store_schema::kCurrentVersion);
}

TEST_F(StoreTest, ALossThatIsNotANumberIsKept) {
  RunStore store(file());
  int64_t id = store.createRun(named("diverged"));
  v1::Record nan = stepRecord(0, 7);
  nan.mutable_step()->set_loss(std::numeric_limits<double>::quiet_NaN());
  v1::Record inf = stepRecord(0, 8);
  inf.mutable_step()->set_loss(std::numeric_limits<double>::infinity());
  store.append(id, {stepRecord(0, 6), nan, inf});
  auto steps = store.rankSeries(id).at(0).steps;
  ASSERT_EQ(steps.size(), 3u);
  EXPECT_TRUE(std::isfinite(steps[0].loss()));
  EXPECT_TRUE(std::isnan(steps[1].loss()));
  EXPECT_TRUE(std::isinf(steps[2].loss()));
}

// A restarted job records the steps after its checkpoint again: the earlier attempt's go, the other runs'
// stay.
TEST_F(StoreTest, ForgettingStepsFromARestartsStepKeepsTheEarlierOnesAndOtherRuns) {
  RunStore store(file());
  const int64_t id = store.createRun(named("restarted"));
  const int64_t other = store.createRun(named("other"));
  std::vector<v1::Record> records;
  for (uint64_t step = 0; step < 10; ++step) {
    for (int rank = 0; rank < 2; ++rank) {
      records.push_back(stepRecord(rank, step));
      v1::Record op;
      op.mutable_allreduce()->set_rank(rank);
      op.mutable_allreduce()->set_step(step);
      records.push_back(op);
    }
  }
  store.append(id, records);
  store.append(other, records);
  store.forgetStepsFrom(id, 6);
  for (const auto& series : store.rankSeries(id)) {
    ASSERT_EQ(series.steps.size(), 6u) << "rank " << series.rank;
    EXPECT_EQ(series.steps.back().step(), 5u);
    EXPECT_EQ(series.allreduce.size(), 6u) << "rank " << series.rank;
  }
  EXPECT_EQ(store.rankSeries(other).at(0).steps.size(), 10u);
  store.append(id, {stepRecord(0, 6)});
  EXPECT_EQ(store.rankSeries(id).at(0).steps.size(), 7u);
}

TEST_F(StoreTest, ARunWhoseConsoleDiedIsMarkedInterruptedAndALiveOnesRunIsNot) {
  // Each run is recorded by a child process of its own: one exits at once (as after kill -9, it leaves its
  // run "running"), the other lives until told to go.
  auto recordIn = [&](const std::string& name, int waitFd) {
    pid_t child = ::fork();
    if (child == 0) {
      {
        RunStore store(file());
        store.createRun(named(name));
      }
      char byte;
      if (waitFd >= 0) (void)::read(waitFd, &byte, 1);
      ::_exit(0);
    }
    return child;
  };
  int pipeFds[2];
  ASSERT_EQ(::pipe(pipeFds), 0);
  pid_t died = recordIn("died", -1);
  ASSERT_EQ(::waitpid(died, nullptr, 0), died);
  pid_t alive = recordIn("alive", pipeFds[0]);
  // Until the live one has created its run.
  for (int i = 0; i < 500; ++i) {
    RunStore::Options options = readOnly();
    RunStore peek(file(), options);
    if (peek.runs().size() == 2) break;
    ::usleep(10'000);
  }
  {
    RunStore store(file());
    EXPECT_EQ(store.run(store.resolveRun("died"))->status, "interrupted");
    EXPECT_EQ(store.run(store.resolveRun("alive"))->status, "running");
  }
  ASSERT_EQ(::write(pipeFds[1], "x", 1), 1);
  ASSERT_EQ(::waitpid(alive, nullptr, 0), alive);
  RunStore store(file());
  EXPECT_EQ(store.run(store.resolveRun("alive"))->status, "interrupted");
  // A run this process records is its own, alive.
  int64_t mine = store.createRun(named("mine"));
  EXPECT_EQ(store.markInterruptedRuns(), 0);
  EXPECT_EQ(store.run(mine)->status, "running");
  ::close(pipeFds[0]);
  ::close(pipeFds[1]);
}

// A reader sees the run of a console that died as interrupted, and leaves it "running" on disk for the next
// writer to mark.
TEST_F(StoreTest, AReaderSeesARunWhoseConsoleDiedAsInterruptedAndMarksNothing) {
  pid_t child = ::fork();
  if (child == 0) {
    {
      RunStore store(file());
      store.createRun(named("died"));
    }
    ::_exit(0);  // as after kill -9: the run is left "running"
  }
  ASSERT_EQ(::waitpid(child, nullptr, 0), child);
  auto runningOnDisk = [&] {
    sqlite3* db = nullptr;
    sqlite3_open_v2(file().c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
    sqlite3_stmt* q = nullptr;
    sqlite3_prepare_v2(db, "SELECT count(*) FROM runs WHERE status = 'running'", -1, &q, nullptr);
    const int running = sqlite3_step(q) == SQLITE_ROW ? sqlite3_column_int(q, 0) : -1;
    sqlite3_finalize(q);
    sqlite3_close(db);
    return running;
  };
  {
    RunStore reader(file(), readOnly());
    EXPECT_EQ(reader.run(reader.resolveRun("died"))->status, "interrupted");
    EXPECT_EQ(reader.runs().front().status, "interrupted");
  }
  EXPECT_EQ(runningOnDisk(), 1) << "a reader marked the run";
  { RunStore writer(file()); }
  EXPECT_EQ(runningOnDisk(), 0) << "the next writer marks it";
}

TEST_F(StoreTest, AnImportWhoseProcessDiedIsMarkedAnInterruptedImport) {
  pid_t child = ::fork();
  if (child == 0) {
    RunStore store(file());
    NewRun run = named("cut");
    run.source = "import:/traces/big.json";
    run.status = "importing";
    store.createRun(run);
    ::_exit(0);  // as after kill -9: its run is left "importing"
  }
  ASSERT_EQ(::waitpid(child, nullptr, 0), child);
  {
    RunStore reader(file(), readOnly());
    EXPECT_TRUE(isInterruptedImport(*reader.run(reader.resolveRun("cut"))));
  }
  RunStore store(file());
  NewRun mine = named("mine");
  mine.source = "import:/traces/small.json";
  mine.status = "importing";
  const int64_t importing = store.createRun(mine);
  const RunInfo cut = *store.run(store.resolveRun("cut"));
  EXPECT_EQ(cut.status, "interrupted");
  EXPECT_TRUE(isInterruptedImport(cut));
  // An import this process is writing is its own, alive.
  EXPECT_EQ(store.markInterruptedRuns(), 0);
  EXPECT_EQ(store.run(importing)->status, "importing");
  EXPECT_FALSE(isInterruptedImport(*store.run(importing)));
}

// A live run keeps a little room on the store's disk for its end (a disk that fills during the run still gets
// it) and gives it back when it ends, however it ends: no room is left behind.
TEST_F(StoreTest, ALiveRunKeepsRoomForItsEndUntilItEnds) {
  const std::string consoles = fs::weakly_canonical(file()).string() + ".consoles";
  auto rooms = [&] {
    size_t n = 0;
    for (const auto& entry : fs::directory_iterator(consoles)) n += entry.path().extension() == ".room";
    return n;
  };
  RunStore store(file());
  const int64_t ended = store.createRun(named("ended"));
  const int64_t deleted = store.createRun(named("deleted"));
  NewRun imported = named("imported");
  imported.status = "imported";
  store.createRun(imported);
  EXPECT_EQ(rooms(), 2u) << "only live runs keep room";
  v1::Finding finding;
  finding.set_summary("the end's finding");
  store.endRun(ended, "finished", 42, {finding});
  store.deleteRun(deleted);
  EXPECT_EQ(rooms(), 0u);
  EXPECT_EQ(store.run(ended)->status, "finished");
  EXPECT_EQ(store.run(ended)->endedUnixNs, 42);
  ASSERT_EQ(store.findings(ended).size(), 1u);
  EXPECT_EQ(store.findings(ended).front().summary(), "the end's finding");
}

TEST_F(StoreTest, CorruptFileIsAClearError) {
  std::string garbage;
  for (int i = 0; i < 512; ++i) garbage += "this is not sqlite ";
  ringmaster::test::writeFile(file(), garbage);
  try {
    RunStore store(file());
    FAIL() << "opened a corrupt file";
  } catch (const StoreError& e) {
    std::string message = e.what();
    EXPECT_NE(message.find(file()), std::string::npos) << message;
    EXPECT_NE(message.find("not a database"), std::string::npos) << message;
  }
  // The damaged file is left as it was.
  EXPECT_EQ(fs::file_size(file()), 512u * 19u);
}

TEST_F(StoreTest, ForeignAndNewerFilesAreRefused) {
  {
    sqlite3* db = nullptr;
    sqlite3_open(file("foreign.sqlite").c_str(), &db);
    sqlite3_exec(db, "CREATE TABLE recipes (name TEXT)", nullptr, nullptr, nullptr);
    sqlite3_close(db);
    sqlite3_open(file("newer.sqlite").c_str(), &db);
    sqlite3_exec(db, "PRAGMA application_id = 1380404563; PRAGMA user_version = 99", nullptr, nullptr,
                 nullptr);
    sqlite3_close(db);
  }
  EXPECT_THROW(
      {
        try {
          RunStore store(file("foreign.sqlite"));
        } catch (const StoreError& e) {
          EXPECT_NE(std::string(e.what()).find("another program"), std::string::npos) << e.what();
          throw;
        }
      },
      StoreError);
  EXPECT_THROW(
      {
        try {
          RunStore store(file("newer.sqlite"));
        } catch (const StoreError& e) {
          EXPECT_NE(std::string(e.what()).find("newer Ringmaster"), std::string::npos) << e.what();
          throw;
        }
      },
      StoreError);
}

// A new store and the -wal and -shm files SQLite keeps beside it while it is open: this user's alone.
TEST_F(StoreTest, ANewStoreOnlyItsUserMayRead) {
  auto modeOf = [](const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 ? st.st_mode & 07777 : 0u;
  };
  ::umask(022);  // the usual umask, which leaves files readable by all
  RunStore store(file());
  store.createRun(named("x"));
  EXPECT_EQ(modeOf(file()), 0600u);
  EXPECT_EQ(modeOf(file() + "-wal"), 0600u);
  EXPECT_EQ(modeOf(file() + "-shm"), 0600u);
}

// Reading never makes a store of an empty file: it is refused by name and stays as it was.
TEST_F(StoreTest, AnEmptyFileReadIsRefusedAndLeftAsItWas) {
  ringmaster::test::writeFile(file(), "");
  const auto before = fs::last_write_time(file());
  try {
    RunStore store(file(), readOnly());
    FAIL() << "read an empty file as a store";
  } catch (const StoreError& e) {
    EXPECT_NE(std::string(e.what()).find(file() + " is not a Ringmaster run store"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(fs::file_size(file()), 0u);
  EXPECT_EQ(fs::last_write_time(file()), before);
  EXPECT_FALSE(fs::exists(file() + "-wal"));
}

TEST_F(StoreTest, LockedFileIsAClearError) {
  RunStore store(file(), impatient());
  int64_t id = store.createRun(named("x"));
  sqlite3* other = nullptr;
  ASSERT_EQ(sqlite3_open(file().c_str(), &other), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(other, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr), SQLITE_OK);
  try {
    store.append(id, sampleBatch());
    FAIL() << "wrote while another process held the write lock";
  } catch (const StoreError& e) {
    EXPECT_NE(std::string(e.what()).find("locked"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(file()), std::string::npos) << e.what();
  }
  sqlite3_exec(other, "ROLLBACK", nullptr, nullptr, nullptr);
  sqlite3_close(other);
  store.append(id, sampleBatch());  // and works again once the lock is gone
  EXPECT_EQ(store.counts(id).steps, 6);
}

TEST_F(StoreTest, MissingFolderIsAClearError) {
  try {
    RunStore store(file("no/such/dir/runs.sqlite"));
    FAIL();
  } catch (const StoreError& e) {
    EXPECT_NE(std::string(e.what()).find("no/such/dir"), std::string::npos) << e.what();
  }
}

TEST_F(StoreTest, ConcurrentReaderSeesARunGrowWhileItIsIngested) {
  constexpr int kBatches = 60;
  constexpr int kStepsPerBatch = 400;
  RunStore::Options everyBatch;  // each batch's steps stored as it commits, for the reader to count
  everyBatch.timelineFlushMs = 0;
  RunStore writer(file(), everyBatch);
  int64_t id = writer.createRun(named("live"));
  std::atomic<bool> done{false};
  std::atomic<int> reads{0};
  std::string readerError;
  int64_t lastSeen = 0;
  bool monotonic = true;

  std::thread reader([&] {
    try {
      RunStore store(file(), readOnly());
      while (!done.load()) {
        int64_t now = store.counts(id).steps;
        auto series = store.rankSeries(id);
        if (now < lastSeen) monotonic = false;
        lastSeen = now;
        ++reads;
      }
      lastSeen = store.counts(id).steps;
    } catch (const std::exception& e) {
      readerError = e.what();
    }
  });
  for (int b = 0; b < kBatches; ++b) {
    std::vector<v1::Record> records;
    for (int i = 0; i < kStepsPerBatch; ++i) records.push_back(stepRecord(i % 8, uint64_t(b * 50 + i / 8)));
    writer.append(id, records);
    if (b == kBatches / 2) {
      // Let the reader get in while the run is half written.
      for (int spin = 0; spin < 200 && reads.load() < 3; ++spin)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }
  done = true;
  reader.join();
  EXPECT_EQ(readerError, "");
  EXPECT_TRUE(monotonic);
  EXPECT_GE(reads.load(), 3);
  EXPECT_EQ(lastSeen, int64_t(kBatches) * kStepsPerBatch);
}
