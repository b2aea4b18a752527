// SPDX-License-Identifier: GPL-3.0-or-later
// The subcommands of `ringmaster`. Each add*Commands registers its subcommands with a callback that runs the
// command and stores its exit code in `result`.
#pragma once

#include <CLI/CLI.hpp>

namespace ringmaster::cli {

struct CommandResult {
  int exitCode = 0;
};

// Registers every subcommand below.
void addCommands(CLI::App& app, CommandResult& result);

}  // namespace ringmaster::cli
