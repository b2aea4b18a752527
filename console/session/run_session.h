// SPDX-License-Identifier: GPL-3.0-or-later
// One run from launch to its stored end, the same for the console window and `ringmaster run`: the launcher
// and its sinks (run store and diagnosis, progress, summary, timeline file), the job's state in words, the
// findings (one diagnosis, live and stored alike) and every host's environment recorded with the run.
//
// A front end adds its own sinks (the terminal's log printer, the window's views), calls start(), then
// waitFor() until the job ends and finish() once with its outcome. The session's methods may be called from
// any thread; the sinks are called from the launcher's threads.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "console/session/launcher.h"
#include "console/session/record_sink.h"
#include "console/session/run_progress.h"

namespace ringmaster::console {

class RunIngest;
class RunSummaryBuilder;
class SlurmJob;
class TimelineSink;

// The name a run gets in the history: the spec's name, else the job id the user chose, else
// "<model> <engine> xN".
std::string runName(const LaunchPlan& plan);

struct RunSessionOptions {
  std::string storePath;    // the run history; empty: keep nothing (`ringmaster run --no-store`)
  std::string summaryJson;  // write the run summary here when the run ends
  std::string timeline;     // write every rank's timeline here as a Chrome trace, as it arrives
};

// How a run ended, once finish() recorded it.
struct RunResult {
  JobOutcome outcome;
  std::string status;                 // statusName(outcome.status)
  std::vector<v1::Finding> findings;  // the diagnosis at the end, as stored
  std::vector<std::string> problems;  // what could not be written (store, summary), for a person
  uint64_t recordsNotStored = 0;      // records the run history could not take: it holds the run in part
  std::vector<std::string> notes;     // what the session did besides, for a person ("cancelled Slurm job 12")
};

class RunSession {
 public:
  RunSession(LaunchPlan plan, RunSessionOptions options);
  // Stops the job if it still runs and was not detached (ranks of the embedded agent cannot outlive it).
  ~RunSession();
  RunSession(const RunSession&) = delete;
  RunSession& operator=(const RunSession&) = delete;

  // Before start(): another sink, called after the session's own (so findings() already includes the batch).
  void addSink(RecordSink* sink);
  // Before start(): the Slurm job the plan's agents run in, which outlives the session. waitFor() then asks
  // Slurm how the job stands every 2 s: a job Slurm ended (time limit, node failure, preemption) is a finding
  // and, its agents gone with it, the run's end. finish() ends the agents' step so that the job completes,
  // or cancels the job when stop() ended the run; a failed start() cancels it too.
  void followSlurmJob(SlurmJob* job);
  // Checks the plan (Launcher::check), creates the run in the history, starts the ranks and records where
  // they run. Throws InputError (a bad plan, before anything is stored; a timeline path, a store that cannot
  // be opened) or LaunchError (the hosts could not start the job); a run already created is then stored as
  // failed. The history keeps the job with its secret-looking environment values masked (withSecretsMasked).
  void start();
  // The outcome once the job has ended, or nullopt after `timeout`; meanwhile the diagnosis looks again, so a
  // job that goes quiet is still seen (stalls), and a job stalled for the spec's stall_timeout_s is stopped:
  // its outcome is then Failed, with the stall as the reason. Ranks of a Slurm job that failed are given a
  // few seconds for Slurm to say whether it ended them.
  // A job that failed while restarts remain (the spec's max_restarts) is not over: every rank starts again
  // as a new launch of the same run (job id "<job id>-restart<N>", the same run in the history), resuming
  // from the last checkpoint, without the injected crash or hang; the restart is a finding. After
  // max_restarts restarts the next failure is the outcome, its message naming the count.
  std::optional<JobOutcome> waitFor(std::chrono::milliseconds timeout);
  // Records how the job ended: its status word and findings in the history, the summary file. Call once.
  RunResult finish(const JobOutcome& outcome);

  // Asks every host to stop the job (SIGTERM, SIGKILL after `graceS`); returns at once. A Slurm job is
  // cancelled when the run is finished. Nothing once the job was detached.
  void stop(double graceS = 5);
  // Lets go of a job on remote hosts without stopping it (see Launcher::detach).
  bool detach();
  // Sends a control action to every rank (blocks on the network); returns what failed, empty when all took
  // it.
  std::string control(v1::ControlRequest::Action action);
  // A finding the console made from outside the ranks' records (Slurm ended the job), stored and diagnosed as
  // one that arrived with them. After start().
  void addFinding(const v1::Finding& finding);
  // Breaks every host's watch stream as a network fault would; the launcher reconnects and backfills.
  void dropConnections();

  // The findings so far: the detectors' and those that arrived as records, one of each kind and rank.
  std::vector<v1::Finding> findings() const;
  // The same as of `nowNs` on the monotonic clock; once the run is finished, what was stored.
  std::vector<v1::Finding> findingsAsOf(int64_t nowNs) const;
  ProgressSnapshot progress() const { return progress_.snapshot(); }

  const LaunchPlan& plan() const { return plan_; }
  bool started() const;
  bool onThisMachine() const { return plan_.hosts.empty(); }
  int64_t runId() const { return runId_; }  // 0 when nothing is stored
  const std::string& storePath() const { return options_.storePath; }
  const std::string& jobId() const;
  // Restarts so far, and a line for a person about each ("restart 1 of 2: rank 1 on host n1 was killed by
  // SIGABRT"), in order.
  int restarts() const;
  std::vector<std::string> restartLines() const;
  // Where the ranks run, once started.
  const std::vector<HostPlacement>& placements() const;
  // e.g. {"node1 (ranks 0-3)", "node2 (ranks 4-7)"}.
  std::vector<std::string> placementLines() const;

 private:
  void startLaunch();
  std::unique_ptr<Launcher> makeLauncher(LaunchPlan plan);
  // The launcher of the current attempt; the retired ones live on with the session, so a pointer stays valid.
  Launcher* launcher() const;
  // Starts every rank again after `failed`; the outcome when the restart could not start.
  std::optional<JobOutcome> restartAfter(const JobOutcome& failed);
  void recordEnvironment();
  // Asks Slurm how the job stands when it is time to; an outcome once Slurm has ended the job and its
  // agents' last records had time to arrive.
  std::optional<JobOutcome> followSlurm();
  // The job's Slurm state now; once Slurm ended it, the finding that says why (time limit, node failure...).
  std::string checkSlurm();
  // Stops the job once a stall that is still going on has lasted stall_timeout_s.
  void stopWhenStalledTooLong();

  LaunchPlan plan_;
  const RunSessionOptions options_;
  LiveProgress progress_;
  std::unique_ptr<RunIngest> ingest_;
  std::unique_ptr<RunSummaryBuilder> summary_;
  std::unique_ptr<TimelineSink> timeline_;
  std::unique_ptr<Launcher> launcher_;
  std::vector<std::unique_ptr<Launcher>> retired_;  // the attempts before a restart
  int restarts_ = 0;
  std::vector<std::string> restartLines_;
  std::optional<v1::Finding> stalledWhy_;  // the stall finding that stalledStop_ is about
  std::vector<RecordSink*> extraSinks_;
  mutable std::mutex mutex_;  // guards launcher_, launched_, finished_, stalledStop_ and the restarts
  bool launched_ = false;
  Sentence stalledStop_;  // why the session stopped a stalled job; empty: it did not
  bool finished_ = false;
  bool detached_ = false;
  bool stopRequested_ = false;
  int64_t runId_ = 0;
  // Touched by the thread that calls waitFor() and finish() only.
  LaunchPlan attemptPlan_;  // the current attempt's: its hosts and world size after --min-ranks left some out
  SlurmJob* slurm_ = nullptr;
  std::chrono::steady_clock::time_point nextSlurmCheck_{};
  std::optional<std::chrono::steady_clock::time_point> slurmEndedAt_;
  std::string slurmEnd_;  // "TIMEOUT (reason)" as Slurm ended the job
};

}  // namespace ringmaster::console
