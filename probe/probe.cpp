// SPDX-License-Identifier: GPL-3.0-or-later
// The probe library for users' C++ programs: the public API over the worker's own probe, buffer and telemetry
// sender, so that a program's records are the ones Ringmaster's worker and Python package send.
#include "ringmaster/probe.h"

#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <mutex>
#include <optional>
#include <thread>

#include "common/clock.h"
#include "common/printable.h"
#include "worker/clock_sync.h"
#include "worker/probe.h"
#include "worker/process_memory.h"
#include "worker/telemetry_sender.h"
#include "worker/torchrun_env.h"

namespace ringmaster {
namespace {

// About once a second, where the training thread is (what the Python package's ranks send), so that the
// console tells a rank that stopped from the ranks waiting for it.
constexpr auto kHeartbeatEvery = std::chrono::seconds(1);
// The heap figure walks the allocator's free lists: read every step of a fast loop it would cost more than
// the step's other records together, so it is read at most this often and carried over between reads.
constexpr int64_t kHeapEveryNs = 100'000'000;

// The sender's own heartbeats say no phase; this library beats with the program's phase instead.
worker::TelemetryOptions probeTelemetryOptions() {
  worker::TelemetryOptions options = worker::TelemetryOptions::fromEnvironment();
  options.heartbeats = false;
  return options;
}

const char* heartbeatName(Phase phase) {
  switch (phase) {
    case Phase::Data:
      return "data";
    case Phase::Forward:
      return "forward";
    case Phase::Backward:
      return "backward";
    case Phase::CommWait:
      return "comm_wait";
    case Phase::Optimizer:
      return "optimizer";
  }
  return "idle";
}

// The compute lane's event names (Horovod's style); exposed communication wait has none, as in the worker.
const char* timelineName(Phase phase) {
  switch (phase) {
    case Phase::Data:
      return "DATA";
    case Phase::Forward:
      return "FORWARD";
    case Phase::Backward:
      return "BACKWARD";
    case Phase::Optimizer:
      return "OPTIMIZER";
    case Phase::CommWait:
      break;
  }
  return nullptr;
}

void addPhaseTime(v1::StepSample& step, Phase phase, int64_t ns) {
  switch (phase) {
    case Phase::Data:
      step.set_data_ns(step.data_ns() + ns);
      break;
    case Phase::Forward:
      step.set_forward_ns(step.forward_ns() + ns);
      break;
    case Phase::Backward:
      step.set_backward_ns(step.backward_ns() + ns);
      break;
    case Phase::CommWait:
      step.set_comm_wait_ns(step.comm_wait_ns() + ns);
      break;
    case Phase::Optimizer:
      step.set_optimizer_ns(step.optimizer_ns() + ns);
      break;
  }
}

}  // namespace

// Everything lives here so that the public header shows no protobuf or gRPC. The training thread calls the
// step methods, any thread allreduce() and log(), the heartbeat thread reads where the step is: one short
// lock.
class Probe::Impl {
 public:
  Impl() {
    const char* agent = std::getenv("RINGMASTER_AGENT");
    if (!agent || !*agent) return;
    worker::TorchrunEnv env;
    try {
      env = worker::readTorchrunEnv();
    } catch (const std::exception& e) {
      std::cerr << "ringmaster probe: " << e.what() << "; this rank trains on without telemetry\n";
      return;
    }
    probe_ = std::make_unique<worker::Probe>(env.rank, env.worldSize);
    if (const char* timeline = std::getenv("RINGMASTER_TIMELINE"); timeline && std::string(timeline) == "1")
      probe_->setTimelineOn(true);
    session_ = std::make_unique<worker::TelemetrySession>(*probe_, probeTelemetryOptions());
    phaseSince_ = probe_->now();
    heartbeats_ = std::thread([this] { sendHeartbeats(); });
  }

  ~Impl() {
    if (!probe_) return;
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    heartbeats_.join();
    {
      std::lock_guard lock(mutex_);
      open_.reset();  // a step still in progress never ended and is not a step
      sendEndedLocked();
      v1::RankSummary summary;
      summary.set_final_loss(lastLoss_);
      summary.set_test_accuracy(accuracy_);
      summary.set_steps(steps_);
      summary.set_samples_per_s(
          stepNs_ > 0 ? static_cast<double>(samples_) / (static_cast<double>(stepNs_) * 1e-9) : 0.0);
      probe_->summary(std::move(summary));
    }
    session_.reset();  // sends what is left
  }

  bool active() const { return probe_ != nullptr; }
  int rank() const { return probe_ ? probe_->rank() : 0; }
  int worldSize() const { return probe_ ? probe_->worldSize() : 1; }
  int64_t now() const { return probe_ ? probe_->now() : monotonicNs(); }
  JobClock& clock() { return probe_->clock(); }

  uint64_t beginStep(uint32_t samples) {
    std::lock_guard lock(mutex_);
    const uint64_t index = nextStep_++;
    if (!probe_) return index;
    const int64_t now = probe_->now();
    if (open_) endStepLocked(now);
    sendEndedLocked();
    open_.emplace();
    open_->set_step(index);
    open_->set_epoch(epoch_);
    open_->set_start_ns(now);
    open_->set_samples(samples);
    enterLocked(Phase::Data, now);
    return index;
  }

  void endStep(uint64_t index) {
    std::lock_guard lock(mutex_);
    if (open_ && open_->step() == index) endStepLocked(probe_->now());
  }

  // The step's scope was left by an exception: it never ended and is not a step (the heartbeat keeps saying
  // where it stopped).
  void abandonStep(uint64_t index) {
    std::lock_guard lock(mutex_);
    if (open_ && open_->step() == index) open_.reset();
  }

  void phase(uint64_t index, Phase phase) {
    std::lock_guard lock(mutex_);
    if (!open_ || open_->step() != index) return;
    const int64_t now = probe_->now();
    closePhaseLocked(now);
    enterLocked(phase, now);
  }

  void setSamples(uint64_t index, uint32_t samples) {
    std::lock_guard lock(mutex_);
    if (open_ && open_->step() == index) open_->set_samples(samples);
  }

  void setEpoch(uint32_t epoch) {
    std::lock_guard lock(mutex_);
    epoch_ = epoch;
  }

  void allreduce(uint64_t bytes, int64_t startNs, int64_t endNs, uint32_t bucket, uint32_t tensors) {
    if (!probe_) return;
    uint64_t step = 0;
    {
      std::lock_guard lock(mutex_);
      step = open_ ? open_->step() : nextStep_;
    }
    v1::AllreduceOp op;
    op.set_step(step);
    op.set_bucket(bucket);
    op.set_bytes(bytes);
    op.set_start_ns(startNs);
    op.set_end_ns(endNs);
    op.set_tensors(tensors);
    probe_->allreduce(std::move(op));
    probe_->timeline("comm", "ALLREDUCE", startNs, endNs, step,
                     {{"bucket", std::to_string(bucket)},
                      {"bytes", std::to_string(bytes)},
                      {"tensors", std::to_string(tensors)}});
  }

  void log(const std::string& name, double value) {
    if (!probe_) return;
    uint64_t step = 0;
    {
      std::lock_guard lock(mutex_);
      v1::StepSample* target = open_ ? &*open_ : ended_ ? &*ended_ : nullptr;
      step = target ? target->step() : nextStep_;
      if (name == "loss" && target) target->set_loss(value);
      if (name == "accuracy" || name == "test_accuracy") accuracy_ = value;
    }
    v1::Record record;
    auto* scalar = record.mutable_scalar();
    scalar->set_rank(probe_->rank());
    scalar->set_step(step);
    scalar->set_name(validUtf8(name));  // the agent could not read a record whose name is not UTF-8
    scalar->set_value(value);
    probe_->record(std::move(record));
  }

  bool stopRequested() const { return session_ && session_->stopRequested(); }
  uint64_t recordsSent() const { return session_ ? session_->recordsSent() : 0; }
  uint64_t recordsDropped() const { return probe_ ? probe_->buffer().dropped() : 0; }

 private:
  void enterLocked(Phase phase, int64_t now) {
    phase_ = phase;
    heartbeatPhase_ = heartbeatName(phase);
    phaseSince_ = now;
  }

  void closePhaseLocked(int64_t now) {
    addPhaseTime(*open_, phase_, now - phaseSince_);
    if (const char* name = timelineName(phase_))
      probe_->timeline("compute", name, phaseSince_, now, open_->step());
  }

  // The step is kept until the next one begins, so that a loss logged after its scope still lands in it.
  void endStepLocked(int64_t now) {
    closePhaseLocked(now);
    open_->set_total_ns(now - open_->start_ns());
    const uint64_t index = open_->step();
    ended_ = std::move(open_);
    open_.reset();
    lastStep_ = static_cast<int64_t>(index);
    heartbeatPhase_ = "idle";
    phaseSince_ = now;
    ++steps_;
    samples_ += ended_->samples();
    stepNs_ += ended_->total_ns();

    if (!heapReadNs_ || now - *heapReadNs_ >= kHeapEveryNs) {
      heapBytes_ = worker::readHeapBytes();
      heapReadNs_ = now;
    }
    v1::MemorySample sample;
    sample.set_step(index);
    sample.set_time_ns(now);
    sample.set_rss_bytes(worker::readRssBytes());
    sample.set_heap_bytes(heapBytes_);
    sample.set_host_total_bytes(worker::hostTotalBytes());
    probe_->memory(std::move(sample));
  }

  void sendEndedLocked() {
    if (!ended_) return;
    lastLoss_ = ended_->loss();
    probe_->step(std::move(*ended_));
    ended_.reset();
  }

  void sendHeartbeats() {
    std::unique_lock lock(mutex_);
    while (!wake_.wait_for(lock, kHeartbeatEvery, [this] { return stopping_; })) {
      v1::Record record;
      auto* beat = record.mutable_heartbeat();
      beat->set_rank(probe_->rank());
      beat->set_last_step(lastStep_);
      beat->set_phase(heartbeatPhase_);
      beat->set_phase_since_ns(phaseSince_);
      beat->set_time_ns(probe_->now());
      probe_->record(std::move(record));
    }
  }

  std::unique_ptr<worker::Probe> probe_;
  std::unique_ptr<worker::TelemetrySession> session_;

  std::mutex mutex_;
  std::optional<v1::StepSample> open_;   // the step in progress
  std::optional<v1::StepSample> ended_;  // ended, not yet sent
  uint64_t nextStep_ = 0;
  uint32_t epoch_ = 0;
  Phase phase_ = Phase::Data;
  // What a heartbeat says.
  int64_t lastStep_ = -1;
  const char* heartbeatPhase_ = "idle";
  int64_t phaseSince_ = 0;
  // What the summary says.
  uint64_t steps_ = 0;
  uint64_t samples_ = 0;
  int64_t stepNs_ = 0;
  double lastLoss_ = 0.0;
  double accuracy_ = -1.0;
  uint64_t heapBytes_ = 0;
  std::optional<int64_t> heapReadNs_;  // when the heap was read last

  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread heartbeats_;
};

Probe::Probe() : impl_(std::make_unique<Impl>()) {}
Probe::~Probe() = default;

bool Probe::active() const {
  return impl_->active();
}
int Probe::rank() const {
  return impl_->rank();
}
int Probe::worldSize() const {
  return impl_->worldSize();
}
int64_t Probe::now() const {
  return impl_->now();
}

void Probe::alignClock(const ClockStore& store) {
  if (!active()) return;
  // The program's own keys stay its own.
  worker::ClockSyncStore prefixed;
  prefixed.set = [&store](const std::string& key, const std::string& value) {
    store.set("ringmaster/" + key, value);
  };
  prefixed.get = [&store](const std::string& key) { return store.get("ringmaster/" + key); };
  const worker::ClockSync sync = worker::synchroniseClocks(rank(), worldSize(), prefixed);
  impl_->clock().calibrate(sync.offsetNs, sync.epochNs);
}

void Probe::setEpoch(uint32_t epoch) {
  impl_->setEpoch(epoch);
}

void Probe::allreduce(uint64_t bytes, int64_t startNs, int64_t endNs, uint32_t bucket, uint32_t tensors) {
  impl_->allreduce(bytes, startNs, endNs, bucket, tensors);
}

void Probe::log(const std::string& name, double value) {
  impl_->log(name, value);
}
bool Probe::stopRequested() const {
  return impl_->stopRequested();
}
uint64_t Probe::recordsSent() const {
  return impl_->recordsSent();
}
uint64_t Probe::recordsDropped() const {
  return impl_->recordsDropped();
}

Step::Step(Probe& probe, uint32_t samples)
    : probe_(probe.impl_.get()),
      index_(probe_->beginStep(samples)),
      exceptions_(std::uncaught_exceptions()) {}

Step::~Step() {
  if (std::uncaught_exceptions() > exceptions_) {
    probe_->abandonStep(index_);
  } else {
    probe_->endStep(index_);
  }
}
void Step::phase(Phase phase) {
  phase_ = phase;
  probe_->phase(index_, phase);
}
void Step::loss(double value) {
  probe_->log("loss", value);
}
void Step::samples(uint32_t samples) {
  probe_->setSamples(index_, samples);
}

Step::Scope::Scope(Step& step, Phase phase) : step_(step), previous_(step.phase_) {
  step_.phase(phase);
}
Step::Scope::~Scope() {
  step_.phase(previous_);
}

}  // namespace ringmaster
