// SPDX-License-Identifier: GPL-3.0-or-later
// Horovod timeline import: generates a Horovod-format timeline of the given size (default 1 GB) in /tmp,
// imports it into a fresh run store, and prints MB/s and the peak memory against the file's size (goal: no
// more than the file; chrome://tracing gives up near 256-800 MB). Everything it writes is deleted at the end.
//   import_timeline [MB] [--parse-only]
// --parse-only times the JSON reader and the conversion to timeline events, and skips the store.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>

#include "bench/bench_support.h"
#include "common/chrome_trace_reader.h"
#include "common/horovod_timeline_reader.h"
#include "tests/support/temp_dir.h"

using namespace ringmaster;
using namespace ringmaster::bench;

namespace {

// Writes like Horovod's TimelineWriter: tensors as processes, nested B/E phases, per-rank ticks in NEGOTIATE.
uint64_t writeTimeline(const std::string& path, uint64_t targetBytes, int ranks) {
  std::ofstream out(path, std::ios::binary);
  out << "[\n{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 0, \"args\": "
         "{\"start_time_since_epoch_in_micros\":1700000000000000}},\n";
  constexpr int kTensors = 160;
  for (int t = 0; t < kTensors; ++t) {
    out << "{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": " << t + 1
        << ", \"args\": {\"name\": \"DistributedOptimizer.Allreduce.grad.layer" << t << ".weight\"}},\n";
  }
  long ts = 0;
  std::string chunk;
  char line[256];
  while (uint64_t(out.tellp()) < targetBytes) {
    chunk.clear();
    std::snprintf(line, sizeof line,
                  "{\"ph\": \"i\", \"name\": \"CYCLE_START\", \"ts\": %ld, \"s\": \"g\"},\n", ts);
    chunk += line;
    for (int t = 1; t <= kTensors; ++t) {
      std::snprintf(line, sizeof line,
                    "{\"ph\": \"B\", \"name\": \"NEGOTIATE_ALLREDUCE\", \"ts\": %ld, \"pid\": %d},\n", ts, t);
      chunk += line;
      for (int r = 0; r < ranks; ++r) {
        std::snprintf(line, sizeof line,
                      "{\"ph\": \"X\", \"name\": \"%d\", \"ts\": %ld, \"pid\": %d, \"dur\": 0},\n", r,
                      ts + 3 * r, t);
        chunk += line;
      }
      ts += 3 * ranks + 5;
      std::snprintf(line, sizeof line, "{\"ph\": \"E\", \"ts\": %ld, \"pid\": %d},\n", ts, t);
      chunk += line;
      std::snprintf(line, sizeof line,
                    "{\"ph\": \"B\", \"name\": \"ALLREDUCE\", \"ts\": %ld, \"pid\": %d},\n", ts, t);
      chunk += line;
      for (const char* phase :
           {"QUEUE", "MEMCPY_IN_FUSION_BUFFER", "NCCL_ALLREDUCE", "MEMCPY_OUT_FUSION_BUFFER"}) {
        std::snprintf(line, sizeof line, "{\"ph\": \"B\", \"name\": \"%s\", \"ts\": %ld, \"pid\": %d},\n",
                      phase, ts, t);
        chunk += line;
        ts += 40;
        std::snprintf(line, sizeof line, "{\"ph\": \"E\", \"ts\": %ld, \"pid\": %d},\n", ts, t);
        chunk += line;
      }
      std::snprintf(
          line, sizeof line,
          "{\"ph\": \"E\", \"ts\": %ld, \"pid\": %d, \"args\": {\"dtype\": \"float32\", \"shape\": \"[512, "
          "512]\"}},\n",
          ts, t);
      chunk += line;
    }
    out << chunk;
  }
  out << "{\"ph\": \"i\", \"name\": \"END\", \"ts\": " << ts << ", \"s\": \"g\"}]";
  return uint64_t(out.tellp());
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t megabytes = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1000;
  bool parseOnly = argc > 2 && std::string(argv[2]) == "--parse-only";
  test::TempDir dir("import-bench");
  std::string timeline = dir.file("timeline.json");
  auto start = std::chrono::steady_clock::now();
  uint64_t bytes = writeTimeline(timeline, megabytes * 1000 * 1000, 8);
  std::printf("import: generated a %.0f MB Horovod timeline (8 ranks, 160 tensors) in %.1f s\n",
              double(bytes) / 1e6, secondsSince(start));

  uint64_t rssBefore = peakRssBytes();
  // The JSON reader alone, then with the conversion to timeline events (no store), then the whole import.
  auto timed = [&](const char* what, const std::function<uint64_t(std::istream&)>& read) {
    std::ifstream in(timeline, std::ios::binary);
    auto began = std::chrono::steady_clock::now();
    double cpu = cpuSeconds();
    uint64_t events = read(in);
    double seconds = secondsSince(began);
    cpu = cpuSeconds() - cpu;
    std::printf("  %s: %llu events in %.1f s: %.1f MB/s (%.1f MB per CPU second)\n", what,
                (unsigned long long)events, seconds, double(bytes) / 1e6 / seconds,
                double(bytes) / 1e6 / cpu);
  };
  timed("JSON reader alone",
        [](std::istream& in) { return readChromeTrace(in, [](const TraceEvent&) {}).events; });
  timed("reader + timeline events", [](std::istream& in) {
    uint64_t events = 0;
    readTimeline(in, [&](v1::TimelineEvent&) { ++events; });
    return events;
  });
  if (parseOnly) return 0;
  RunStore store(dir.file("runs.sqlite"));
  start = std::chrono::steady_clock::now();
  double cpu = cpuSeconds();
  ImportResult result = importTimeline(store, timeline);
  double seconds = secondsSince(start);
  cpu = cpuSeconds() - cpu;
  uint64_t peak = peakRssBytes();
  std::printf(
      "  import into the store: %llu events on %d ranks in %.1f s: %.1f MB/s, %.0f events/s "
      "(%.1f MB per CPU second)\n",
      (unsigned long long)result.summary.timelineEvents, result.summary.ranks, seconds,
      double(bytes) / 1e6 / seconds, double(result.summary.timelineEvents) / seconds,
      double(bytes) / 1e6 / cpu);
  std::printf("  peak memory %.0f MB (before import %.0f MB) = %.3f of the file's size (goal <= 1)\n",
              double(peak) / 1e6, double(rssBefore) / 1e6, double(peak) / double(bytes));
  std::printf("  store file %.0f MB\n", double(std::filesystem::file_size(dir.file("runs.sqlite"))) / 1e6);
  return 0;
}
