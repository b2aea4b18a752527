// SPDX-License-Identifier: GPL-3.0-or-later
// A real Slurm 22.05 on this machine for tests: a private munged with its own key, slurmctld, and two fake
// nodes n1 and n2 (one slurmd each, NodeAddr 127.0.0.1, distinct free ports), every state, spool, log and pid
// file under a fresh folder. Partitions: main (the default), closed (down) and urgent, whose jobs preempt
// main's (cancelling them). Brought up in the constructor and taken down in the destructor, with a hard
// limit on every wait, leaving no process behind: the test process is made a child subreaper, so that the job
// steps slurmd forks stay its descendants and can be found and ended.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tests/support/process.h"
#include "tests/support/temp_dir.h"
#include "tests/support/wait.h"

namespace ringmaster::test {

class SlurmCluster {
 public:
  // Whether munged, slurmctld, slurmd and the client commands are installed (scripts/install-deps).
  static bool installed();

  // Throws std::runtime_error with the daemons' logs when the cluster is not up (both nodes idle) in 30 s.
  SlurmCluster();
  ~SlurmCluster();
  SlurmCluster(const SlurmCluster&) = delete;
  SlurmCluster& operator=(const SlurmCluster&) = delete;

  const std::string& folder() const { return dir_.path(); }
  std::string conf() const { return dir_.file("slurm.conf"); }
  // SLURM_CONF for the client commands, plus `extra`.
  std::map<std::string, std::string> env(std::map<std::string, std::string> extra = {}) const;
  // A client command (sbatch, squeue, scontrol, ...) against this cluster, ended after `timeout`.
  ProcessResult command(std::vector<std::string> argv,
                        std::chrono::milliseconds timeout = std::chrono::seconds(20)) const;
  // A job's state as squeue or, once it left the queue, scontrol tells it ("PENDING", "COMPLETED", ...).
  std::string jobState(const std::string& jobId) const;
  // Every job id the cluster knows (squeue).
  std::vector<std::string> jobs() const;
  // Processes descended from this test process other than the cluster's daemons and `besides` (job steps,
  // agents, ranks), as "pid command" lines.
  std::vector<std::string> strayProcesses(const std::vector<pid_t>& besides = {}) const;
  // Sends `sig` to slurmctld: SIGSTOP makes a controller that does not answer, SIGCONT brings it back.
  void signalController(int sig) const;
  // The daemons' logs, for a failure message.
  std::string logs() const;

 private:
  void writeConfig();
  void stop();

  TempDir dir_{"slurm"};
  std::vector<std::unique_ptr<BackgroundProcess>> daemons_;  // munged, slurmctld, slurmd n1, slurmd n2
};

// Live processes descended from this one, as "pid command" lines.
std::vector<std::string> descendantProcesses();

// `lines` one to a line, for a failure message.
std::string joinedLines(const std::vector<std::string>& lines);

// How often a test asks Slurm again while it waits (each question runs squeue, sinfo or scontrol).
inline constexpr std::chrono::milliseconds kSlurmPoll{100};

}  // namespace ringmaster::test
