// SPDX-License-Identifier: GPL-3.0-or-later
#include "cli/commands.h"

#include "cli/agent_command.h"
#include "cli/history_commands.h"
#include "cli/run_command.h"
#include "cli/tune_command.h"

namespace ringmaster::cli {

void addCommands(CLI::App& app, CommandResult& result) {
  // Subcommand groups register here, one line each (run, attach, agent, python-path,
  // runs/show/compare/report/import, tune).
  addRunCommand(app, result);
  addAttachCommand(app, result);
  addAgentCommand(app, result);
  addPythonPathCommand(app, result);
  addHistoryCommands(app, result);
  addTuneCommand(app, result);
}

}  // namespace ringmaster::cli
