// SPDX-License-Identifier: GPL-3.0-or-later
// ringmaster-agent: starts ranks on this host for consoles and relays their telemetry.
#include <CLI/CLI.hpp>

#include "agent/agent_program.h"
#include "common/malloc_policy.h"
#include "ringmaster/version.h"

int main(int argc, char** argv) {
  using namespace ringmaster::agent;
  ringmaster::keepLargeAllocations(size_t{256} << 20);  // telemetry message buffers stay in the process
  AgentOptions options;
  CLI::App app{
      "Ringmaster host agent: launches ringmaster-worker ranks for consoles and streams their telemetry.\n"
      "Listens on loopback unless given --token-file.",
      "ringmaster-agent"};
  app.set_version_flag("--version", std::string("ringmaster-agent ") + RINGMASTER_VERSION);
  addAgentFlags(app, options);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }
  return runAgentInForeground(options, "ringmaster-agent");
}
