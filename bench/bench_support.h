// SPDX-License-Identifier: GPL-3.0-or-later
// Small helpers for the store, import and report benchmarks: peak memory, CPU time, a run generator.
#pragma once

#include <sys/resource.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "ringmaster/v1/records.pb.h"

namespace ringmaster::bench {

namespace v1 = ::ringmaster::v1;

// Peak resident memory of this process so far (bytes).
inline uint64_t peakRssBytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return uint64_t(usage.ru_maxrss) * 1024;
}

// Starts a new peak-memory measurement: the process's peak resident size becomes its present one (Linux).
inline void resetPeakRss() {
  std::ofstream("/proc/self/clear_refs") << "5";
}

// Peak resident memory since the last resetPeakRss() (or the start), in bytes; 0 where /proc does not tell.
inline uint64_t peakRssSinceResetBytes() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::strtoull(line.c_str() + 6, nullptr, 10) * 1024;
  }
  return 0;
}

// CPU seconds (user + system) this process has used: on a shared machine, wall time alone says little.
inline double cpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         1e-6 * double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
}

inline double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// One step of a synthetic run: every rank's step sample, `buckets` all-reduce ops and a memory sample.
inline std::vector<v1::Record> syntheticStep(int ranks, uint64_t step, int buckets, std::mt19937_64& random) {
  std::normal_distribution<double> jitter(1, 0.03);
  std::vector<v1::Record> out;
  out.reserve(size_t(ranks) * size_t(2 + buckets));
  int64_t start = int64_t(step) * 80'000'000;
  for (int r = 0; r < ranks; ++r) {
    double slow = r == 5 && step > 100 ? 1.3 : 1.0;  // one straggler, so reports have a finding to show
    v1::Record rec;
    auto* s = rec.mutable_step();
    s->set_rank(r);
    s->set_step(step);
    s->set_start_ns(start);
    s->set_data_ns(int64_t(2e6 * jitter(random)));
    s->set_forward_ns(int64_t(20e6 * jitter(random) * slow));
    s->set_backward_ns(int64_t(40e6 * jitter(random) * slow));
    s->set_comm_wait_ns(int64_t(8e6 * jitter(random)));
    s->set_optimizer_ns(3'000'000);
    s->set_total_ns(80'000'000);
    s->set_samples(64);
    s->set_loss(2.3 * std::exp(-1e-4 * double(step)));
    s->set_lr(0.1);
    out.push_back(std::move(rec));
    for (int b = 0; b < buckets; ++b) {
      v1::Record op;
      auto* o = op.mutable_allreduce();
      o->set_rank(r);
      o->set_step(step);
      o->set_bucket(uint32_t(b));
      o->set_bytes(25u << 20);
      o->set_start_ns(start + 30'000'000 + b * 10'000'000);
      o->set_end_ns(o->start_ns() + int64_t(9e6 * jitter(random)));
      o->set_latency_us(double(o->end_ns() - o->start_ns()) / 1e3);
      o->set_algbw_gbps(double(o->bytes()) / double(o->end_ns() - o->start_ns()));
      o->set_busbw_gbps(o->algbw_gbps() * 2 * (ranks - 1) / ranks);
      o->set_tensors(12);
      out.push_back(std::move(op));
    }
    v1::Record mem;
    auto* m = mem.mutable_memory();
    m->set_rank(r);
    m->set_step(step);
    m->set_time_ns(start + 80'000'000);
    m->set_rss_bytes(uint64_t((2000 + 4 * jitter(random)) * 1048576));
    m->set_heap_bytes(uint64_t(1500 * 1048576.0));
    m->set_host_total_bytes(256ull << 30);
    out.push_back(std::move(mem));
  }
  return out;
}

}  // namespace ringmaster::bench
