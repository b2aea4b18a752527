// SPDX-License-Identifier: GPL-3.0-or-later
// Runs N ranks as threads of the test process, each with its own real ProcessGroupGloo on loopback, meeting
// through one in-memory c10d::HashStore.
#pragma once

#include <chrono>
#include <exception>
#include <functional>
#include <memory>
#include <thread>
#include <torch/csrc/distributed/c10d/HashStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <vector>

#include "worker/gradient_engine.h"

namespace ringmaster::worker::testing {

struct TestRank {
  int rank = 0;
  int worldSize = 1;
  c10::intrusive_ptr<c10d::ProcessGroup> group;
  c10::intrusive_ptr<c10d::Store> store;
  std::unique_ptr<Probe> probe;

  EngineContext context(v1::HyperParameters hyper = {}, v1::FaultInjection faults = {}) const {
    EngineContext c;
    c.group = group;
    c.store = store;
    c.rank = rank;
    c.worldSize = worldSize;
    c.hyper = std::move(hyper);
    c.faults = std::move(faults);
    c.probe = probe.get();
    return c;
  }
};

inline c10::intrusive_ptr<c10d::ProcessGroup> makeLoopbackGloo(const c10::intrusive_ptr<c10d::Store>& store,
                                                               int rank, int worldSize) {
  auto options = c10d::ProcessGroupGloo::Options::create(std::chrono::seconds(60));
  options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1"));
  return c10::make_intrusive<c10d::ProcessGroupGloo>(store, rank, worldSize, options);
}

// Calls body(rank) on `worldSize` threads and rethrows the first failure after all have joined.
inline void runRanks(int worldSize, const std::function<void(TestRank&)>& body) {
  c10::intrusive_ptr<c10d::Store> store = c10::make_intrusive<c10d::HashStore>();
  std::vector<std::exception_ptr> failures(worldSize);
  std::vector<std::thread> threads;
  for (int r = 0; r < worldSize; ++r) {
    threads.emplace_back([&, r] {
      try {
        TestRank rank;
        rank.rank = r;
        rank.worldSize = worldSize;
        rank.store = store;
        rank.group = makeLoopbackGloo(store, r, worldSize);
        rank.probe = std::make_unique<Probe>(r, worldSize);
        body(rank);
      } catch (...) {
        failures[r] = std::current_exception();
      }
    });
  }
  for (auto& t : threads) t.join();
  for (auto& f : failures) {
    if (f) std::rethrow_exception(f);
  }
}

}  // namespace ringmaster::worker::testing
