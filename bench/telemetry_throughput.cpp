// SPDX-License-Identifier: GPL-3.0-or-later
// Telemetry throughput: load generators stream records through a real agent (gRPC Report, journal with fsync,
// Watch fan-out) to a watcher on loopback. Prints records/s and rank-to-watcher latency p50/p99.
//
// Each generator is a "rank": a thread recording into a Probe, drained by a TelemetrySession (the code ranks
// run) at the given interval. Latency runs from the moment a record is made in the rank to the moment the
// watcher holds it, so it includes the sender's batching interval.
//
//   telemetry_throughput [--seconds S] [--generators G] [--interval-ms MS]...
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <mutex>
#include <thread>

#include "agent/agent_server.h"
#include "common/clock.h"
#include "common/job_spec.h"
#include "common/malloc_policy.h"
#include "console/session/agent_client.h"
#include "tests/support/temp_dir.h"
#include "worker/probe.h"
#include "worker/telemetry_sender.h"

using namespace ringmaster;
using namespace std::chrono_literals;

namespace {

struct Result {
  double recordsPerS = 0;
  double p50Ms = 0;
  double p99Ms = 0;
  uint64_t delivered = 0;
  uint64_t dropped = 0;
};

double percentile(std::vector<double>& v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[static_cast<size_t>(p * static_cast<double>(v.size() - 1))];
}

// The job the generators report into: one rank that waits at the rendezvous for a rank that never comes,
// alive and idle, launched once (loading LibTorch costs seconds of CPU, which must not land inside a
// measurement). One watcher follows it for the whole program; each measurement marks its records with its own
// epoch.
class BenchJob {
 public:
  explicit BenchJob(agent::AgentServer& server)
      : client_({"127.0.0.1", server.port(), "", "", {}}), id_("bench-" + std::to_string(::getpid())) {
    v1::LaunchRequest request;
    request.set_job_id(id_);
    *request.mutable_spec() = defaultJobSpec();
    request.mutable_spec()->set_dataset(v1::DATASET_SYNTHETIC);
    request.mutable_spec()->set_model(v1::MODEL_MLP);
    request.mutable_spec()->set_world_size(2);
    request.mutable_spec()->set_rendezvous_timeout_s(3600);
    request.set_first_rank(0);
    request.set_local_ranks(1);
    request.set_world_size(2);
    request.set_master_addr("127.0.0.1");
    request.set_master_port(static_cast<uint32_t>(29500 + ::getpid() % 20000));
    v1::LaunchReply reply;
    if (auto status = client_.launch(request, reply); !status.ok()) {
      std::cerr << "cannot launch the bench job: " << status.error_message() << "\n";
      std::exit(1);
    }
    secret_ = rankSecret(reply.pids(0));
    watcher_ = std::make_unique<console::JournalFollower>(
        client_, id_, 1, [this](const std::vector<v1::Record>& records) { take(records); },
        [](const grpc::Status&) {});
    // Wait for the placeholder rank to start, then give it time to load LibTorch and settle at the
    // rendezvous.
    const auto deadline = std::chrono::steady_clock::now() + 30s;
    while (!started_ && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(10ms);
    std::this_thread::sleep_for(3s);
  }
  ~BenchJob() {
    client_.stop(id_, 1);
    watcher_.reset();
  }

  const std::string& id() const { return id_; }
  // The job's secret, which its ranks present: the generators report as its rank 0.
  const std::string& secret() const { return secret_; }

  // Starts counting the records marked `epoch`.
  void track(uint32_t epoch) {
    std::lock_guard lock(mutex_);
    epoch_ = epoch;
    delivered_ = 0;
    lastNs_ = 0;
    latenciesMs_.clear();
  }
  uint64_t delivered() const { return delivered_.load(); }
  int64_t lastNs() const { return lastNs_.load(); }
  std::vector<double> latenciesMs() {
    std::lock_guard lock(mutex_);
    return latenciesMs_;
  }

 private:
  void take(const std::vector<v1::Record>& records) {
    const int64_t now = monotonicNs();
    uint64_t mine = 0;
    std::lock_guard lock(mutex_);
    for (const auto& r : records) {
      if (r.has_rank_state()) started_ = true;
      if (!r.has_step() || r.step().epoch() != epoch_) continue;
      ++mine;
      // Sample every 16th record: plenty for p99, cheap.
      if ((r.step().step() & 15) == 0)
        latenciesMs_.push_back(static_cast<double>(now - r.step().start_ns()) / 1e6);
    }
    delivered_ += mine;
    if (mine) lastNs_ = now;
  }

  // What the agent gave the started rank in RINGMASTER_JOB_SECRET (the bench runs as the same user).
  static std::string rankSecret(int pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/environ", std::ios::binary);
    const std::string name = "RINGMASTER_JOB_SECRET=";
    for (std::string entry; std::getline(in, entry, '\0');) {
      if (entry.rfind(name, 0) == 0) return entry.substr(name.size());
    }
    std::cerr << "the bench job's rank (pid " << pid << ") has no RINGMASTER_JOB_SECRET\n";
    std::exit(1);
  }

  console::AgentClient client_;
  std::string id_;
  std::string secret_;
  std::unique_ptr<console::JournalFollower> watcher_;
  std::mutex mutex_;
  uint32_t epoch_ = 0;
  std::vector<double> latenciesMs_;
  std::atomic<uint64_t> delivered_{0};
  std::atomic<int64_t> lastNs_{0};
  std::atomic<bool> started_{false};
};

Result measure(BenchJob& job, const std::string& telemetryAddress, int generators, double seconds,
               int intervalMs, double rate, uint32_t epoch) {
  job.track(epoch);
  // Generators: each a rank's probe with its own sender thread, recording as fast as it can.
  std::atomic<bool> stop{false};
  std::vector<std::unique_ptr<worker::Probe>> probes;
  std::vector<std::unique_ptr<worker::TelemetrySession>> sessions;
  worker::TelemetryOptions options;
  options.agentAddress = telemetryAddress;
  options.jobId = job.id();
  options.secret = job.secret();
  options.interval = std::chrono::milliseconds(intervalMs);
  // Every generator reports as rank 0 of the job (the only rank this host runs); the probe is what differs.
  for (int g = 0; g < generators; ++g) {
    probes.push_back(std::make_unique<worker::Probe>(0, 2));
    sessions.push_back(std::make_unique<worker::TelemetrySession>(*probes.back(), options));
  }
  const int64_t firstNs = monotonicNs();
  std::vector<std::thread> threads;
  for (int g = 0; g < generators; ++g) {
    threads.emplace_back([&, g] {
      uint64_t step = 0;
      auto start = std::chrono::steady_clock::now();
      while (!stop.load(std::memory_order_relaxed)) {
        // Paced: a steady `rate` records/s per generator, as a training rank produces them.
        if (rate > 0 && (step & 63) == 0) {
          std::this_thread::sleep_until(start +
                                        std::chrono::duration<double>(static_cast<double>(step) / rate));
        }
        v1::StepSample s;
        s.set_step(step++);
        s.set_epoch(epoch);  // marks this measurement's records
        s.set_start_ns(monotonicNs());
        s.set_total_ns(1000000);
        s.set_samples(64);
        s.set_loss(0.5);
        probes[g]->step(std::move(s));
        // Keep just ahead of what the pipeline takes instead of spinning on a full buffer.
        if ((step & 1023) == 0 && probes[g]->buffer().dropped() > 0) std::this_thread::sleep_for(1ms);
      }
    });
  }
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  stop = true;
  for (auto& t : threads) t.join();
  uint64_t dropped = 0;
  for (auto& p : probes) dropped += p->buffer().dropped();
  sessions.clear();  // flushes what is left
  uint64_t pushed = 0;
  for (auto& p : probes) pushed += p->buffer().pushed();
  // Wait for the watcher to hold everything that was sent.
  auto deadline = std::chrono::steady_clock::now() + 30s;
  while (job.delivered() < pushed && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(10ms);

  Result result;
  result.delivered = job.delivered();
  result.dropped = dropped;
  double elapsed = static_cast<double>(job.lastNs() - firstNs) / 1e9;
  result.recordsPerS = elapsed > 0 ? static_cast<double>(result.delivered) / elapsed : 0;
  auto latencies = job.latenciesMs();
  result.p50Ms = percentile(latencies, 0.50);
  result.p99Ms = percentile(latencies, 0.99);
  return result;
}

}  // namespace

int main(int argc, char** argv) {
  double seconds = 5;
  int generators = 2;
  std::vector<int> intervals = {50, 10};
  double pacedRate = 20000;
  CLI::App app{"Telemetry throughput and latency through a real agent on loopback", "telemetry_throughput"};
  app.add_option("--seconds", seconds, "Seconds each measurement runs")->capture_default_str();
  app.add_option("--generators", generators, "Ranks generating records")->capture_default_str();
  app.add_option("--interval-ms", intervals, "Sender batching intervals to measure")->capture_default_str();
  app.add_option("--paced-rate", pacedRate, "Records/s per generator for the latency rows")
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  keepLargeAllocations(size_t{256} << 20);  // as the agent, the CLI and the ranks do (common/malloc_policy.h)

  const test::TempDir stateDir("bench-telemetry");
  agent::AgentOptions options;
  options.port = 0;
  options.stateDir = stateDir.path();
  uint32_t epoch = 424242;
  {
    agent::AgentServer server(options);
    BenchJob job(server);
    std::printf(
        "telemetry throughput: %d generator rank(s) -> agent (journal, fsync per batch) -> 1 watcher, "
        "loopback, %.0f s each\n",
        generators, seconds);
    std::printf("%-10s %-12s %14s %10s %10s %12s %10s\n", "load", "interval_ms", "records/s", "p50_ms",
                "p99_ms", "delivered", "dropped");
    // A second flat out first, not reported: gRPC's channels and buffers and the journal's file warm up.
    measure(job, server.telemetryAddress(), generators, 1.0, intervals.front(), 0.0, epoch++);
    // Flat out for throughput; then paced, as ranks produce records, for latency.
    for (double rate : {0.0, pacedRate}) {
      for (int interval : intervals) {
        Result r = measure(job, server.telemetryAddress(), generators, seconds, interval, rate, epoch++);
        std::string load = rate > 0 ? std::to_string(static_cast<int>(rate)) + "/s" : "max";
        std::printf("%-10s %-12d %14.0f %10.2f %10.2f %12llu %10llu\n", load.c_str(), interval, r.recordsPerS,
                    r.p50Ms, r.p99Ms, static_cast<unsigned long long>(r.delivered),
                    static_cast<unsigned long long>(r.dropped));
      }
    }
    std::printf("goals: >= 1000000 records/s flat out; p99 < 100 ms\n");
  }
  return 0;
}
