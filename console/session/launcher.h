// SPDX-License-Identifier: GPL-3.0-or-later
// Launches a job across hosts and watches it to the end: checks every host's agent first, assigns ranks host
// by host, picks MASTER_ADDR/MASTER_PORT, starts the ranks (stopping what started if a host fails), then
// follows every host's journal and hands the records to the sinks. With no hosts it runs the job on this
// machine through an agent embedded in this process.
#pragma once

#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/host_list.h"
#include "common/sentence.h"
#include "console/session/agent_client.h"
#include "console/session/record_sink.h"
#include "ringmaster/v1/job.pb.h"

namespace ringmaster::agent {
class AgentServer;
}

namespace ringmaster::console {

struct LaunchPlan {
  v1::JobSpec spec;              // world_size: ranks in all
  std::vector<HostSlots> hosts;  // empty: this machine, through an embedded agent
  int agentPort = agent::kDefaultAgentPort;
  std::string token;     // the agents' bearer token
  std::string tlsCaPem;  // CA that signed the agents' certificates
  // Agents reached otherwise than agentPort/token/tlsCaPem (the console's Hosts page, a Slurm job's agents),
  // by host name as in `hosts`; an endpoint's own host, when it has one, is the address to reach it at.
  std::map<std::string, AgentEndpoint> agents;
  std::string jobId;  // empty: a new unique id
  // The job id of the run's first attempt when this launch restarts it (--max-restarts); empty: jobId.
  std::string runId;
  // Rank 0's address for the others (MASTER_ADDR); empty: rank 0's host as named in `hosts`. Under Slurm, the
  // first node's NodeAddr: node names need not resolve.
  std::string masterAddr;
  // The ranks run already, started by another console: follow their journals from the start, launch nothing.
  bool attach = false;
  // Facts about the run stored with its environment (the Slurm job id).
  std::map<std::string, std::string> facts;
  // For the embedded agent only; empty: the defaults (worker beside this program, XDG state dir).
  std::string workerPath;
  std::string stateDir;
};

// The job could not start; says which host and why. Whatever had started was stopped.
class LaunchError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct HostPlacement {
  std::string host;  // as the user named it
  int firstRank = 0;
  int localRanks = 0;
  v1::HostInfo info;
};

// Detached: this console let go of a job on remote hosts, which runs on there (its agents keep the journal).
enum class JobStatus { Running, Succeeded, Failed, Stopped, Detached };
// The word for a job's state, as the history stores it and every front end prints it: "running", "finished",
// "failed", "stopped" or "detached".
std::string_view statusName(JobStatus status);
// The agent ended this rank (a stop asked for, or another rank failed first): it did not fail by itself. Read
// from the flag, or from the message for states kept in the history, which stores the message only.
bool stoppedByAgent(const v1::RankState& s);
// Why the agent stopped it, as its message says ("exited with code 143 (stopped by the agent: WHY)"): "stop
// requested", "rank 1 exited with code 1", …; empty when it was not stopped or the message does not say.
std::string stopReason(const v1::RankState& s);

struct RankExit {
  int rank = -1;
  std::string host;
  int exitCode = 0;
  int signal = 0;
  std::string message;                 // the agent's words: "killed by SIGKILL", ...
  std::vector<std::string> lastLines;  // what the rank printed last
  int64_t timeUnixNs = 0;
};

struct JobOutcome {
  JobStatus status = JobStatus::Running;
  Sentence message;                    // for a person: toText() for its English
  std::optional<RankExit> failedRank;  // the rank whose failure ended the job
};

class Launcher {
 public:
  explicit Launcher(LaunchPlan plan);
  // Stops the job if it still runs.
  ~Launcher();
  Launcher(const Launcher&) = delete;
  Launcher& operator=(const Launcher&) = delete;

  // Before start(). Sinks are called in the order added, from the launcher's threads, one call at a time.
  void addSink(RecordSink* sink);
  // Throws InputError where start() would refuse the plan itself, before asking any host: a job no agent may
  // run (validateJobSpec), more ranks than the hosts' slots, rank 0 on a loopback address among several
  // hosts.
  static void check(LaunchPlan plan);
  // Checks the plan and the hosts, starts the ranks, begins watching. Throws LaunchError, or InputError for a
  // bad plan.
  void start();
  // Asks every host to stop the job (SIGTERM, SIGKILL after `graceS`). Returns once each host answered. A
  // host that has not confirmed the end (its journal's last record) kStopConfirmS after the grace is let go
  // of, so that a stop always ends the run: an agent that hangs, or a stream that does, cannot keep the
  // console waiting.
  void stop(double graceS = 5);
  // Lets go of a job on remote hosts without stopping it: watching ends, the ranks run on under their agents,
  // and the outcome is Detached. Returns false (and does nothing) for a job on the embedded agent, whose
  // ranks cannot outlive this process, or a job that is not running.
  bool detach();
  // Sends `action` (timeline on/off, checkpoint now) to every rank on every host. Returns what failed, host
  // by host, for a person; empty when every host took it. Blocks on the network: not for a GUI thread.
  std::string control(v1::ControlRequest::Action action);
  // The outcome once every host's ranks have exited, or nullopt after `timeout`.
  std::optional<JobOutcome> waitFor(std::chrono::milliseconds timeout);
  JobOutcome wait();
  // The hosts whose agents do not answer within `timeout` now, as named in the plan (blocks on the network).
  std::vector<std::string> unreachableHosts(std::chrono::milliseconds timeout) const;
  // The first failure seen so far (live: before the job has wound down).
  std::optional<RankExit> firstFailure() const;

  const std::string& jobId() const { return plan_.jobId; }
  const v1::JobSpec& spec() const { return plan_.spec; }
  const std::vector<HostPlacement>& placements() const { return placements_; }
  // The followers of each host's journal (tests break their streams on purpose).
  JournalFollower& follower(size_t host);
  // Seconds a host may stay unreachable during a run before the job is given up as failed.
  static constexpr int kHostLostAfterS = 30;
  static constexpr int kStopConfirmS = 10;

 private:
  struct Host;
  void checkHosts();
  void launchAll();
  void onRecords(Host& host, const std::vector<v1::Record>& records);
  void onEnd(Host& host, const grpc::Status& status);
  void onConnection(Host& host, const JournalFollower::ConnectionChange& change);
  AgentEndpoint endpointFor(const std::string& host) const;
  void stopAllAfterFailure();
  JobOutcome outcomeLocked() const;

  LaunchPlan plan_;
  std::unique_ptr<agent::AgentServer> embedded_;
  std::vector<std::unique_ptr<Host>> hosts_;
  std::vector<HostPlacement> placements_;
  std::vector<RecordSink*> sinks_;
  std::mutex sinkMutex_;

  mutable std::mutex mutex_;
  std::condition_variable changed_;
  bool started_ = false;
  bool stopRequested_ = false;
  std::chrono::steady_clock::time_point stopConfirmBy_ = std::chrono::steady_clock::time_point::max();
  std::string unconfirmedHosts_;  // let go of after a stop: "node2, node3"
  bool detached_ = false;
  bool stoppingAfterFailure_ = false;
  Sentence lostHost_;
  std::map<int, RankExit> exits_;                      // by rank
  std::map<int, std::vector<std::string>> lastLines_;  // by rank
  std::optional<RankExit> firstFailure_;
};

// A fresh job id: "20240131-142501-3fa9c2".
std::string newJobId();

}  // namespace ringmaster::console
