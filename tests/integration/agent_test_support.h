// SPDX-License-Identifier: GPL-3.0-or-later
// Shared by the agent, launcher and telemetry integration tests: temporary folders, small real jobs, a sink that
// keeps what it is given, and process checks.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/job_spec.h"
#include "console/record_sink.h"
#include "tests/integration/process.h"

namespace ringmaster::test {

namespace v1 = ::ringmaster::v1;

class TempDir {
 public:
  explicit TempDir(const std::string& tag) {
    path_ = std::filesystem::temp_directory_path() / ("rm-" + tag + "-" + std::to_string(::getpid()) + "-" +
                                                      std::to_string(counter()++));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string path() const { return path_.string(); }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  static int& counter() {
    static int n = 0;
    return n;
  }
  std::filesystem::path path_;
};

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

inline int freePort() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  ::close(fd);
  return ntohs(address.sin_port);
}

// Alive and not a zombie.
inline bool processAlive(int pid) {
  if (::kill(pid, 0) != 0) return false;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  size_t paren = text.rfind(')');
  return paren == std::string::npos || text.size() < paren + 3 || text[paren + 2] != 'Z';
}

// Polls `done` every 10 ms for up to `timeout`.
inline bool eventually(const std::function<bool()>& done, std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return done();
}

// Keeps every record it is given, for the test to inspect.
class RecordCollector : public console::RecordSink {
 public:
  void onRecords(const std::string&, const std::string& host, const std::vector<v1::Record>& records) override {
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
  bool waitFor(const std::function<bool(const std::vector<v1::Record>&)>& done, std::chrono::milliseconds timeout) {
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
