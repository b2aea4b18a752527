// SPDX-License-Identifier: GPL-3.0-or-later
// Ringmaster's probe for a user's own C++ training program: started by `ringmaster run -np N -- ./program`,
// each rank reports its steps (with their phases), all-reduce ops, memory and logged scalars to the host's
// agent, and the console shows, diagnoses and stores the run as it does its own.
//
//   ringmaster::Probe probe;                    // reads the environment `ringmaster run` sets
//   for (...) {
//     ringmaster::Step step(probe, batchSize);  // the step begins, waiting for data
//     auto batch = next();
//     step.phase(ringmaster::Phase::Forward);
//     auto loss = forward(batch);
//     step.phase(ringmaster::Phase::Backward);
//     loss.backward();
//     step.phase(ringmaster::Phase::CommWait);
//     int64_t start = probe.now();
//     allreduceGradients();
//     probe.allreduce(bytes, start, probe.now());
//     step.phase(ringmaster::Phase::Optimizer);
//     optimizer.step();
//     probe.log("loss", loss.item<double>());
//   }                                           // the step ends with its scope
//
// Outside `ringmaster run` (no RINGMASTER_AGENT) the probe does nothing and the program trains as it would.
// Training never waits on the probe: records go into a bounded buffer that a background thread sends; when
// the buffer is full or the agent is gone they are dropped and counted.
//
// Plain C++17, no gRPC, protobuf or LibTorch types: link Ringmaster::probe from find_package(Ringmaster).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

// The library exports these names only.
#define RINGMASTER_PROBE_API __attribute__((visibility("default")))

namespace ringmaster {

// What a rank does within a step; named as the console's step breakdown and timeline lanes are.
enum class Phase {
  Data,       // waiting for the next batch
  Forward,    // forward pass, the loss included
  Backward,   // backward compute, before waiting on communication
  CommWait,   // exposed communication wait: all-reduces the backward pass did not hide
  Optimizer,  // the optimizer's step
};

// The part of a key-value store (c10d::Store, a TCPStore) that aligning clocks across hosts needs.
struct ClockStore {
  std::function<void(const std::string& key, const std::string& value)> set;
  // Waits until `key` has been set, and returns its value.
  std::function<std::string(const std::string& key)> get;
};

class RINGMASTER_PROBE_API Probe {
 public:
  // Connects to the agent named by RINGMASTER_AGENT (with RINGMASTER_JOB_ID and RINGMASTER_JOB_SECRET), as
  // rank RANK of WORLD_SIZE. Without RINGMASTER_AGENT it is inactive. Malformed variables are said once on
  // stderr and leave it inactive: the program trains on either way.
  Probe();
  // Sends the last step and the rank's summary, and what is left in the buffer (waiting a few seconds at
  // most).
  ~Probe();
  Probe(const Probe&) = delete;
  Probe& operator=(const Probe&) = delete;

  // Whether records go anywhere.
  bool active() const;
  int rank() const;
  int worldSize() const;

  // Nanoseconds on the job's clock, the time base of every record (for allreduce()'s start and end).
  int64_t now() const;
  // Aligns this rank's clock with rank 0's, so that the ranks' timelines line up across hosts and start at
  // the job's start: every rank calls it once, at the same point (say after its process group is up), with
  // the program's store (keys under "ringmaster/"). Throws what the store throws (a rank that never arrives).
  void alignClock(const ClockStore& store);

  // The epoch the following steps belong to.
  void setEpoch(uint32_t epoch);

  // One all-reduce of `bytes` that ran from `startNs` to `endNs` (now()'s clock), in the step in progress (or
  // the next one). `bucket` numbers the all-reduces of a step, `tensors` counts the tensors it carried.
  void allreduce(uint64_t bytes, int64_t startNs, int64_t endNs, uint32_t bucket = 0, uint32_t tensors = 1);

  // A named value of the step in progress, or of the step that just ended. "loss" is also the step's loss;
  // "accuracy" or "test_accuracy" the rank's accuracy in its summary. A name is UTF-8 text; other bytes in it
  // become U+FFFD.
  void log(const std::string& name, double value);

  // The console asked the run to stop: finish this step and leave the training loop.
  bool stopRequested() const;

  // Records handed to the agent, and records dropped (buffer full, agent gone), so far.
  uint64_t recordsSent() const;
  uint64_t recordsDropped() const;

 private:
  class Impl;
  friend class Step;
  std::unique_ptr<Impl> impl_;
};

// One optimizer step of this rank, from construction (waiting for data) to destruction. Time goes to the
// phase set last; samples are what this rank processed in the step.
class RINGMASTER_PROBE_API Step {
 public:
  Step(Probe& probe, uint32_t samples);
  ~Step();
  Step(const Step&) = delete;
  Step& operator=(const Step&) = delete;

  // The step's index (0, 1, ... per probe).
  uint64_t index() const { return index_; }
  // Ends the current phase and begins `phase`.
  void phase(Phase phase);
  // The step's training loss (as log("loss", value)).
  void loss(double value);
  void samples(uint32_t samples);

  // Times a phase from construction to destruction, then goes back to the phase the step was in.
  class RINGMASTER_PROBE_API Scope {
   public:
    Scope(Step& step, Phase phase);
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    Step& step_;
    Phase previous_;
  };

 private:
  Probe::Impl* probe_;
  uint64_t index_;
  int exceptions_;  // uncaught when the step began
  Phase phase_ = Phase::Data;
};

}  // namespace ringmaster
