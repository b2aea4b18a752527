// SPDX-License-Identifier: GPL-3.0-or-later
// Shared by the agent, launcher and telemetry integration tests and the console's tests: small real jobs, a
// sink that keeps what it is given, and process checks.
#pragma once

#include <signal.h>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/job_spec.h"
#include "console/session/record_sink.h"
#include "ringmaster/v1/agent.pb.h"
#include "tests/support/files.h"
#include "tests/support/ports.h"
#include "tests/support/process.h"
#include "tests/support/temp_dir.h"
#include "tests/support/wait.h"

namespace ringmaster::test {

namespace v1 = ::ringmaster::v1;

// A small, quick job: an MLP on synthetic data, plain SGD.
inline v1::JobSpec smallJob(int ranks, uint64_t steps) {
  v1::JobSpec spec = defaultJobSpec();
  spec.set_world_size(static_cast<uint32_t>(ranks));
  spec.set_model(v1::MODEL_MLP);
  spec.set_dataset(v1::DATASET_SYNTHETIC);
  spec.mutable_hyper()->set_batch_size(16);
  spec.mutable_hyper()->set_steps(steps);
  spec.mutable_hyper()->set_epochs(0);
  spec.set_rendezvous_timeout_s(60);
  return spec;
}

// A launch of job `jobId` on this machine: its rank 0, the only one here, of a `worldSize`-rank job (the
// other ranks, where there are any, never come, so rank 0 waits at the rendezvous).
inline v1::LaunchRequest firstRankOf(const std::string& jobId, v1::JobSpec spec, int worldSize) {
  v1::LaunchRequest request;
  request.set_job_id(jobId);
  spec.set_world_size(worldSize);
  *request.mutable_spec() = std::move(spec);
  request.set_first_rank(0);
  request.set_local_ranks(1);
  request.set_world_size(worldSize);
  request.set_master_addr("127.0.0.1");
  request.set_master_port(static_cast<uint32_t>(freePort()));
  return request;
}

// A launch of rank 0 of a 2-rank job: rank 1 never comes, so rank 0 waits at the rendezvous (alive, idle).
inline v1::LaunchRequest waitingRank(const std::string& jobId) {
  v1::JobSpec spec = smallJob(2, 10);
  spec.set_rendezvous_timeout_s(120);
  return firstRankOf(jobId, std::move(spec), 2);
}

// Alive and not a zombie.
inline bool processAlive(int pid) {
  if (::kill(pid, 0) != 0) return false;
  const std::string text = readFile("/proc/" + std::to_string(pid) + "/stat");
  size_t paren = text.rfind(')');
  return paren == std::string::npos || text.size() < paren + 3 || text[paren + 2] != 'Z';
}

// Keeps every record it is given, for the test to inspect.
class RecordCollector : public console::RecordSink {
 public:
  void onRecords(const std::string&, const std::string& host,
                 const std::vector<v1::Record>& records) override {
    std::lock_guard lock(mutex_);
    for (const auto& r : records) {
      records_.push_back(r);
      hosts_.push_back(host);
    }
    changed_.notify_all();
  }
  std::vector<v1::Record> records() const {
    std::lock_guard lock(mutex_);
    return records_;
  }
  // Waits until `done(records)` holds, up to `timeout`.
  bool waitFor(const std::function<bool(const std::vector<v1::Record>&)>& done,
               std::chrono::milliseconds timeout) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, timeout, [&] { return done(records_); });
  }
  // Process ids of started ranks, by rank.
  std::map<int, int> pids() const {
    std::lock_guard lock(mutex_);
    std::map<int, int> out;
    for (const auto& r : records_) {
      if (r.has_rank_state() && r.rank_state().state() == v1::RankState::STATE_RUNNING) {
        out[r.rank_state().rank()] = r.rank_state().pid();
      }
    }
    return out;
  }

 private:
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<v1::Record> records_;
  std::vector<std::string> hosts_;
};

// Ranks that reported at least `steps` steps.
inline int ranksPastStep(const std::vector<v1::Record>& records, uint64_t steps) {
  std::map<int, uint64_t> done;
  for (const auto& r : records) {
    if (r.has_step()) done[r.step().rank()] = std::max(done[r.step().rank()], r.step().step() + 1);
  }
  int n = 0;
  for (const auto& [rank, count] : done) n += count >= steps ? 1 : 0;
  return n;
}

}  // namespace ringmaster::test
