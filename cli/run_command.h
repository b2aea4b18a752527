// SPDX-License-Identifier: GPL-3.0-or-later
// `ringmaster run`: launch a job here, across hosts or through Slurm and watch it to the end; `ringmaster
// attach`: watch a Slurm job submitted earlier.
#pragma once

#include <CLI/CLI.hpp>

#include "cli/commands.h"

namespace ringmaster::cli {

void addRunCommand(CLI::App& app, CommandResult& result);
// `ringmaster attach JOBID`: watch a Slurm job submitted earlier.
void addAttachCommand(CLI::App& app, CommandResult& result);

}  // namespace ringmaster::cli
