// SPDX-License-Identifier: GPL-3.0-or-later
// Run store ingest: rows per second into a fresh SQLite store, in batches the way the console ingests a live
// run (timeline events, stored in chunks, count as rows). Goal: at least 500 000 rows/s. Then the room the
// store takes per rank and step, each table with its index (SQLite's dbstat): goal for the steps, 20 bytes.
#include <sqlite3.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <random>
#include <string>

#include "bench/bench_support.h"
#include "history/run_store.h"
#include "tests/support/temp_dir.h"

using namespace ringmaster;
using namespace ringmaster::bench;

namespace {

double ingest(RunStore& store, int64_t run, const std::vector<std::vector<v1::Record>>& batches,
              uint64_t& rows) {
  auto start = std::chrono::steady_clock::now();
  for (const auto& batch : batches) {
    store.append(run, batch);
    rows += batch.size();
  }
  return secondsSince(start);
}

// Bytes each table takes in the store file at `path`, its indexes counted with it ("steps_by_run" with
// "steps"), from SQLite's dbstat table.
std::map<std::string, double> bytesByTable(const std::string& path) {
  std::map<std::string, double> bytes;
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    std::fprintf(stderr, "store_ingest: cannot open %s: %s\n", path.c_str(), sqlite3_errmsg(db));
    sqlite3_close(db);
    return bytes;
  }
  sqlite3_stmt* query = nullptr;
  const char* sql =
      "SELECT coalesce(m.tbl_name, d.name), sum(d.pgsize) FROM dbstat d LEFT JOIN sqlite_schema m "
      "ON m.name = d.name GROUP BY 1";
  if (sqlite3_prepare_v2(db, sql, -1, &query, nullptr) != SQLITE_OK) {
    std::fprintf(stderr, "store_ingest: no dbstat in this SQLite: %s\n", sqlite3_errmsg(db));
  } else {
    while (sqlite3_step(query) == SQLITE_ROW) {
      bytes[reinterpret_cast<const char*>(sqlite3_column_text(query, 0))] = sqlite3_column_double(query, 1);
    }
  }
  sqlite3_finalize(query);
  sqlite3_close(db);
  return bytes;
}

}  // namespace

int main(int argc, char** argv) {
  int steps = argc > 1 ? std::atoi(argv[1]) : 2000;
  constexpr int kRanks = 64, kBuckets = 2;
  test::TempDir dir("store-bench");
  std::mt19937_64 random(1);

  // Batches of one step across 64 ranks (256 rows), as they arrive at about 100 ms intervals...
  std::vector<std::vector<v1::Record>> perStep;
  for (int s = 0; s < steps; ++s) perStep.push_back(syntheticStep(kRanks, uint64_t(s), kBuckets, random));
  // ...and the same rows in batches of ~10 000 (a console catching up on a journal).
  std::vector<std::vector<v1::Record>> large(1);
  for (const auto& batch : perStep) {
    for (const auto& r : batch) {
      if (large.back().size() == 10000) large.emplace_back();
      large.back().push_back(r);
    }
  }

  // ...and batches of one step of a live run with its timeline on: each rank's phases and all-reduce ops are
  // also timeline events (compute and comm lanes), whose open chunks are rewritten with every batch.
  std::vector<std::vector<v1::Record>> withTimeline = perStep;
  for (auto& batch : withTimeline) {
    const size_t records = batch.size();
    for (size_t i = 0; i < records; ++i) {
      auto event = [&](int rank, const char* lane, const char* name, int64_t start, int64_t end,
                       uint64_t step) {
        auto* e = batch.emplace_back().mutable_timeline();
        e->set_rank(rank);
        e->set_lane(lane);
        e->set_name(name);
        e->set_start_ns(start);
        e->set_end_ns(end);
        e->set_step(step);
      };
      if (batch[i].has_step()) {
        const v1::StepSample s = batch[i].step();
        int64_t t = s.start_ns();
        for (auto [name, ns] :
             {std::pair{"DATA", s.data_ns()}, std::pair{"FORWARD", s.forward_ns()},
              std::pair{"BACKWARD", s.backward_ns()}, std::pair{"OPTIMIZER", s.optimizer_ns()}}) {
          event(s.rank(), "compute", name, t, t + ns, s.step());
          t += ns;
        }
      } else if (batch[i].has_allreduce()) {
        const v1::AllreduceOp o = batch[i].allreduce();
        event(o.rank(), "comm", "ALLREDUCE", o.start_ns(), o.end_ns(), o.step());
      }
    }
  }

  std::printf("store ingest: %d ranks x %d steps, step + %d all-reduce + memory records per rank and step\n",
              kRanks, steps, kBuckets);
  for (const auto& [label, batches] :
       {std::pair{"batches of one step (256 rows)", &perStep}, std::pair{"batches of 10 000 rows", &large},
        std::pair{"one step with its timeline (640)", &withTimeline}}) {
    RunStore store(dir.file(std::string("runs-") + std::to_string(batches->size()) + ".sqlite"));
    int64_t run = store.createRun(NewRun{});
    uint64_t rows = 0;
    double cpu = cpuSeconds();
    double seconds = ingest(store, run, *batches, rows);
    cpu = cpuSeconds() - cpu;
    store.endRun(run, "finished", 1, {});  // its ranks' last steps go into chunks too
    double rate = double(rows) / seconds;
    std::printf(
        "  %-32s %9llu rows in %6.2f s = %9.0f rows/s  (goal 500 000: %.2fx; %.0f rows per CPU second)\n",
        label, (unsigned long long)rows, seconds, rate, rate / 500000, double(rows) / cpu);
  }
  // The room a rank's step takes, in the store written in batches of 10 000 rows (closed: everything is in
  // the file).
  const std::string path = dir.file("runs-" + std::to_string(large.size()) + ".sqlite");
  const double rankSteps = double(kRanks) * double(steps);
  const auto bytes = bytesByTable(path);
  std::printf("store size per rank and step (%d ranks x %d steps, tables with their indexes):\n", kRanks,
              steps);
  const auto of = [&](const char* table) {
    const auto it = bytes.find(table);
    return it == bytes.end() ? 0.0 : it->second / rankSteps;
  };
  // A run's steps are chunks once it ended; rows (from runs stored before chunks, or of a console that died)
  // count too.
  std::printf("  %-16s %7.1f bytes  (goal 20: %s; chunks %.1f, rows %.1f)\n", "steps",
              of("step_chunks") + of("steps"), of("step_chunks") + of("steps") <= 20 ? "met" : "not met",
              of("step_chunks"), of("steps"));
  for (const char* table : {"allreduce_ops", "memory_samples"})
    std::printf("  %-16s %7.1f bytes\n", table, of(table));
  std::printf("  %-16s %7.1f bytes (%d all-reduce ops and a memory sample a step)\n", "whole file",
              double(std::filesystem::file_size(path)) / rankSteps, kBuckets);
  return 0;
}
