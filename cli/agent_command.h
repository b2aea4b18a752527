// SPDX-License-Identifier: GPL-3.0-or-later
// `ringmaster agent`: run this host's agent in the foreground (as ringmaster-agent does).
#pragma once

#include <CLI/CLI.hpp>

#include "cli/commands.h"

namespace ringmaster::cli {

void addAgentCommand(CLI::App& app, CommandResult& result);

}  // namespace ringmaster::cli
