// SPDX-License-Identifier: GPL-3.0-or-later
// `ringmaster run`: launch a job here, across hosts or through Slurm and watch it to the end; `ringmaster
// attach`: watch a Slurm job submitted earlier.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

#include "cli/commands.h"

namespace ringmaster::cli {

void addRunCommand(CLI::App& app, CommandResult& result);
// Runs the body of a command that launches jobs (run, attach, tune) and returns its exit code. Each error is
// one line naming the command: bad input gives 2; a job that could not be launched, or a Slurm command that
// failed, gives 1.
int launchingCommand(const char* name, const std::function<int()>& body);
// `ringmaster attach JOBID`: watch a Slurm job submitted earlier.
void addAttachCommand(CLI::App& app, CommandResult& result);

}  // namespace ringmaster::cli
