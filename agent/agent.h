// SPDX-License-Identifier: GPL-3.0-or-later
// The jobs of one host: launch requests checked and started, stop and control routed, journals found for
// watchers and reporting ranks. The gRPC services (agent_server.h) are a thin layer over this.
#pragma once

#include <grpcpp/support/status.h>

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "agent/host_info.h"
#include "agent/job.h"
#include "agent/journal.h"
#include "agent/program_path.h"
#include "common/allowed_folders.h"

namespace ringmaster::agent {

struct AgentConfig {
  std::string workerPath;        // the program every rank of Ringmaster's own training runs
  std::string stateDir;          // jobs/<job id>/ holds each job's journal
  std::string telemetryAddress;  // where Ringmaster's own ranks report (a loopback port of this agent)
  std::string rankSocket;        // where users' programs report (agent/rank_socket.h); empty: nowhere
  double stopGraceS = 5;         // SIGTERM to SIGKILL
  double keepJournalsDays = 7;   // finished jobs' journals older than this are removed; 0 keeps them all
  std::vector<std::string> allowedPrograms;  // resolved paths of users' programs it may start
  bool anyProgram = false;                   // starts any program (the user's own embedded agent)
  std::vector<std::string> allowedFolders;   // resolved folders jobs may name, the state folder included
  bool anyFolder = false;                    // jobs may name any folder (the user's own embedded agent)
  // Guarded variables (launch_environment.h) a launch may set for a program (--allow-env); with anyProgram
  // it may set any.
  std::vector<std::string> allowedEnvironment;
  std::string pythonRoot;  // holds the ringmaster Python package; empty: programs run uninstrumented only
};

class Agent {
 public:
  explicit Agent(AgentConfig config);
  // Stops every job still running and waits for them.
  ~Agent();

  void setTelemetryAddress(const std::string& address);
  void setRankSocket(const std::string& path);
  // Removes the folders of jobs that are not running here and whose journal was last written more than
  // keepJournalsDays ago (consoles keep what they watched in their run store). Returns how many it removed.
  // Runs when the agent starts and at each launch.
  int pruneOldJournals();
  // This host, inspected once and remembered (the worker's --version is slow to ask).
  v1::HostInfo hostInfo();

  // Validates the request and starts the ranks; `done` is called once, perhaps from another thread.
  void launch(const v1::LaunchRequest& request,
              std::function<void(const grpc::Status&, const v1::LaunchReply&)> done);
  grpc::Status stop(const v1::StopRequest& request);
  grpc::Status control(const v1::ControlRequest& request);
  // The journal of a job this agent ran (perhaps before a restart); NOT_FOUND otherwise.
  grpc::Status journalFor(const std::string& jobId, std::shared_ptr<Journal>& journal);
  // The job `rank` reports into: NOT_FOUND / INVALID_ARGUMENT / FAILED_PRECONDITION when it cannot,
  // PERMISSION_DENIED when `secret` is not the one `rank` was given (RINGMASTER_JOB_SECRET).
  // Jobs live as long as the agent, so the pointer stays valid.
  grpc::Status reportTarget(const std::string& jobId, int rank, const std::string& secret, Job*& job);
  // Asks every job to stop and waits until their ranks have exited.
  void stopAll(double graceS);

  const AgentConfig& config() const { return config_; }

 private:
  std::shared_ptr<Job> findJob(const std::string& jobId);
  // May this agent start `program`? Sets `found` to the path to start it by and the file that was allowed.
  grpc::Status checkProgram(const v1::UserProgram& program, const std::string& hostname, ProgramPath& found);
  // Every folder and file a job names (data, checkpoints, model, a program's working folder) is absolute,
  // free of "..", and inside a folder this agent allows once links are resolved. Checked again where they are
  // opened: by the worker and the job beneath allowedFolders_.
  grpc::Status checkFolders(const v1::JobSpec& spec, const std::string& hostname) const;
  // A program's environment sets no guarded variable its owner did not allow.
  grpc::Status checkEnvironment(const v1::UserProgram& program, const std::string& hostname) const;

  AgentConfig config_;
  std::shared_ptr<const AllowedFolders> allowedFolders_;  // config_.allowedFolders held open; null: any
  std::mutex mutex_;
  std::optional<v1::HostInfo> hostInfo_;
  std::map<std::string, std::shared_ptr<Job>> jobs_;
  std::map<std::string, std::shared_ptr<Journal>> pastJournals_;
};

// True when `presented` equals `expected` (never for an empty `expected`), compared in time that does not
// depend on where they differ.
bool sameSecret(const std::string& presented, const std::string& expected);

// Empty when `jobId` is usable as a folder name (letters, digits, '.', '_', '-'; 1-128 characters).
std::string checkJobId(const std::string& jobId);

}  // namespace ringmaster::agent
