// SPDX-License-Identifier: GPL-3.0-or-later
// Bringing the ranks together: the job's c10d::TCPStore (rank 0 serves it on MASTER_PORT), an arrival
// roll-call with a deadline, each rank's clock offset to rank 0, and the process group the engines
// communicate over.
#pragma once

#include <chrono>
#include <stdexcept>
#include <string>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <torch/csrc/distributed/c10d/Store.hpp>
#include <vector>

#include "common/job_spec.h"
#include "worker/clock_sync.h"
#include "worker/probe.h"
#include "worker/torchrun_env.h"

namespace ringmaster::worker {

// The ranks could not be brought together (someone never arrived, the store went away, the network failed).
class RendezvousError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// "1, 3" for the roll-call messages.
std::string joinRanks(const std::vector<int>& ranks);
// "2.5" (seconds) for messages.
std::string formatSeconds(std::chrono::milliseconds duration);

class Rendezvous {
 public:
  // Connects to (or, on rank 0, serves) the store, waits until every rank has arrived or `timeout` passes,
  // then measures the clock offset and calibrates `probe`'s clock. Throws RendezvousError.
  Rendezvous(const TorchrunEnv& env, std::chrono::milliseconds timeout, Probe& probe);
  ~Rendezvous();
  Rendezvous(const Rendezvous&) = delete;
  Rendezvous& operator=(const Rendezvous&) = delete;

  // The process group for `backend`: Gloo on the interfaces named by GLOO_SOCKET_IFNAME, or else on the local
  // address that routes to MASTER_ADDR; NCCL where the build has it. Throws InputError for a backend this
  // build lacks.
  c10::intrusive_ptr<c10d::ProcessGroup> createProcessGroup(v1::Backend backend);

  // Tells the others this rank is done with the store; on rank 0 (which serves it), waits up to 30 s until
  // all have, so that no rank loses the store while still using it. Call it after a successful run.
  void finish();

  const c10::intrusive_ptr<c10d::Store>& store() const { return store_; }
  const ClockSync& clock() const { return clock_; }
  const TorchrunEnv& env() const { return env_; }

 private:
  void rollCall(std::chrono::milliseconds timeout);
  void synchroniseClocks();

  TorchrunEnv env_;
  c10::intrusive_ptr<c10d::Store> store_;
  ClockSync clock_;
  bool finished_ = false;
};

}  // namespace ringmaster::worker
