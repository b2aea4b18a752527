// SPDX-License-Identifier: GPL-3.0-or-later
// A rank's telemetry on its way out: a sender thread drains the probe's buffer every 50 ms (sooner when a
// request's worth of records is waiting), streams the records to the host's agent (Telemetry.Report) and
// appends timeline events to the --timeline Chrome trace file. It also polls the agent for control (stop,
// timeline on/off, checkpoint now).
//
// Training never waits for it: if the agent is unreachable the records are counted as dropped (reported in a
// TelemetryHealth record when the agent can be reached again) and training goes on.
//
//   worker::TelemetrySession telemetry(probe,
//   worker::TelemetryOptions::fromEnvironment(options.timelineFile));
//   ... train, checking telemetry.stopRequested() and telemetry.takeCheckpointRequest() once per step ...
//   // leaving scope sends and writes what is left
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "worker/probe.h"

namespace ringmaster::worker {

struct TelemetryOptions {
  std::string agentAddress;  // host:port of the agent (RINGMASTER_AGENT); empty: no agent
  std::string jobId;         // RINGMASTER_JOB_ID
  std::string secret;        // RINGMASTER_JOB_SECRET: presented with every report
  std::string timelineFile;  // Chrome trace file; empty: none. "%r" is replaced by the rank.
  // Batching interval. 50 ms keeps the rank-to-console latency (interval + group commit + fan-out) under 100
  // ms at p99 while a rank still sends only 20 requests a second.
  std::chrono::milliseconds interval{50};
  // A heartbeat a second with the last step (and no phase: the built-in loop does not track one). Off for
  // senders whose program beats itself with its phase (the probe library).
  bool heartbeats = true;

  // Reads RINGMASTER_AGENT and RINGMASTER_JOB_ID.
  static TelemetryOptions fromEnvironment(std::string timelineFile = {});
};

// The file one rank writes for `--timeline path`: "%r" becomes the rank; with several ranks and no "%r",
// ".rankN" goes before the extension (trace.json -> trace.rank1.json), so ranks sharing a folder do not
// collide.
std::string timelinePathForRank(const std::string& path, int rank, int worldSize);

class TelemetrySession {
 public:
  // Opens the timeline file (throws InputError naming it when it cannot) and turns the probe's timeline on
  // when there is one; starts the sender thread.
  TelemetrySession(Probe& probe, TelemetryOptions options);
  // Sends and writes what is left, reports telemetry health, and closes the stream (waiting at most a few
  // seconds for the agent).
  ~TelemetrySession();
  TelemetrySession(const TelemetrySession&) = delete;
  TelemetrySession& operator=(const TelemetrySession&) = delete;

  // The console asked this rank to stop (finish the step, save if configured, exit).
  bool stopRequested() const { return stopRequested_.load(std::memory_order_relaxed); }
  // True once per "checkpoint now" request.
  bool takeCheckpointRequest() { return checkpointRequested_.exchange(false, std::memory_order_relaxed); }

  uint64_t recordsSent() const { return sent_.load(std::memory_order_relaxed); }
  std::string timelinePath() const;

 private:
  class Sender;
  Probe& probe_;
  std::atomic<bool> stopRequested_{false};
  std::atomic<bool> checkpointRequested_{false};
  std::atomic<uint64_t> sent_{0};
  std::unique_ptr<Sender> sender_;
};

}  // namespace ringmaster::worker
