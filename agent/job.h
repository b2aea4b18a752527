// SPDX-License-Identifier: GPL-3.0-or-later
// One job's ranks on this host: started, watched and stopped by the job's supervisor thread, with everything
// they say (telemetry, output lines, exits) appended to the job's journal.
#pragma once

#include <algorithm>
#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "agent/journal.h"
#include "common/allowed_folders.h"
#include "ringmaster/v1/agent.pb.h"
#include "ringmaster/v1/telemetry.pb.h"

namespace ringmaster::agent {

struct JobSetup {
  v1::LaunchRequest request;     // already validated
  std::string workerPath;        // what every rank starts: ringmaster-worker, or the user's program (found)
  std::string telemetryAddress;  // host:port the ranks report to (RINGMASTER_AGENT)
  std::string directory;         // the job's folder: journal, rank timelines (created by the caller)
  std::string hostname;          // named in rank states
  double defaultGraceS = 5;      // SIGTERM to SIGKILL when a stop names no grace
  std::string pythonRoot;        // holds the ringmaster Python package (instrumented programs)
  // A user's program: the file checked at launch (links resolved), which ranks execute under the name in
  // workerPath; empty: workerPath itself.
  std::string executable{};
  // The folders the job's files must stay beneath (resolved); empty: any. Ringmaster's own ranks are given
  // them (--allowed-folder), a program's working folder is opened beneath them.
  std::shared_ptr<const AllowedFolders> allowedFolders{};
  // The guarded variables (launch_environment.h) a program's environment may set; anyEnvironment: all.
  std::vector<std::string> allowedEnvironment{};
  bool anyEnvironment = false;
  std::string rankSocket{};  // where a user's program reports (RINGMASTER_TELEMETRY_SOCKET); empty: nowhere
};

// What starting the ranks came to.
struct StartResult {
  bool ok = false;
  std::string error;      // why a rank could not start, for a person
  std::vector<int> pids;  // in rank order
};

class Job {
 public:
  // Creates the job's journal. Throws std::runtime_error.
  explicit Job(JobSetup setup);
  // Kills ranks still running and waits for the supervisor to finish.
  ~Job();
  Job(const Job&) = delete;
  Job& operator=(const Job&) = delete;

  // Starts the ranks on the job's own supervisor thread, which they die with (PR_SET_PDEATHSIG), and calls
  // `started` once from that thread.
  void start(std::function<void(const StartResult&)> started);
  // SIGTERM to every rank, SIGKILL after `graceS` seconds (<= 0: the default). Returns at once.
  void stop(double graceS, const std::string& why);
  // Queues a control action for `rank` (-1: every rank here); ranks pick it up with takeControl().
  void control(int rank, v1::ControlRequest::Action action);
  v1::ControlPollReply takeControl(int rank);

  const std::string& id() const { return setup_.request.job_id(); }
  const std::string& directory() const { return setup_.directory; }
  // What `rank` presents when it reports (its RINGMASTER_JOB_SECRET): one per rank, so that a rank cannot
  // report as another. Empty for a rank not of this job here.
  const std::string& secretOf(int rank) const;
  bool hasRank(int rank) const;
  // The job's ranks: those launched, or more once processes the program started itself joined (adoptRank).
  int worldSize() const {
    return std::max(static_cast<int>(setup_.request.spec().world_size()), adoptedWorldSize_.load());
  }
  // A process that one of this job's programs started itself (mp.spawn: one launched process, N ranks) asks
  // to report as `rank` of `worldSize`, presenting `launchedRank`'s secret (checked by the caller). Allowed
  // for a user's program launched as one process in all, each rank once; empty when it may, else why not.
  // Journals the rank as running, with the job's new size, so that consoles show every rank.
  std::string adoptRank(int launchedRank, int rank, int worldSize, int pid, const std::string& host);
  // A line of the agent's own about `rank` (-1: the job), for the journal.
  v1::Record agentLine(int rank, const std::string& text) const;
  Journal& journal() { return *journal_; }
  std::shared_ptr<Journal> sharedJournal() const { return journal_; }
  // Every rank has exited and the journal holds everything they said (or could not be written: see
  // Journal::error()).
  bool finished() const { return supervised_ && journal_->finished(); }

 private:
  struct Rank;
  void supervise(std::function<void(const StartResult&)> started);
  StartResult spawnRanks();
  // The program's working folder opened beneath the allowed folders; none when either is not set.
  FileDescriptor openWorkingFolder() const;
  std::vector<std::string> rankEnvironment(int rank) const;
  std::vector<std::string> rankArguments() const;
  void readOutput(Rank& rank, int fd, bool toEnd, std::vector<v1::Record>& out);
  void beginStop(const std::string& why, std::vector<v1::Record>& out);
  // Processes the ranks started that outlived their parents and came to this process (the agent reaps what
  // its ranks leave behind): remembered, and reaped when they exit; with `endThem`, killed until none is
  // left. Returns how many it killed.
  int followStrays(bool endThem);
  v1::Record rankState(const Rank& rank, v1::RankState::State state, const std::string& message) const;

  const JobSetup setup_;
  std::shared_ptr<Journal> journal_;
  std::atomic<bool> supervised_{false};  // the supervisor saw every rank exit
  std::vector<std::unique_ptr<Rank>> ranks_;
  int wakeFd_ = -1;  // eventfd: stop() wakes the supervisor
  std::thread supervisor_;
  std::set<pid_t> strays_;  // the supervisor's: processes of this job's that are this process's children

  std::mutex mutex_;  // guards the requests below
  bool stopRequested_ = false;
  double stopGraceS_ = 0;
  std::string stopWhy_;
  std::map<int, v1::ControlPollReply> pendingControl_;
  std::set<int> adopted_;  // ranks of processes the program started itself
  std::atomic<int> adoptedWorldSize_{0};
};

}  // namespace ringmaster::agent
