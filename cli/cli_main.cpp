// SPDX-License-Identifier: GPL-3.0-or-later
// ringmaster: launch, inspect, compare and report training runs from a terminal.
// Each group of subcommands lives in its own file and registers itself here.
#include <CLI/CLI.hpp>
#include <cstring>

#include "cli/commands.h"
#include "common/malloc_policy.h"
#include "ringmaster/version.h"

namespace {

// mpirun and horovodrun users type "-np 4"; CLI11 allows only one-letter short flags, so read it as "--np".
void acceptMpirunStyleNp(int argc, char** argv) {
  static char longNp[] = "--np";
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--") == 0) break;  // a program's own arguments follow, untouched
    if (std::strcmp(argv[i], "-np") == 0) argv[i] = longNp;
  }
}

}  // namespace

int main(int argc, char** argv) {
  // The embedded agent and the console's watchers move telemetry message buffers: keep them in the process.
  ringmaster::keepLargeAllocations(size_t{256} << 20);
  acceptMpirunStyleNp(argc, argv);
  CLI::App app{
      "Ringmaster: launch data-parallel training across hosts, watch every rank, find stragglers,\n"
      "leaks and stalls, compare runs and export reports.",
      "ringmaster"};
  app.set_version_flag("--version", std::string("ringmaster ") + RINGMASTER_VERSION);
  app.require_subcommand(0, 1);

  ringmaster::cli::CommandResult result;
  ringmaster::cli::addCommands(app, result);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }
  if (app.get_subcommands().empty()) {
    std::cout << app.help();
    return 0;
  }
  return result.exitCode;
}
