// SPDX-License-Identifier: GPL-3.0-or-later
// bench/allreduce: all-reduce bandwidth of raw c10d Gloo against each engine's communication path (and raw
// NCCL where built and a GPU per rank exists), 2 and 4 ranks as real processes on this host.
//
// Times are medians over the iterations. algbw = bytes / time and busbw = algbw * 2(n-1)/n, as nccl-tests
// define them (GB = 1e9 bytes). An engine's time is its own collective, launched to completed, as the engine
// records it (AllreduceOp); "+step" is its whole step (beforeBackward, backward, finishBackward) minus the
// same backward without an engine: what it adds to deliver averaged gradients. Every path is measured once
// per round, in turn with the others, so that other work on a shared machine falls on all of them alike;
// "/ctl" is an engine's bandwidth against the raw all-reduce right after a backward (raw+bw), the setting it
// runs in. The measuring code is worker/comm_benchmark.cpp.
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "common/malloc_policy.h"
#include "tests/support/temp_dir.h"
#include "worker/comm_benchmark.h"

namespace {

using ringmaster::worker::CommBenchOptions;
using ringmaster::worker::CommBenchResult;

std::string sizeLabel(int64_t bytes) {
  if (bytes >= (1 << 20)) return std::to_string(bytes >> 20) + " MiB";
  return std::to_string(bytes >> 10) + " KiB";
}

void printTable(int world, const CommBenchResult& result) {
  const double factor = 2.0 * (world - 1) / world;
  auto algbw = [](int64_t bytes, double s) { return s > 0 ? static_cast<double>(bytes) / s / 1e9 : 0.0; };
  auto busbw = [&](int64_t bytes, double s) { return algbw(bytes, s) * factor; };
  std::printf(
      "\n%d ranks, float32, Gloo over loopback; time per all-reduce (us), bandwidth (GB/s); raw+bw: raw "
      "right "
      "after a backward; ratio: engine busbw / raw busbw; /ctl: engine busbw / raw+bw busbw; +step: what the "
      "engine's step adds to the bare backward (us); bw flt: minor page faults per bare backward; +flt: what "
      "the engine's step adds to them\n",
      world);
  std::printf("%8s | %9s %7s %7s | %9s %7s %7s | %9s %7s %5s %5s %9s %6s | %9s %7s %5s %5s %9s %6s", "size",
              "raw time", "algbw", "busbw", "raw+bw", "busbw", "bw flt", "ddp time", "busbw", "ratio", "/ctl",
              "+step", "+flt", "hvd time", "busbw", "ratio", "/ctl", "+step", "+flt");
  if (result.withNccl) std::printf(" | %9s %7s %7s", "nccl time", "algbw", "busbw");
  std::printf("\n");
  auto engineCell = [&](int64_t bytes, const ringmaster::worker::EngineCell& cell, double raw,
                        double control) {
    char added[16];
    // At or below zero: the bare backward's median was noisier than the engine's cost.
    if (cell.added > 0) {
      std::snprintf(added, sizeof added, "%9.1f", cell.added * 1e6);
    } else {
      std::snprintf(added, sizeof added, "%9s", "~0");
    }
    const double bw = busbw(bytes, cell.collective);
    const double faults = std::abs(cell.addedFaults) < 0.5 ? 0.0 : cell.addedFaults;  // no "-0"
    char text[96];
    std::snprintf(text, sizeof text, "%9.1f %7.3f %5.2f %5.2f %s %6.0f", cell.collective * 1e6, bw, bw / raw,
                  bw / control, added, faults);
    return std::string(text);
  };
  for (const auto& r : result.rows) {
    const double raw = busbw(r.bytes, r.raw);
    const double control = busbw(r.bytes, r.rawAfterBackward);
    std::printf("%8s | %9.1f %7.3f %7.3f | %9.1f %7.3f %7.0f | %s | %s", sizeLabel(r.bytes).c_str(),
                r.raw * 1e6, algbw(r.bytes, r.raw), raw, r.rawAfterBackward * 1e6, control, r.bareFaults,
                engineCell(r.bytes, r.ddp, raw, control).c_str(),
                engineCell(r.bytes, r.horovod, raw, control).c_str());
    if (result.withNccl) {
      std::printf(" | %9.1f %7.3f %7.3f", r.nccl * 1e6, algbw(r.bytes, r.nccl), busbw(r.bytes, r.nccl));
    }
    std::printf("\n");
  }
  if (!result.withNccl) std::printf("nccl rows: %s\n", result.ncclNote.c_str());
  std::fflush(stdout);
}

// The figures only mean something on an otherwise idle machine: say how idle it was.
void printLoad(const char* when) {
  double load[3] = {0, 0, 0};
  if (getloadavg(load, 3) == 3)
    std::printf("load average at the %s: %.2f %.2f %.2f\n", when, load[0], load[1], load[2]);
  std::fflush(stdout);
}

// Forks the ranks of one world size (before LibTorch has started any thread in this process) and waits.
bool runWorld(int world, const CommBenchOptions& options) {
  const ringmaster::test::TempDir dir("allreduce-" + std::to_string(world));
  const std::string storePath = dir.file("store");
  std::vector<pid_t> children;
  for (int rank = 0; rank < world; ++rank) {
    pid_t pid = fork();
    if (pid < 0) {
      std::perror("allreduce: fork");
      break;
    }
    if (pid == 0) {
      int code = 0;
      try {
        auto result = ringmaster::worker::runCommBenchRank(rank, world, storePath, options);
        if (rank == 0) printTable(world, result);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "allreduce: rank %d of %d failed: %s\n", rank, world, e.what());
        code = 1;
      }
      std::fflush(nullptr);
      _exit(code);
    }
    children.push_back(pid);
  }
  bool ok = static_cast<int>(children.size()) == world;
  for (pid_t pid : children) {
    int status = 0;
    waitpid(pid, &status, 0);
    ok = ok && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  }
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  CommBenchOptions options;
  std::vector<int> worlds{2, 4};
  double minKiB = 4, maxMiB = 256;
  CLI::App app{"All-reduce bandwidth: raw Gloo against the DDP and Horovod engines' communication paths"};
  app.add_option("--ranks", worlds, "World sizes to run, e.g. --ranks 2 4")->check(CLI::Range(2, 64));
  app.add_option("--min-kib", minKiB, "Smallest message (KiB)")->check(CLI::Range(1.0, 1048576.0));
  app.add_option("--max-mib", maxMiB, "Largest message (MiB)")->check(CLI::Range(0.001, 4096.0));
  app.add_option("--seconds-per-cell", options.secondsPerCell, "Measuring time per size and path (s)")
      ->check(CLI::Range(0.01, 60.0));
  app.add_option("--rounds", options.rounds,
                 "Rounds per size: every path is measured once per round, in turn with the others")
      ->check(CLI::Range(1, 100));
  app.add_option("--cycle-time-ms", options.cycleTimeMs, "Horovod cycle time (ms)")
      ->check(CLI::Range(0.01, 1000.0));
  CLI11_PARSE(app, argc, argv);
  // The ranks keep large blocks as ringmaster-worker's do, instead of faulting message buffers in every call.
  ringmaster::keepLargeAllocations(size_t{1} << 30);
  options.minBytes = static_cast<int64_t>(minKiB * 1024);
  options.maxBytes = static_cast<int64_t>(maxMiB * 1024 * 1024);

  std::printf(
      "ringmaster all-reduce benchmark: %s .. %s in powers of 4; ratio = engine busbw / raw Gloo busbw "
      "(goal >= 0.95 from 1 MiB)\n",
      sizeLabel(options.minBytes).c_str(), sizeLabel(options.maxBytes).c_str());
  printLoad("start");
  bool ok = true;
  for (int world : worlds) ok = runWorld(world, options) && ok;
  printLoad("end");
  return ok ? 0 : 1;
}
