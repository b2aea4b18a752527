// SPDX-License-Identifier: GPL-3.0-or-later
// `ringmaster run`: launch a job here or across hosts and watch it to the end.
#pragma once

#include <CLI/CLI.hpp>

#include "cli/commands.h"

namespace ringmaster::cli {

void addRunCommand(CLI::App& app, CommandResult& result);

}  // namespace ringmaster::cli
