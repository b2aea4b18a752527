// SPDX-License-Identifier: GPL-3.0-or-later
// What `ringmaster run --slurm` asks of Slurm, and the small Slurm formats the console reads: sbatch's words,
// SLURM_TASKS_PER_NODE ("2(x3),1"), one `scontrol show ... -o` record ("Key=Value Key=Value"), job states.
// Plain functions of text, so that every answer Slurm gives can be tested without a cluster.
#pragma once

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/sentence.h"

namespace ringmaster::console {

// A Slurm command failed or answered something the console cannot use; says which command and what it said.
class SlurmError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct SlurmOptions {
  bool submit = false;  // --slurm: submit the job with sbatch
  int nodes = 0;        // -N; 0: as many as Slurm needs for the ranks
  std::string partition;
  std::string time;
  std::string account;
  std::string qos;
  std::string constraint;
  std::string gres;
  std::vector<std::string> extra;  // --slurm-arg, each one word for sbatch as it is
  std::string folder;              // --slurm-dir: where each job's folder goes; empty: defaultSlurmFolder()
};

// ~/.ringmaster/slurm: in the home folder, which the nodes of a cluster share with the login node.
std::string defaultSlurmFolder();

// sbatch's words (without "sbatch") for `ranks` ranks: --parsable, -n, -N when given, the user's options,
// --no-requeue, every --slurm-arg, the job name, the output file and the script, in that order.
std::vector<std::string> sbatchArguments(const SlurmOptions& options, int ranks, const std::string& jobName,
                                         const std::string& outputFile, const std::string& script);

// SLURM_TASKS_PER_NODE ("2(x3),1") as tasks node by node: {2, 2, 2, 1}. Throws SlurmError naming the text.
std::vector<int> parseTasksPerNode(const std::string& text);

// One record of `scontrol show job|node -o`: its Key=Value words (a value runs to the next space).
std::map<std::string, std::string> parseSlurmRecord(const std::string& line);

// A job's state as squeue's %T or scontrol's JobState tell it, and Slurm's reason ("Priority",
// "PartitionDown", "None"). An empty state: Slurm does not know the job (any more).
struct SlurmJobState {
  std::string state;
  std::string reason;
};

// One partition of a Slurm cluster as sinfo tells it: whether it is up, its nodes by state.
struct SlurmPartition {
  std::string name;
  std::string state;  // sinfo's %a: "up", "down", "drain", "inact"
  int allocated = 0;
  int idle = 0;
  int other = 0;  // down, drained, failing, ...
  int total = 0;
  std::string nodes;  // Slurm's node list, e.g. "n[1-2]"
};

// The sinfo format parseSinfo() reads: partition, availability, nodes allocated/idle/other/total, node list.
inline constexpr const char* kSinfoFormat = "%R|%a|%F|%N";
// `sinfo -h -o kSinfoFormat`'s lines as partitions in sinfo's order, lines of one partition added up. Throws
// SlurmError naming a line it cannot read.
std::vector<SlurmPartition> parseSinfo(const std::string& text);

// Whether a job in `state` has ended (COMPLETED, CANCELLED, TIMEOUT, FAILED, NODE_FAIL, PREEMPTED,
// OUT_OF_MEMORY, BOOT_FAIL, DEADLINE) or is unknown.
bool slurmJobEnded(const std::string& state);

// For a job Slurm ended (time limit, node failure, preemption, out of memory): one sentence for a person,
// else an empty one (a job that completed, or one cancelled by its owner).
Sentence slurmEndCause(const std::string& state);

}  // namespace ringmaster::console
