// SPDX-License-Identifier: GPL-3.0-or-later
#include "cli/agent_command.h"

#include <memory>

#include "agent/agent_program.h"

namespace ringmaster::cli {

void addAgentCommand(CLI::App& app, CommandResult& result) {
  auto* command =
      app.add_subcommand("agent", "Run this host's agent in the foreground (like ringmaster-agent)");
  auto options = std::make_shared<agent::AgentOptions>();
  agent::addAgentFlags(*command, *options);
  command->callback(
      [options, &result] { result.exitCode = agent::runAgentInForeground(*options, "ringmaster agent"); });
}

}  // namespace ringmaster::cli
