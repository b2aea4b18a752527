// SPDX-License-Identifier: GPL-3.0-or-later
// The run store's timeline chunks: the codec on its own, and the store writing and reading them (live
// appends, bulk writes, ranges, damaged chunks, stores from before chunks).
#include "history/timeline_chunk.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <limits>
#include <map>
#include <random>
#include <set>

#include "history/run_store.h"
#include "history/store_schema.h"
#include "tests/support/temp_dir.h"

using ringmaster::decodeTimelineChunk;
using ringmaster::kTimelineChunkEvents;
using ringmaster::RunStore;
using ringmaster::StoreError;
using ringmaster::TimelineChunkEncoder;
using ringmaster::TimelineChunkError;
namespace v1 = ringmaster::v1;

namespace {

v1::TimelineEvent event(int rank, const std::string& lane, const std::string& name, int64_t start,
                        int64_t end, uint64_t step = 0, std::map<std::string, std::string> args = {}) {
  v1::TimelineEvent e;
  e.set_rank(rank);
  e.set_lane(lane);
  e.set_name(name);
  e.set_start_ns(start);
  e.set_end_ns(end);
  e.set_step(step);
  for (auto& [k, v] : args) (*e.mutable_args())[k] = v;
  return e;
}

std::string describe(const v1::TimelineEvent& e) {
  std::string out = std::to_string(e.rank()) + "|" + e.lane() + "|" + e.name() + "|" +
                    std::to_string(e.start_ns()) + "|" + std::to_string(e.end_ns()) + "|" +
                    std::to_string(e.step());
  for (const auto& [k, v] : std::map<std::string, std::string>(e.args().begin(), e.args().end())) {
    out += "|" + k + "=" + v;
  }
  return out;
}

std::vector<std::string> decoded(const std::string& blob, int rank, const std::string& lane) {
  std::vector<std::string> out;
  decodeTimelineChunk(blob, rank, lane, [&](const v1::TimelineEvent& e) { out.push_back(describe(e)); });
  return out;
}

// Events of one Horovod-like lane: NEGOTIATE, ALLREDUCE and its phases, cycle after cycle.
std::vector<v1::TimelineEvent> tensorLane(int rank, const std::string& lane, size_t count) {
  std::vector<v1::TimelineEvent> out;
  int64_t t = 1'700'000'000'000'000'000;
  const char* phases[] = {"NEGOTIATE_ALLREDUCE",      "QUEUE",    "MEMCPY_IN_FUSION_BUFFER", "NCCL_ALLREDUCE",
                          "MEMCPY_OUT_FUSION_BUFFER", "ALLREDUCE"};
  for (size_t i = 0; i < count; ++i) {
    const int64_t length = 40'000 + int64_t(i % 7) * 1000;
    std::map<std::string, std::string> args;
    if (i % 6 == 5) args = {{"dtype", "float32"}, {"shape", "[512, 512]"}};
    out.push_back(event(rank, lane, phases[i % 6], t, t + length, i / 60, args));
    t += length + 3000;
  }
  return out;
}

}  // namespace

TEST(TimelineChunk, RoundTripsEveryFieldInOrder) {
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min(), kMax = std::numeric_limits<int64_t>::max();
  std::vector<v1::TimelineEvent> events = {
      event(3, "lane", "FORWARD", 1000, 2000, 7, {{"bytes", "4194304"}, {"dtype", "float32"}}),
      event(3, "lane", "", 500, 500),  // earlier than the one before, empty name, instant
      event(3, "lane", "FORWARD", kMin, kMax, std::numeric_limits<uint64_t>::max()),
      event(3, "lane", "rückwärts ✓", kMax, kMin, 0, {{"", ""}, {"a\nb", std::string("\0x", 2)}}),
      event(3, "lane", "FORWARD", -5, -1, 6, {{"bytes", "4194304"}}),
  };
  TimelineChunkEncoder encoder;
  std::vector<std::string> expected;
  for (const auto& e : events) {
    encoder.add(e);
    expected.push_back(describe(e));
  }
  EXPECT_EQ(encoder.size(), events.size());
  EXPECT_EQ(encoder.firstStartNs(), kMin);
  EXPECT_EQ(encoder.lastEndNs(), kMax);
  EXPECT_EQ(decoded(encoder.encode(), 3, "lane"), expected);

  // Rank and lane are the chunk's: the reader's are set on every event.
  const auto relabelled = decoded(encoder.encode(), 9, "other");
  ASSERT_EQ(relabelled.size(), events.size());
  EXPECT_EQ(relabelled[0].rfind("9|other|FORWARD|1000|2000|7|", 0), 0u) << relabelled[0];

  encoder.clear();
  EXPECT_TRUE(encoder.empty());
  EXPECT_TRUE(decoded(encoder.encode(), 0, "x").empty());
}

TEST(TimelineChunk, ATraceLanePacksIntoAFewBytesAnEvent) {
  TimelineChunkEncoder encoder;
  std::vector<std::string> expected;
  for (const auto& e :
       tensorLane(0, "DistributedOptimizer.Allreduce.grad.layer7.weight", kTimelineChunkEvents)) {
    encoder.add(e);
    expected.push_back(describe(e));
  }
  const std::string blob = encoder.encode();
  EXPECT_EQ(decoded(blob, 0, "DistributedOptimizer.Allreduce.grad.layer7.weight"), expected);
  // As rows these events took about 75 bytes each; the whole point of chunks is that they take a few.
  EXPECT_LT(blob.size(), 4 * kTimelineChunkEvents) << blob.size();
}

TEST(TimelineChunk, DamagedBlobsAreRefusedWithAMessage) {
  TimelineChunkEncoder encoder;
  for (const auto& e : tensorLane(1, "t", 300)) encoder.add(e);
  const std::string blob = encoder.encode();

  auto refusal = [](const std::string& damaged) -> std::string {
    try {
      decodeTimelineChunk(damaged, 1, "t", [](const v1::TimelineEvent&) {});
    } catch (const TimelineChunkError& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_NE(refusal("").find("empty"), std::string::npos);
  EXPECT_NE(refusal(std::string(1, '\x07') + blob.substr(1)).find("format 7"), std::string::npos);
  for (size_t length = 0; length < blob.size(); ++length) {
    EXPECT_NE(refusal(blob.substr(0, length)), "") << "cut to " << length << " bytes";
  }
  // No flipped bit makes the chunk say something else: zlib's checksum covers the packed data, the columns
  // check the rest; a refused chunk hands out no event at all. (A flip in deflate's padding after its last
  // block changes nothing, and is read as it was.)
  const auto original = decoded(blob, 1, "t");
  int refused = 0;
  for (size_t byte = 0; byte < blob.size(); ++byte) {
    for (int bit = 0; bit < 8; ++bit) {
      std::string damaged = blob;
      damaged[byte] = char(damaged[byte] ^ (1 << bit));
      std::vector<std::string> visited;
      try {
        decodeTimelineChunk(damaged, 1, "t",
                            [&](const v1::TimelineEvent& e) { visited.push_back(describe(e)); });
        EXPECT_EQ(visited, original) << "byte " << byte << " bit " << bit;
      } catch (const TimelineChunkError& e) {
        ++refused;
        EXPECT_STRNE(e.what(), "");
        EXPECT_TRUE(visited.empty());
      }
    }
  }
  EXPECT_GE(refused, int(8 * blob.size()) - 8);
  std::mt19937 random(7);
  for (int i = 0; i < 2000; ++i) {
    std::string garbage(size_t(random() % 64), '\0');
    for (char& c : garbage) c = char(random());
    if (!garbage.empty()) garbage[0] = '\x01';
    EXPECT_NE(refusal(garbage), "");
  }
}

class TimelineStore : public ::testing::Test {
 protected:
  std::string file() const { return dir_.file("runs.sqlite"); }
  static std::vector<std::string> events(const RunStore& store, int64_t run,
                                         int64_t from = std::numeric_limits<int64_t>::min(),
                                         int64_t to = std::numeric_limits<int64_t>::max()) {
    std::vector<std::string> out;
    store.forEachTimelineEvent(run, from, to,
                               [&](const v1::TimelineEvent& e) { out.push_back(describe(e)); });
    return out;
  }
  int64_t chunkRows(int64_t run) const {
    sqlite3* db = nullptr;
    sqlite3_open_v2(file().c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
    sqlite3_stmt* q = nullptr;
    sqlite3_prepare_v2(db, "SELECT count(*) FROM timeline_chunks WHERE run_id = ?", -1, &q, nullptr);
    sqlite3_bind_int64(q, 1, run);
    sqlite3_step(q);
    const int64_t rows = sqlite3_column_int64(q, 0);
    sqlite3_finalize(q);
    sqlite3_close(db);
    return rows;
  }
  void execute(const std::string& sql) const {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(file().c_str(), &db), SQLITE_OK);
    char* error = nullptr;
    EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error), SQLITE_OK) << (error ? error : "");
    sqlite3_free(error);
    sqlite3_close(db);
  }
  static ringmaster::NewRun named(const std::string& name) {
    ringmaster::NewRun run;
    run.name = name;
    return run;
  }

  ringmaster::test::TempDir dir_{"timeline-store"};
};

TEST_F(TimelineStore, ALiveRunsEventsAreReadableAfterEveryBatchAndAfterACrash) {
  const auto lane = tensorLane(0, "comm", 2 * kTimelineChunkEvents + 100);
  const auto other = tensorLane(1, "compute", 50);
  std::vector<std::string> expected;
  int64_t run = 0;
  {
    RunStore::Options everyBatch;
    everyBatch.timelineFlushMs = 0;
    RunStore writer(file(), everyBatch);
    run = writer.createRun(named("live"));
    RunStore reader(file(), RunStore::Options{true, 5000});
    size_t next = 0;
    for (size_t batch = 0; next < lane.size(); ++batch) {
      std::vector<v1::TimelineEvent> events;
      for (size_t i = 0; i < 37 && next < lane.size(); ++i) events.push_back(lane[next++]);
      if (batch < other.size()) events.push_back(other[batch]);
      writer.appendTimeline(run, events);
      ASSERT_EQ(reader.counts(run).timelineEvents, int64_t(next + std::min(batch + 1, other.size())))
          << "after batch " << batch;
    }
    // A lane's full chunks stay as they are; only its last one is rewritten: 3 + 1 rows.
    EXPECT_EQ(chunkRows(run), 4);
    // The writer goes without ending the run, as a console that is killed does.
  }
  for (const auto& e : other) expected.push_back(describe(e));
  RunStore reopened(file());
  std::vector<std::string> comm, compute;
  for (const auto& text : events(reopened, run)) (text.rfind("0|", 0) == 0 ? comm : compute).push_back(text);
  ASSERT_EQ(comm.size(), lane.size());
  for (size_t i = 0; i < lane.size(); ++i) ASSERT_EQ(comm[i], describe(lane[i])) << i;  // in order
  EXPECT_EQ(compute, expected);

  // A new writer continues the run in new chunks; nothing is lost or doubled.
  reopened.appendTimeline(run, {event(0, "comm", "late", 1, 2)});
  EXPECT_EQ(reopened.counts(run).timelineEvents, int64_t(lane.size() + other.size() + 1));
}

TEST_F(TimelineStore, ALiveRunsOpenChunksWaitUntilTheyAreDueTheRunEndsOrTheStoreCloses) {
  RunStore::Options rarely;
  rarely.timelineFlushMs = 3'600'000;
  const auto lane = tensorLane(0, "compute", kTimelineChunkEvents + 30);
  const std::vector<v1::TimelineEvent> first(lane.begin(), lane.begin() + 10);
  const std::vector<v1::TimelineEvent> rest(lane.begin() + 10, lane.end());
  RunStore reader(file(), RunStore::Options{});
  int64_t ended = 0, closed = 0;
  {
    RunStore writer(file(), rarely);
    ended = writer.createRun(named("ended"));
    closed = writer.createRun(named("closed"));
    writer.appendTimeline(ended, first);  // the first batch is stored at once
    EXPECT_EQ(reader.counts(ended).timelineEvents, 10);
    writer.appendTimeline(ended, rest);  // fills a chunk, which is stored; the rest waits
    EXPECT_EQ(reader.counts(ended).timelineEvents, int64_t(kTimelineChunkEvents));
    writer.appendTimeline(closed, first);
    EXPECT_EQ(reader.counts(closed).timelineEvents, 0);
    writer.setRunStatus(ended, "finished");
    EXPECT_EQ(reader.counts(ended).timelineEvents, int64_t(lane.size()));
  }
  EXPECT_EQ(reader.counts(closed).timelineEvents, 10);
  std::vector<std::string> expected;
  for (const auto& e : lane) expected.push_back(describe(e));
  EXPECT_EQ(events(reader, ended), expected);
}

TEST_F(TimelineStore, ABulkWriterStoresFullChunksThenTheRestOnFinish) {
  RunStore store(file());
  const int64_t run = store.createRun(named("import"));
  const auto a = tensorLane(0, "a", kTimelineChunkEvents + 10);
  const auto b = tensorLane(2, "a", 20);  // the same lane name on another rank is another lane
  {
    RunStore::TimelineWriter writer(store, run);
    for (const auto& e : a) writer.add(e);
    for (const auto& e : b) writer.add(e);
    writer.finish();
  }
  EXPECT_EQ(chunkRows(run), 3);
  EXPECT_EQ(store.counts(run).timelineEvents, int64_t(a.size() + b.size()));
  std::vector<std::string> expected;
  for (const auto& e : a) expected.push_back(describe(e));
  for (const auto& e : b) expected.push_back(describe(e));
  EXPECT_EQ(events(store, run), expected);

  // A writer that does not finish (a failed import) stores its full chunks only.
  const int64_t failed = store.createRun(named("failed"));
  {
    RunStore::TimelineWriter writer(store, failed);
    for (const auto& e : a) writer.add(e);
  }
  EXPECT_LE(store.counts(failed).timelineEvents, int64_t(kTimelineChunkEvents));
  store.deleteRun(failed);
  EXPECT_EQ(store.counts(failed).total(), 0);
  EXPECT_EQ(chunkRows(failed), 0);
}

// A lane of events with long args (1 MiB each) fills chunks by their bytes long before their count: every
// chunk stays small enough to unpack and for an import to hold, live appends and bulk writes alike.
TEST_F(TimelineStore, ALaneOfLargeEventsIsStoredInChunksOfBoundedSize) {
  std::vector<v1::TimelineEvent> lane;
  for (int i = 0; i < 24; ++i) {
    lane.push_back(event(0, "io", "read", 1000 * i, 1000 * i + 10, 0,
                         {{"buffer", std::string(size_t{1} << 20, char('a' + i))}}));
  }
  std::vector<std::string> expected;
  for (const auto& e : lane) expected.push_back(describe(e));
  RunStore store(file());
  const int64_t bulk = store.createRun(named("bulk"));
  {
    RunStore::TimelineWriter writer(store, bulk);
    for (const auto& e : lane) writer.add(e);
    writer.finish();
  }
  const int64_t live = store.createRun(named("live"));
  for (const auto& e : lane) store.appendTimeline(live, {e});
  store.setRunStatus(live, "finished");
  const int64_t perChunk = int64_t(ringmaster::kTimelineChunkBytes >> 20) + 1;
  for (int64_t run : {bulk, live}) {
    EXPECT_GE(chunkRows(run), int64_t(lane.size()) / perChunk) << "run " << run;
    EXPECT_EQ(events(store, run), expected) << "run " << run;
  }
}

TEST_F(TimelineStore, ARangeReadsOnlyTheChunksThatMayHoldIt) {
  RunStore store(file());
  const int64_t run = store.createRun(named("long"));
  const auto lane = tensorLane(0, "comm", 4 * kTimelineChunkEvents);
  {
    RunStore::TimelineWriter writer(store, run);
    for (const auto& e : lane) writer.add(e);
    writer.finish();
  }
  // A range inside the third chunk, cutting two events.
  const auto& first = lane[2 * kTimelineChunkEvents + 100];
  const auto& last = lane[2 * kTimelineChunkEvents + 200];
  const int64_t from = first.start_ns() + 1, to = last.end_ns() - 1;
  std::vector<std::string> expected;
  for (const auto& e : lane) {
    if (e.start_ns() < to && e.end_ns() >= from) expected.push_back(describe(e));
  }
  ASSERT_EQ(expected.size(), 101u);
  EXPECT_EQ(events(store, run, from, to), expected);

  // Damage the first chunk: the range does not read it, the whole timeline does, and says which lane is
  // damaged instead of crashing; the run's other records are untouched.
  execute(
      "UPDATE timeline_chunks SET data = substr(data, 1, length(data) - 9) WHERE id = "
      "(SELECT min(id) FROM timeline_chunks)");
  EXPECT_EQ(events(store, run, from, to), expected);
  try {
    events(store, run);
    FAIL() << "a damaged chunk was read";
  } catch (const StoreError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("lane 'comm'"), std::string::npos) << message;
    EXPECT_NE(message.find("damaged"), std::string::npos) << message;
  }
  EXPECT_EQ(store.counts(run).timelineEvents, int64_t(lane.size()));
  EXPECT_EQ(store.run(run)->name, "long");
}

TEST_F(TimelineStore, AStoreFromBeforeChunksOpensAndKeepsItsRowEvents) {
  // A version 3 store (a row per event) with one imported run.
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(file().c_str(), &db), SQLITE_OK);
    for (int v = 0; v < 3; ++v) {
      std::string sql(ringmaster::store_schema::migrations()[size_t(v)]);
      ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK) << v;
    }
    ASSERT_EQ(
        sqlite3_exec(db,
                     "INSERT INTO runs (name, status, source) VALUES ('old', 'imported', 'import:t.json');"
                     "INSERT INTO timeline_events VALUES (1, 0, 'compute', 'FORWARD', 100, 200, 3, NULL);"
                     "INSERT INTO timeline_events VALUES (1, 1, 'comm', 'ALLREDUCE', 150, 900, 3, "
                     "'{\"bytes\":\"4096\"}');"
                     "PRAGMA application_id = 1380404563; PRAGMA user_version = 3;",
                     nullptr, nullptr, nullptr),
        SQLITE_OK);
    sqlite3_close(db);
  }
  RunStore store(file());
  EXPECT_EQ(store.openedSchemaVersion(), 3);
  EXPECT_EQ(store.schemaVersion(), ringmaster::store_schema::kCurrentVersion);
  const int64_t run = store.resolveRun("old");
  EXPECT_EQ(store.counts(run).timelineEvents, 2);
  const std::vector<std::string> old = {"0|compute|FORWARD|100|200|3",
                                        "1|comm|ALLREDUCE|150|900|3|bytes=4096"};
  EXPECT_EQ(events(store, run), old);
  EXPECT_EQ(events(store, run, 250, 300), std::vector<std::string>{old[1]});

  // New events of the same run go into chunks; both are read, the rows first.
  store.appendTimeline(run, {event(0, "compute", "BACKWARD", 300, 400, 3)});
  auto all = old;
  all.push_back("0|compute|BACKWARD|300|400|3");
  EXPECT_EQ(events(store, run), all);
  EXPECT_EQ(store.counts(run).timelineEvents, 3);

  // Clipping absurd ends reaches both forms.
  const auto clipped = store.clipTimelineEnds(run, 500);
  EXPECT_EQ(clipped.events, 1);
  EXPECT_EQ(clipped.longestNs, 750);
  EXPECT_EQ(clipped.clippedToNs, 400);
  EXPECT_EQ(events(store, run)[1], "1|comm|ALLREDUCE|150|400|3|bytes=4096|recorded_dur_ns=750");

  store.deleteRun(run);
  EXPECT_EQ(store.counts(run).total(), 0);
}

TEST_F(TimelineStore, ClippingRewritesOnlyTheLateEventsOfAChunk) {
  RunStore store(file());
  const int64_t run = store.createRun(named("absurd"));
  std::vector<v1::TimelineEvent> lane;
  for (int i = 0; i < 10; ++i) lane.push_back(event(0, "thread 1", "op", i * 100, i * 100 + 50, uint64_t(i)));
  lane[4].set_end_ns(int64_t(9) * 24 * 3600 * 1'000'000'000);  // nine days
  store.appendTimeline(run, lane);
  const auto clipped = store.clipTimelineEnds(run, 2000);
  EXPECT_EQ(clipped.events, 1);
  EXPECT_EQ(clipped.clippedToNs, 950);
  const auto after = events(store, run);
  ASSERT_EQ(after.size(), lane.size());
  for (size_t i = 0; i < lane.size(); ++i) {
    if (i == 4) {
      EXPECT_EQ(after[i], "0|thread 1|op|400|950|4|recorded_dur_ns=777599999999600");
    } else {
      EXPECT_EQ(after[i], describe(lane[i]));
    }
  }
  // The rewritten chunk knows its new end: a range after the plausible end finds nothing.
  EXPECT_TRUE(events(store, run, 1000, 1'000'000).empty());
}
