// SPDX-License-Identifier: GPL-3.0-or-later
#include "cli/agent_command.h"

#include <iostream>
#include <memory>

#include "agent/agent_program.h"
#include "agent/program_path.h"

namespace ringmaster::cli {

void addPythonPathCommand(CLI::App& app, CommandResult& result) {
  auto* command = app.add_subcommand(
      "python-path",
      "Print the PYTHONPATH that loads the ringmaster package and its instrumentation into a program run "
      "without an agent, e.g. RINGMASTER_RECORD_DIR=DIR PYTHONPATH=$(ringmaster python-path) torchrun ...");
  command->callback([&result] {
    // The folders the agent puts in front of an instrumented program's PYTHONPATH, found as the agent finds
    // them.
    const std::string dir = agent::thisProgramDir();
    const std::string root = agent::findPythonRoot(dir);
    if (root.empty()) {
      std::string looked;
      for (const auto& candidate : agent::pythonRootCandidates(dir))
        looked += (looked.empty() ? "" : " or ") + candidate;
      std::cerr << "ringmaster python-path: the ringmaster Python package is not beside this program (in "
                << looked
                << "): build the ringmaster-python target, or install Ringmaster with its Python package\n";
      result.exitCode = 1;
      return;
    }
    std::cout << agent::instrumentedPythonPath(root) << "\n";
  });
}

void addAgentCommand(CLI::App& app, CommandResult& result) {
  auto* command =
      app.add_subcommand("agent", "Run this host's agent in the foreground (like ringmaster-agent)");
  auto options = std::make_shared<agent::AgentOptions>();
  agent::addAgentFlags(*command, *options);
  command->callback(
      [options, &result] { result.exitCode = agent::runAgentInForeground(*options, "ringmaster agent"); });
}

}  // namespace ringmaster::cli
