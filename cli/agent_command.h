// SPDX-License-Identifier: GPL-3.0-or-later
// `ringmaster agent`: run this host's agent in the foreground (as ringmaster-agent does); `ringmaster
// python-path`: the PYTHONPATH the agent gives an instrumented program, for one started without an agent.
#pragma once

#include <CLI/CLI.hpp>

#include "cli/commands.h"

namespace ringmaster::cli {

void addAgentCommand(CLI::App& app, CommandResult& result);
void addPythonPathCommand(CLI::App& app, CommandResult& result);

}  // namespace ringmaster::cli
