// SPDX-License-Identifier: GPL-3.0-or-later
// The words of `ringmaster run`: launch flags (-np, -H, --hostfile, agent port, token, TLS CA, ...), outputs
// and every job flag (addJobFlags), parsed with CLI11 into a LaunchPlan. The console takes them too, so that
// `ringmaster-gui --run -- <flags>` starts exactly the job `ringmaster run <flags>` would.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "common/job_spec.h"
#include "console/session/launcher.h"
#include "console/slurm/slurm_options.h"

namespace ringmaster::console {

struct RunFlags {
  int ranks = 1;
  std::string hostList;
  std::string hostfile;
  int agentPort = agent::kDefaultAgentPort;
  std::string tokenFile;
  std::string tlsCa;
  std::string summaryJson;  // write the run summary as JSON here at the end
  std::string timeline;     // write every rank's timeline as a Chrome trace here (turns the timeline on)
  std::string jobId;
  std::string worker;
  std::string stateDir;
  std::string store;  // run history file; empty: the user's
  bool noStore = false;
  SlurmOptions slurm;  // --slurm and what goes to sbatch
  v1::JobSpec spec = defaultJobSpec();
};

// Registers the flags on `app`, writing into `flags` as CLI11 parses.
void addRunFlags(CLI::App& app, RunFlags& flags);

// Checks what CLI11 cannot (-np at least 1, -H or --hostfile) and completes the spec (world size, timeline on
// with --timeline). Throws InputError naming the flag. parseRunFlags() calls it; a program that registered
// the flags with addRunFlags() calls it after parsing. With a program after "--", the built-in training flags
// given on `parsed` (the app the flags were registered on, when there is one) are an error that says why.
void finishRunFlags(RunFlags& flags, const CLI::App* parsed = nullptr);

// What is wrong with the Slurm flags of `flags` (--slurm with -H, -N over -np), naming the flags; empty when
// nothing is. finishRunFlags() throws it; the Launch page shows it.
std::string slurmFlagsProblem(const RunFlags& flags);

// Parses `args` (the flags alone, no program name; "-np" is read as "--np" like mpirun's). Throws InputError
// with CLI11's message for a bad flag; "--help" throws InputError holding the help text.
RunFlags parseRunFlags(std::vector<std::string> args);

// The plan `flags` describe: host list or hostfile parsed, token and CA read. Throws InputError naming the
// flag.
LaunchPlan launchPlan(const RunFlags& flags);

// The `ringmaster run` arguments (no program name) that parseRunFlags() reads back into `flags`, for flags as
// parseRunFlags() or finishRunFlags() leave them: -np always, then only what differs from the defaults, so
// that a person can read the line. The job flags are workerArguments()' words.
std::vector<std::string> runArguments(const RunFlags& flags);

// The name a run gets in the history (console::runName of the plan these flags make): --name when given, else
// the job id when given, else "<model> <engine> xN".
std::string runName(const RunFlags& flags);

}  // namespace ringmaster::console
