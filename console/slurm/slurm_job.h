// SPDX-License-Identifier: GPL-3.0-or-later
// A job that Slurm runs: submitted with sbatch (`ringmaster run --slurm`), or the allocation this console
// runs in (`salloc ...; ringmaster run`), or one submitted earlier by another console (`ringmaster attach`).
//
// Slurm allocates the nodes and starts one ringmaster-agent per node as a job step, each on a port it picks,
// holding a token this console made. The job's folder (<--slurm-dir>/<job id>, readable by its owner only, on
// the filesystem the nodes share) holds the token, the run's flags, the batch script, the allocation and each
// agent's endpoint; the console reads them there and launches the ranks through those agents as it does for
// -H hosts, placed by the allocation, with the first node's NodeAddr as the rendezvous address.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "console/session/launcher.h"
#include "console/session/run_flags.h"
#include "console/slurm/slurm_options.h"

namespace ringmaster::agent {
class ChildProcess;
}

namespace ringmaster::console {

// Whether `flags` run in the Slurm allocation this process is in (SLURM_JOB_ID set, no -H, no --hostfile, no
// --slurm): then the ranks go to its nodes, as mpirun places them.
bool insideSlurmAllocation(const RunFlags& flags);

class SlurmJob {
 public:
  // Writes the job's folder and runs sbatch. `agentPath` is ringmaster-agent on the nodes. Throws SlurmError
  // with sbatch's words, or InputError for a folder that cannot be made.
  static std::unique_ptr<SlurmJob> submit(const RunFlags& flags, const std::string& agentPath);
  // Starts the agents' step (srun --overlap) in the allocation this process runs in.
  static std::unique_ptr<SlurmJob> inAllocation(const RunFlags& flags, const std::string& agentPath);
  // The job another console submitted: its folder, found by Slurm's job id under `folder` (empty: the
  // default). Throws SlurmError saying what is missing.
  static std::unique_ptr<SlurmJob> attach(const std::string& slurmJobId, const std::string& folder);
  ~SlurmJob();
  SlurmJob(const SlurmJob&) = delete;
  SlurmJob& operator=(const SlurmJob&) = delete;

  const std::string& slurmJobId() const { return slurmJobId_; }
  const std::string& folder() const { return folder_; }
  // The run's flags as submitted (attach reads them back from the job's folder).
  const RunFlags& flags() const { return flags_; }
  // The command that started the job or its agents, as a shell line: "sbatch --parsable ...".
  const std::string& command() const { return command_; }

  // Waits for the job to start and every node's agent to write its endpoint, telling `say` the queue state
  // and Slurm's reason each time they change. Returns the plan for those agents: the nodes as hosts with
  // their tasks as slots, each node's agent by NodeAddr, the first node's NodeAddr for the rendezvous.
  // Throws SlurmError when the job ends first, the agents stay silent for `agentLimit` after it started, or
  // `keepWaiting` says to give up (the caller then cancels).
  LaunchPlan waitForAgents(const std::function<void(const std::string&)>& say,
                           const std::function<bool()>& keepWaiting,
                           std::chrono::seconds agentLimit = std::chrono::seconds(120));
  // The job's state now (squeue, or scontrol once it left the queue).
  SlurmJobState state() const;
  // Ends the job: scancel for a submitted job, the agents' step for one in an allocation.
  void cancel();
  // After the run ended: ends the agents' step so that a submitted job completes.
  void release();
  // Facts to store with the run: the Slurm job id.
  std::map<std::string, std::string> facts() const;

 private:
  SlurmJob() = default;
  void writeFolder(const std::string& agentPath, bool batch);

  RunFlags flags_;
  std::string folder_;
  std::string slurmJobId_;
  std::string command_;
  bool submitted_ = false;
  std::unique_ptr<agent::ChildProcess> step_;  // the agents' srun in an allocation
};

// A Slurm client command (sbatch, squeue, scontrol, scancel, sinfo, srun) found on PATH, run to its end.
// Throws SlurmError when it is not installed, fails, or takes longer than `timeout`; the message names the
// command and quotes what it said.
std::string slurmCommand(const std::string& program, const std::vector<std::string>& args,
                         std::chrono::milliseconds timeout = std::chrono::seconds(30));

// The folder of the job `jobId` under --slurm-dir (or the default), absolute.
std::string slurmJobFolder(const RunFlags& flags, const std::string& jobId);
// The sbatch command (its words, "sbatch" first) that submits `flags`' job whose folder is `folder`.
std::vector<std::string> sbatchCommand(const RunFlags& flags, const std::string& folder);

// The cluster's partitions as sinfo tells them. Throws SlurmError when Slurm is not installed, does not
// answer within `timeout` or answers what the console cannot read.
std::vector<SlurmPartition> slurmPartitions(std::chrono::milliseconds timeout = std::chrono::seconds(5));

// `scontrol show hostnames LIST`: "n[1-2]" as {"n1", "n2"}.
std::vector<std::string> expandNodeList(const std::string& list);
// The address Slurm reaches each node at (NodeAddr; the name itself when Slurm gives none).
std::map<std::string, std::string> nodeAddresses(const std::vector<std::string>& nodes);
// squeue's %T and %r for `jobId`, or scontrol's JobState and Reason once it left the queue.
SlurmJobState slurmJobState(const std::string& jobId);

}  // namespace ringmaster::console
