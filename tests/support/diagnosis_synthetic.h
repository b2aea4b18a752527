// SPDX-License-Identifier: GPL-3.0-or-later
// Synthetic training runs with realistic noise for the detector tests (and the report, comparison and model
// tests and benches): per-rank hardware bias, per-step jitter, job-wide variation, occasional OS/GC spikes
// and data-loader hiccups; and such a run's series and metrics as the store would give them.
#pragma once

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "diagnosis/comparison.h"
#include "ringmaster/v1/records.pb.h"

namespace ringmaster::test {

namespace v1 = ::ringmaster::v1;

struct SyntheticRun {
  int ranks = 8;
  int steps = 200;
  uint64_t seed = 1;
  double forwardMs = 20, backwardMs = 40, dataMs = 2, optimizerMs = 3;
  double jitter = 0.03;       // per rank and step, lognormal sigma
  double rankBias = 0.01;     // per rank, persistent, normal sigma
  double jobJitter = 0.05;    // per step, all ranks alike
  double spikeChance = 0.01;  // a step 20-100% slower on one rank
  double dataHiccupChance = 0.01;
  int slowRank = -1;  // straggler injection
  int slowFrom = 0;
  double slowCompute = 0;  // extra compute fraction, e.g. 0.2
  double slowData = 0;     // extra data wait (ms)
  double slowCommUs = 0;   // extra all-reduce latency on slowRank (us)
  int leakRank = -1;
  double leakMiBPerStep = 0;
  double memoryNoiseMiB = 4;
  int bucketsPerStep = 2;
};

struct SyntheticRecords {
  std::vector<v1::Record> records;  // in arrival order: each step's ops, then samples, then memory
};

inline SyntheticRecords generate(const SyntheticRun& run) {
  std::mt19937_64 random(run.seed);
  std::normal_distribution<double> normal(0, 1);
  std::uniform_real_distribution<double> uniform(0, 1);
  std::vector<double> bias(size_t(run.ranks));
  for (double& b : bias) b = 1 + run.rankBias * normal(random);

  SyntheticRecords out;
  int64_t clock = 0;
  for (int step = 0; step < run.steps; ++step) {
    double job = std::exp(run.jobJitter * normal(random));
    std::vector<v1::StepSample> samples;
    double slowestOwn = 0;
    for (int r = 0; r < run.ranks; ++r) {
      double scale = job * bias[size_t(r)];
      double fwd = run.forwardMs * scale * std::exp(run.jitter * normal(random));
      double bwd = run.backwardMs * scale * std::exp(run.jitter * normal(random));
      double data = run.dataMs * std::exp(0.2 * normal(random));
      if (uniform(random) < run.spikeChance) bwd *= 1.2 + 0.8 * uniform(random);
      if (uniform(random) < run.dataHiccupChance) data *= 5;
      if (r == run.slowRank && step >= run.slowFrom) {
        fwd *= 1 + run.slowCompute;
        bwd *= 1 + run.slowCompute;
        data += run.slowData;
      }
      v1::StepSample s;
      s.set_rank(r);
      s.set_step(uint64_t(step));
      s.set_start_ns(clock);
      s.set_forward_ns(int64_t(fwd * 1e6));
      s.set_backward_ns(int64_t(bwd * 1e6));
      s.set_data_ns(int64_t(data * 1e6));
      s.set_optimizer_ns(int64_t(run.optimizerMs * 1e6));
      s.set_samples(64);
      s.set_loss(2.3 * std::exp(-0.01 * step));
      s.set_lr(0.1);
      slowestOwn = std::max(slowestOwn, fwd + bwd + data);
      samples.push_back(s);
    }
    // Everyone leaves the all-reduce together: the slowest rank sets the pace, the others wait.
    double commMs = 4;
    for (int r = 0; r < run.ranks; ++r) {
      auto& s = samples[size_t(r)];
      double own = double(s.forward_ns() + s.backward_ns() + s.data_ns()) / 1e6;
      double extraComm = (r == run.slowRank && step >= run.slowFrom) ? run.slowCommUs / 1e3 : 0;
      double wait = slowestOwn - own + commMs * 0.5 + extraComm;
      s.set_comm_wait_ns(int64_t(wait * 1e6));
      s.set_total_ns(int64_t((own + wait + run.optimizerMs) * 1e6));
      for (int b = 0; b < run.bucketsPerStep; ++b) {
        v1::Record rec;
        auto* op = rec.mutable_allreduce();
        op->set_rank(r);
        op->set_step(uint64_t(step));
        op->set_bucket(uint32_t(b));
        op->set_bytes(25u << 20);
        double latencyUs = (commMs * 1e3 / run.bucketsPerStep) * std::exp(0.1 * normal(random)) +
                           (wait * 1e3 / run.bucketsPerStep) * 0.5 + extraComm * 1e3 / run.bucketsPerStep;
        op->set_start_ns(clock);
        op->set_end_ns(clock + int64_t(latencyUs * 1e3));
        op->set_latency_us(latencyUs);
        op->set_algbw_gbps(double(op->bytes()) / (latencyUs * 1e3));
        op->set_busbw_gbps(op->algbw_gbps() * 2 * (run.ranks - 1) / run.ranks);
        op->set_tensors(10);
        out.records.push_back(std::move(rec));
      }
    }
    for (auto& s : samples) {
      v1::Record rec;
      *rec.mutable_step() = s;
      out.records.push_back(std::move(rec));
    }
    int64_t stepNs = samples[0].total_ns();
    for (int r = 0; r < run.ranks; ++r) {
      v1::Record rec;
      auto* m = rec.mutable_memory();
      m->set_rank(r);
      m->set_step(uint64_t(step));
      m->set_time_ns(clock + stepNs);
      double mib = 2000 + run.memoryNoiseMiB * normal(random);
      if (r == run.leakRank) mib += run.leakMiBPerStep * step;
      m->set_rss_bytes(uint64_t(mib * 1024 * 1024));
      m->set_heap_bytes(uint64_t(mib * 0.8 * 1024 * 1024));
      m->set_host_total_bytes(64ull << 30);
      out.records.push_back(std::move(rec));
    }
    clock += stepNs;
  }
  return out;
}

// `records` as the store keeps them: one series per rank.
inline std::vector<RankSeries> rankSeries(const std::vector<v1::Record>& records, int ranks) {
  std::vector<RankSeries> series(static_cast<size_t>(ranks));
  for (int r = 0; r < ranks; ++r) series[size_t(r)].rank = r;
  for (const auto& rec : records) {
    if (rec.has_step()) series[size_t(rec.step().rank())].steps.push_back(rec.step());
    if (rec.has_allreduce()) series[size_t(rec.allreduce().rank())].allreduce.push_back(rec.allreduce());
    if (rec.has_memory()) series[size_t(rec.memory().rank())].memory.push_back(rec.memory());
  }
  return series;
}

// The headline figures of `run`, stored as run `id` named `name`.
inline RunMetrics metricsOf(const SyntheticRun& run, int64_t id, const std::string& name) {
  RunInfo info;
  info.id = id;
  info.name = name;
  return computeMetrics(info, rankSeries(generate(run).records, run.ranks), {}, {});
}

// A rank's end as its agent reports it: STATE_EXITED with exit code `code`, STATE_SIGNALED by signal `code`.
inline v1::Record rankEnded(int rank, v1::RankState::State state, int code, const std::string& host,
                            const std::string& message = {}) {
  v1::Record r;
  auto* s = r.mutable_rank_state();
  s->set_rank(rank);
  s->set_state(state);
  if (state == v1::RankState::STATE_SIGNALED) s->set_signal(code);
  if (state == v1::RankState::STATE_EXITED) s->set_exit_code(code);
  s->set_message(message);
  s->set_host(host);
  return r;
}

// The finding of `kind` about `rank` among `findings`; null when there is none.
inline const v1::Finding* findingOf(const std::vector<v1::Finding>& findings, v1::Finding::Kind kind,
                                    int rank) {
  for (const auto& f : findings) {
    if (f.kind() == kind && f.rank() == rank) return &f;
  }
  return nullptr;
}

}  // namespace ringmaster::test
