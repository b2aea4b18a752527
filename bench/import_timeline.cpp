// SPDX-License-Identifier: GPL-3.0-or-later
// Trace import: generates traces in /tmp, imports them into a fresh run store, and prints the import's MB/s,
// the store's growth and the peak memory against the traces' size. Everything it writes is deleted at the
// end.
//   import_timeline [MB] [--parse-only]   a Horovod-format timeline of MB (1000) megabytes
//   import_timeline --kineto [MB]         a folder of 8 per-rank PyTorch (Kineto) traces, MB (250) in all,
//                                         imported as one run and diagnosed
// --parse-only times the JSON reader and the conversion to timeline events, and skips the store.
// Goals: whole import >= 100 MB/s, store growth <= 0.25 x the traces, peak memory <= 0.25 x the traces; the
// Kineto folder imported and diagnosed in under a minute.
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>

#include "bench/bench_support.h"
#include "diagnosis/run_diagnosis.h"
#include "tests/support/temp_dir.h"
#include "traces/chrome_trace_reader.h"
#include "traces/horovod_timeline_reader.h"

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

// One rank's trace in the form current PyTorch writes (Kineto: an object with distributedInfo,
// baseTimeNanoseconds, CPU ops nested in modules, kernel launches with flows to GPU kernels, NCCL all-reduce
// with message sizes, the args Kineto gives each op). Each step: data loading, a forward and a backward over
// 20 layers, an all-reduce every 5 layers, an optimizer step. Rank 5 loads its data three times as slowly.
uint64_t writeKinetoTrace(const std::string& path, int rank, int worldSize, uint64_t targetBytes) {
  std::ofstream out(path, std::ios::binary);
  const int pid = 4100 + rank;
  out << "{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [{\"id\": 0, \"name\": \"NVIDIA H100 80GB "
         "HBM3\", "
         "\"totalGlobalMem\": 85045870592}],\n  \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": "
      << rank << ", \"world_size\": " << worldSize
      << "},\n  \"baseTimeNanoseconds\": 1700000000000000000,\n  \"traceEvents\": [\n"
      << "  {\"name\": \"process_name\", \"ph\": \"M\", \"ts\": 0, \"pid\": " << pid
      << ", \"tid\": 0, \"args\": {\"name\": \"python3\"}},\n"
      << "  {\"name\": \"thread_name\", \"ph\": \"M\", \"ts\": 0, \"pid\": " << pid << ", \"tid\": " << pid
      << ", \"args\": {\"name\": \"thread " << pid << " (python)\"}},\n"
      << "  {\"name\": \"process_name\", \"ph\": \"M\", \"ts\": 0, \"pid\": 0, \"tid\": 0, \"args\": "
         "{\"name\": "
         "\"GPU 0\"}},\n"
      << "  {\"name\": \"thread_name\", \"ph\": \"M\", \"ts\": 0, \"pid\": 0, \"tid\": 7, \"args\": "
         "{\"name\": "
         "\"stream 7\"}},\n"
      << "  {\"name\": \"thread_name\", \"ph\": \"M\", \"ts\": 0, \"pid\": 0, \"tid\": 20, \"args\": "
         "{\"name\": "
         "\"stream 20\"}}";
  constexpr int kLayers = 20;
  long external = 1, correlation = 1, eventIndex = 0, sequence = 1;
  std::string chunk;
  char line[1024];
  auto cpu = [&](const char* category, const char* name, double ts, double dur, const char* extra = "") {
    std::snprintf(line, sizeof line,
                  ",\n  {\"ph\": \"X\", \"cat\": \"%s\", \"name\": \"%s\", \"pid\": %d, \"tid\": %d, "
                  "\"ts\": %.3f, \"dur\": %.3f, \"args\": {\"External id\": %ld, \"Record function id\": 0, "
                  "\"Ev Idx\": %ld%s}}",
                  category, name, pid, pid, ts, dur, external++, eventIndex++, extra);
    chunk += line;
  };
  auto op = [&](const char* name, double ts, double dur) {
    char extra[256];
    std::snprintf(
        extra, sizeof extra,
        ", \"Sequence number\": %ld, \"Fwd thread id\": 0, \"Input Dims\": [[64, 512], [512, 512]], "
        "\"Input type\": [\"float\", \"float\"], \"Concrete Inputs\": [\"\", \"\"]",
        sequence++);
    cpu("cpu_op", name, ts, dur, extra);
  };
  // A kernel launch at `ts` and its kernel on `stream` at `kernelTs` (GPU), joined by a flow.
  auto kernel = [&](const char* name, int stream, double ts, double kernelTs, double dur) {
    const long id = correlation++;
    char extra[64];
    std::snprintf(extra, sizeof extra, ", \"correlation\": %ld, \"cbid\": 211", id);
    cpu("cuda_runtime", "cudaLaunchKernel", ts, 6, extra);
    std::snprintf(
        line, sizeof line,
        ",\n  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"%s\", \"pid\": 0, \"tid\": %d, "
        "\"ts\": %.3f, \"dur\": %.3f, \"args\": {\"External id\": %ld, \"queued\": 0, \"device\": 0, "
        "\"context\": 1, \"stream\": %d, \"correlation\": %ld, \"registers per thread\": 128, "
        "\"shared memory\": 16384, \"blocks per SM\": 1.5, \"warps per SM\": 6, \"grid\": [256, 1, 1], "
        "\"block\": [128, 1, 1], \"est. achieved occupancy %%\": 12}}",
        name, stream, kernelTs, dur, external - 1, stream, id);
    chunk += line;
    std::snprintf(
        line, sizeof line,
        ",\n  {\"ph\": \"s\", \"id\": %ld, \"pid\": %d, \"tid\": %d, \"ts\": %.3f, \"cat\": \"ac2g\", "
        "\"name\": \"ac2g\"},\n  {\"ph\": \"f\", \"id\": %ld, \"pid\": 0, \"tid\": %d, \"ts\": %.3f, "
        "\"cat\": \"ac2g\", \"name\": \"ac2g\", \"bp\": \"e\"}",
        id, pid, pid, ts, id, stream, kernelTs);
    chunk += line;
  };
  double t = 100.25;
  for (int step = 1; uint64_t(out.tellp()) < targetBytes; ++step) {
    chunk.clear();
    const double data = rank == 5 ? 2400 : 800;
    const double forward = t + 10 + data, backward = forward + kLayers * 70 + 10;
    const double optimizer = backward + kLayers * 100 + 10, end = optimizer + kLayers * 20 + 10;
    const std::string stepName = "ProfilerStep#" + std::to_string(step);
    cpu("user_annotation", stepName.c_str(), t, end - t);
    cpu("user_annotation", "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__", t + 5, data);
    cpu("user_annotation", "DistributedDataParallel.forward", forward, kLayers * 70);
    for (int i = 0; i < kLayers; ++i) {
      const double at = forward + i * 70;
      const std::string module = "nn.Module: Linear_" + std::to_string(i);
      std::snprintf(
          line, sizeof line,
          ",\n  {\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"%s\", \"pid\": %d, "
          "\"tid\": %d, \"ts\": %.3f, \"dur\": 65, \"args\": {\"Python id\": %d, \"Python parent id\": 2}}",
          module.c_str(), pid, pid, at, i + 3);
      chunk += line;
      op("aten::linear", at + 2, 60);
      op("aten::addmm", at + 4, 55);
      kernel("void gemm_fwd_kernel<float, 128, 128>(float const*, float const*, float*)", 7, at + 6, at + 16,
             50);
    }
    for (int j = 0; j < kLayers; ++j) {
      const double at = backward + j * 100;
      cpu("cpu_op", "autograd::engine::evaluate_function: AddmmBackward0", at, 80);
      op("AddmmBackward0", at + 1, 78);
      op("aten::mm", at + 3, 70);
      kernel("void gemm_bwd_kernel<float, 128, 128>(float const*, float const*, float*)", 7, at + 5, at + 12,
             85);
      if (j % 5 == 4) {
        cpu("user_annotation", "nccl:all_reduce", at + 82, 15);
        cpu("cpu_op", "record_param_comms", at + 83, 12,
            ", \"Collective name\": \"allreduce\", \"dtype\": \"Float\", \"In msg nelems\": 1310720, \"Out "
            "msg "
            "nelems\": 1310720, \"Group size\": 8, \"Process Group Name\": \"0\", \"Process Group Ranks\": "
            "\"[0, 1, "
            "2, 3, 4, 5, 6, 7]\", \"Rank\": 0");
        kernel("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)", 20, at + 84,
               at + 100, 400);
      }
    }
    cpu("user_annotation", "Optimizer.step#SGD.step", optimizer, kLayers * 20);
    for (int k = 0; k < kLayers; ++k) {
      const double at = optimizer + 1 + k * 20;
      op("aten::add_", at, 18);
      kernel("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>>", 7,
             at + 2, at + 10, 10);
    }
    std::snprintf(line, sizeof line,
                  ",\n  {\"ph\": \"X\", \"cat\": \"gpu_user_annotation\", \"name\": \"%s\", \"pid\": 0, "
                  "\"tid\": 7, \"ts\": %.3f, \"dur\": %.3f, \"args\": {\"External id\": %ld}}",
                  stepName.c_str(), forward + 16, end - forward - 16, external++);
    chunk += line;
    out << chunk;
    t = end + 20;
  }
  out << "\n]}\n";
  return uint64_t(out.tellp());
}

uint64_t storeBytes(const std::string& path) {
  uint64_t total = 0;
  for (const char* suffix : {"", "-wal"}) {
    std::error_code error;
    const auto size = std::filesystem::file_size(path + suffix, error);
    if (!error) total += size;
  }
  return total;
}

// Imports with `run`, then prints its speed, the store's growth and the peak memory against the goals.
void measureImport(const std::string& storePath, uint64_t bytes,
                   const std::function<ImportResult(RunStore&)>& run, bool diagnose) {
  RunStore store(storePath);
  const uint64_t storeBefore = storeBytes(storePath);
  resetPeakRss();
  const uint64_t rssBefore = peakRssSinceResetBytes();
  auto start = std::chrono::steady_clock::now();
  double cpu = cpuSeconds();
  ImportResult result = run(store);
  const double seconds = secondsSince(start);
  const double importCpu = cpuSeconds() - cpu;
  std::printf(
      "  import into the store: %llu events on %d ranks in %.1f s: %.1f MB/s (goal >= 100), %.0f events/s "
      "(%.1f MB per CPU second)\n",
      (unsigned long long)result.summary.timelineEvents, result.summary.ranks, seconds,
      double(bytes) / 1e6 / seconds, double(result.summary.timelineEvents) / seconds,
      double(bytes) / 1e6 / importCpu);
  if (diagnose) {
    auto began = std::chrono::steady_clock::now();
    const auto findings = diagnosis::storedFindings(store, result.runId);
    const double diagnosed = secondsSince(began);
    std::printf("  diagnosed in %.1f s: %zu findings; imported and diagnosed in %.1f s (goal < 60)\n",
                diagnosed, findings.size(), seconds + diagnosed);
    for (const auto& f : findings) std::printf("    - %s\n", f.summary().c_str());
  }
  const uint64_t peak = peakRssSinceResetBytes();
  const uint64_t growth = storeBytes(storePath) - storeBefore;
  std::printf("  store grew by %.1f MB = %.3f of the traces' size (goal <= 0.25)\n", double(growth) / 1e6,
              double(growth) / double(bytes));
  std::printf("  peak memory %.0f MB (%.0f MB before the import) = %.3f of the traces' size (goal <= 0.25)\n",
              double(peak) / 1e6, double(rssBefore) / 1e6, double(peak) / double(bytes));
}

int kinetoFolder(uint64_t megabytes) {
  constexpr int kRanks = 8;
  test::TempDir dir("import-bench");
  const std::string folder = dir.file("traces");
  std::filesystem::create_directories(folder);
  auto start = std::chrono::steady_clock::now();
  uint64_t bytes = 0;
  for (int r = 0; r < kRanks; ++r) {
    bytes += writeKinetoTrace(folder + "/worker" + std::to_string(r) + ".pt.trace.json", r, kRanks,
                              megabytes * 1000 * 1000 / kRanks);
  }
  std::printf("import: generated %d Kineto traces, %.0f MB in all, in %.1f s\n", kRanks, double(bytes) / 1e6,
              secondsSince(start));
  measureImport(
      dir.file("runs.sqlite"), bytes, [&](RunStore& store) { return importTraces(store, {folder}); }, true);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "--kineto") == 0) {
    return kinetoFolder(argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 250);
  }
  uint64_t megabytes = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1000;
  bool parseOnly = argc > 2 && std::string(argv[2]) == "--parse-only";
  test::TempDir dir("import-bench");
  std::string timeline = dir.file("timeline.json");
  auto start = std::chrono::steady_clock::now();
  uint64_t bytes = writeTimeline(timeline, megabytes * 1000 * 1000, 8);
  std::printf("import: generated a %.0f MB Horovod timeline (8 ranks, 160 tensors) in %.1f s\n",
              double(bytes) / 1e6, secondsSince(start));

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
  measureImport(
      dir.file("runs.sqlite"), bytes, [&](RunStore& store) { return importTimeline(store, timeline); },
      false);
  return 0;
}
