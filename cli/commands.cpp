// SPDX-License-Identifier: GPL-3.0-or-later
#include "cli/commands.h"

namespace ringmaster::cli {

void addCommands(CLI::App& app, CommandResult& result) {
  // Subcommand groups register here, one line each (run, agent, runs/show/compare/report/import).
  (void)app;
  (void)result;
}

}  // namespace ringmaster::cli
