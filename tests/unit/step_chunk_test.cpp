// SPDX-License-Identifier: GPL-3.0-or-later
// The run store's step chunks: the codec on its own (every field back as written, whatever the values; damage
// told, never read as steps) and the store keeping a rank's steps in them (live, read back, forgotten from a
// step, deleted with the run).
#include "history/step_chunk.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <random>
#include <utility>

#include "history/run_store.h"
#include "tests/support/temp_dir.h"

using ringmaster::ChunkError;
using ringmaster::decodeStepChunk;
using ringmaster::kStepChunkSteps;
using ringmaster::RunStore;
using ringmaster::StepChunkEncoder;
namespace v1 = ringmaster::v1;

namespace {

// A training rank's step as Ringmaster's ranks report it: nanosecond phases that jitter, a loss that falls.
v1::StepSample trainingStep(int rank, uint64_t step, std::mt19937_64& random) {
  std::normal_distribution<double> jitter(1, 0.03);
  v1::StepSample s;
  s.set_rank(rank);
  s.set_step(step);
  s.set_epoch(uint32_t(step / 1000));
  s.set_start_ns(int64_t(step) * 80'000'000 + 123'456);
  s.set_data_ns(int64_t(2e6 * jitter(random)));
  s.set_forward_ns(int64_t(20e6 * jitter(random)));
  s.set_backward_ns(int64_t(40e6 * jitter(random)));
  s.set_comm_wait_ns(int64_t(8e6 * jitter(random)));
  s.set_optimizer_ns(3'000'000);
  s.set_total_ns(80'000'000);
  s.set_samples(64);
  s.set_loss(2.3 * std::exp(-1e-4 * double(step)));
  s.set_lr(0.1);
  return s;
}

std::vector<v1::StepSample> roundTrip(const std::vector<v1::StepSample>& steps, int rank,
                                      size_t* bytes = nullptr) {
  StepChunkEncoder encoder;
  for (const auto& s : steps) encoder.add(s);
  const std::string blob = encoder.encode();
  if (bytes) *bytes = blob.size();
  std::vector<v1::StepSample> out;
  decodeStepChunk(blob, rank, [&](v1::StepSample&& s) { out.push_back(std::move(s)); });
  return out;
}

// Field by field, doubles by their bits (a NaN loss stays the NaN it was).
void expectSame(const v1::StepSample& a, const v1::StepSample& b, size_t i) {
  EXPECT_EQ(a.rank(), b.rank()) << i;
  EXPECT_EQ(a.step(), b.step()) << i;
  EXPECT_EQ(a.epoch(), b.epoch()) << i;
  EXPECT_EQ(a.start_ns(), b.start_ns()) << i;
  EXPECT_EQ(a.data_ns(), b.data_ns()) << i;
  EXPECT_EQ(a.forward_ns(), b.forward_ns()) << i;
  EXPECT_EQ(a.backward_ns(), b.backward_ns()) << i;
  EXPECT_EQ(a.comm_wait_ns(), b.comm_wait_ns()) << i;
  EXPECT_EQ(a.optimizer_ns(), b.optimizer_ns()) << i;
  EXPECT_EQ(a.total_ns(), b.total_ns()) << i;
  EXPECT_EQ(a.samples(), b.samples()) << i;
  uint64_t la, lb, ra, rb;
  double al = a.loss(), bl = b.loss(), ar = a.lr(), br = b.lr();
  std::memcpy(&la, &al, 8), std::memcpy(&lb, &bl, 8), std::memcpy(&ra, &ar, 8), std::memcpy(&rb, &br, 8);
  EXPECT_EQ(la, lb) << i;
  EXPECT_EQ(ra, rb) << i;
}

}  // namespace

TEST(StepChunk, ATrainingRanksStepsComeBackExactlyInUnderTwentyBytesAStep) {
  std::mt19937_64 random(1);
  std::vector<v1::StepSample> steps;
  for (uint64_t i = 0; i < kStepChunkSteps; ++i) steps.push_back(trainingStep(3, 5000 + i, random));
  size_t bytes = 0;
  const auto back = roundTrip(steps, 3, &bytes);
  ASSERT_EQ(back.size(), steps.size());
  for (size_t i = 0; i < steps.size(); ++i) expectSame(steps[i], back[i], i);
  EXPECT_LT(double(bytes) / double(steps.size()), 20) << bytes << " bytes for " << steps.size() << " steps";
}

TEST(StepChunk, AnyValuesComeBackAsTheyWere) {
  std::mt19937_64 random(2);
  const double odd[] = {std::numeric_limits<double>::quiet_NaN(),
                        std::numeric_limits<double>::infinity(),
                        -std::numeric_limits<double>::infinity(),
                        -0.0,
                        1e-310,
                        -2.5};
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<v1::StepSample> steps;
    const size_t n = 1 + random() % (2 * kStepChunkSteps);
    for (size_t i = 0; i < n; ++i) {
      v1::StepSample s;
      s.set_rank(7);
      // Steps again after a restart, steps missing, a step's parts that do not add up to its total.
      s.set_step(trial % 3 == 0 ? random() % 50 : uint64_t(i * (1 + trial % 4)));
      s.set_epoch(uint32_t(trial % 5 == 0 ? random() : i / 100));
      s.set_start_ns(trial % 7 == 0 ? int64_t(random()) : int64_t(i) * 1'000'000);
      s.set_data_ns(trial % 2 ? int64_t(random()) : std::numeric_limits<int64_t>::min());
      s.set_forward_ns(int64_t(random() % 1000) - 500);
      s.set_backward_ns(std::numeric_limits<int64_t>::max() - int64_t(random() % 3));
      s.set_comm_wait_ns(0);
      s.set_optimizer_ns(int64_t(random() % 100));
      s.set_total_ns(trial % 2 ? int64_t(random()) : -1);
      s.set_samples(uint32_t(random()));
      s.set_loss(i % 9 == 0 ? odd[i % 6] : std::ldexp(double(random() % 1000), -int(random() % 60)));
      s.set_lr(trial % 4 == 0 ? odd[trial % 6] : 0.01);
      steps.push_back(s);
    }
    const auto back = roundTrip(steps, 7);
    ASSERT_EQ(back.size(), steps.size()) << "trial " << trial;
    for (size_t i = 0; i < steps.size(); ++i) expectSame(steps[i], back[i], i);
    if (HasFailure()) FAIL() << "trial " << trial;
  }
}

// What a chunk of no steps reads back as: nothing (the store writes none; a damaged blob may claim one).
TEST(StepChunk, AChunkOfNoStepsHoldsNone) {
  EXPECT_TRUE(roundTrip({}, 0).empty());
}

TEST(StepChunk, DamagedChunksAreToldAndNoStepIsRead) {
  std::mt19937_64 random(3);
  StepChunkEncoder encoder;
  for (uint64_t i = 0; i < 100; ++i) encoder.add(trainingStep(0, i, random));
  const std::string blob = encoder.encode();
  int told = 0, readWhole = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    std::string damaged = blob;
    if (trial % 2) {
      damaged.resize(random() % blob.size());
    } else {
      damaged[random() % damaged.size()] ^= char(1 + random() % 255);
    }
    size_t visited = 0;
    try {
      decodeStepChunk(damaged, 0, [&](v1::StepSample&&) { ++visited; });
      // A flipped byte deflate's checksum missed is the only way through, and then every step came.
      EXPECT_EQ(visited, 100u);
      ++readWhole;
    } catch (const ChunkError& e) {
      EXPECT_EQ(visited, 0u) << e.what();
      ++told;
    }
  }
  EXPECT_GT(told, 1900);
  EXPECT_THROW(decodeStepChunk("", 0, [](v1::StepSample&&) {}), ChunkError);
  EXPECT_THROW(decodeStepChunk(std::string(1, '\x09') + blob.substr(1), 0, [](v1::StepSample&&) {}),
               ChunkError);
}

namespace {

// Rows and chunks of steps the store holds for `runId`, read with SQLite itself.
std::pair<int64_t, int64_t> rowsAndChunks(const std::string& path, int64_t runId) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  auto count = [&](const std::string& table) {
    sqlite3_stmt* q = nullptr;
    sqlite3_prepare_v2(db, ("SELECT count(*) FROM " + table + " WHERE run_id = ?").c_str(), -1, &q, nullptr);
    sqlite3_bind_int64(q, 1, runId);
    int64_t n = sqlite3_step(q) == SQLITE_ROW ? sqlite3_column_int64(q, 0) : -1;
    sqlite3_finalize(q);
    return n;
  };
  auto out = std::make_pair(count("steps"), count("step_chunks"));
  sqlite3_close(db);
  return out;
}

class StepStore : public ::testing::Test {
 protected:
  // `steps` steps of `ranks` ranks as a live run sends them, a batch per step; what was sent, by rank.
  std::map<int, std::vector<v1::StepSample>> train(RunStore& store, int64_t id, int ranks, uint64_t from,
                                                   uint64_t to) {
    std::map<int, std::vector<v1::StepSample>> sent;
    for (uint64_t step = from; step < to; ++step) {
      std::vector<v1::Record> batch;
      for (int rank = 0; rank < ranks; ++rank) {
        v1::Record r;
        *r.mutable_step() = trainingStep(rank, step, random_);
        sent[rank].push_back(r.step());
        batch.push_back(std::move(r));
      }
      store.append(id, batch);
    }
    return sent;
  }
  void expectStored(const RunStore& store, int64_t id,
                    const std::map<int, std::vector<v1::StepSample>>& sent) {
    const auto series = store.rankSeries(id);
    ASSERT_EQ(series.size(), sent.size());
    for (const auto& s : series) {
      const auto& expected = sent.at(s.rank);
      ASSERT_EQ(s.steps.size(), expected.size()) << "rank " << s.rank;
      for (size_t i = 0; i < expected.size(); ++i) expectSame(expected[i], s.steps[i], i);
    }
  }
  static ringmaster::NewRun named(const std::string& name) {
    ringmaster::NewRun run;
    run.name = name;
    run.status = "running";
    return run;
  }

  ringmaster::test::TempDir dir_{"step-store"};
  std::string path_ = dir_.file("runs.sqlite");
  std::mt19937_64 random_{11};
};

}  // namespace

// A rank's steps go into chunks as they come: its last chunk, not yet full, is stored again with the batches
// (here every batch; at most once a second by default), a full one stays as it is. Read back at any time they
// are every step sent, field for field, and no step is a row.
TEST_F(StepStore, ALiveRunsStepsAreChunkedAsTheyComeAndReadBackWholeBeforeAndAfterItEnds) {
  RunStore::Options everyBatch;
  everyBatch.timelineFlushMs = 0;
  RunStore store(path_, everyBatch);
  const int64_t id = store.createRun(named("live"));
  auto sent = train(store, id, 3, 0, 2 * kStepChunkSteps + 40);
  // Each rank's first chunk holds from half a chunk to a whole one (ranks in step fill theirs at different
  // steps), the next a whole one, the last the rest: three chunks each, no rows.
  EXPECT_EQ(rowsAndChunks(path_, id), std::make_pair(int64_t(0), int64_t(3 * 3)));
  RunStore reader(path_);
  expectStored(reader, id, sent);
  EXPECT_EQ(reader.counts(id).steps, int64_t(3 * (2 * kStepChunkSteps + 40)));

  store.endRun(id, "finished", 1, {});
  EXPECT_EQ(rowsAndChunks(path_, id), std::make_pair(int64_t(0), int64_t(3 * 3)));
  expectStored(store, id, sent);
  EXPECT_EQ(store.counts(id).steps, int64_t(3 * (2 * kStepChunkSteps + 40)));
}

// The store that writes a run reads its steps whole even before its open chunks are due to be stored; another
// reader sees them once they are, and a store that closes stores them.
TEST_F(StepStore, OpenChunksAreReadByTheirWriterAtOnceAndStoredWhenTheStoreCloses) {
  RunStore::Options rarely;
  rarely.timelineFlushMs = 3'600'000;
  int64_t id = 0;
  {
    RunStore store(path_, rarely);
    id = store.createRun(named("closes"));
    train(store, id, 2, 0, kStepChunkSteps + 10);  // the first batch is stored at once, the rest an hour on
    EXPECT_LT(RunStore(path_).counts(id).steps, int64_t(2 * (kStepChunkSteps + 10)));
    EXPECT_EQ(store.rankSeries(id).at(0).steps.size(), size_t(kStepChunkSteps + 10));
    EXPECT_EQ(RunStore(path_).counts(id).steps, int64_t(2 * (kStepChunkSteps + 10)));
    train(store, id, 2, kStepChunkSteps + 10, kStepChunkSteps + 20);
  }
  EXPECT_EQ(RunStore(path_).counts(id).steps, int64_t(2 * (kStepChunkSteps + 20)));
}

// A restart forgets the steps from its checkpoint's on, in chunks and rows alike, and the steps trained again
// take their place; other runs keep theirs. Deleting a run deletes its chunks.
TEST_F(StepStore, ForgettingStepsCutsChunksAtTheStepAndDeletingARunLeavesNoChunk) {
  RunStore store(path_);
  const int64_t id = store.createRun(named("restarted"));
  const int64_t other = store.createRun(named("other"));
  auto sent = train(store, id, 2, 0, 2 * kStepChunkSteps + 40);
  auto otherSent = train(store, other, 2, 0, kStepChunkSteps + 5);
  const uint64_t checkpoint = kStepChunkSteps / 2 + 3;
  store.forgetStepsFrom(id, checkpoint);
  for (auto& [rank, steps] : sent) steps.resize(checkpoint);
  expectStored(store, id, sent);
  auto again = train(store, id, 2, checkpoint, checkpoint + kStepChunkSteps);
  for (auto& [rank, steps] : again) sent[rank].insert(sent[rank].end(), steps.begin(), steps.end());
  store.endRun(id, "finished", 1, {});
  expectStored(store, id, sent);
  expectStored(store, other, otherSent);

  store.deleteRun(id);
  EXPECT_EQ(rowsAndChunks(path_, id), std::make_pair(int64_t(0), int64_t(0)));
  expectStored(store, other, otherSent);
}
