// SPDX-License-Identifier: GPL-3.0-or-later
// The run history from a terminal: `ringmaster runs`, `show RUN`, `compare RUN_A RUN_B ...`,
// `report RUN [--compare RUN2 ...] --format html|pdf|csv|trace -o FILE` and `import FILE`, each with
// `--store FILE` (default: the user's run store, see console/session/store_location.h).
#pragma once

#include <CLI/CLI.hpp>

#include "cli/commands.h"

namespace ringmaster::cli {

void addHistoryCommands(CLI::App& app, CommandResult& result);

}  // namespace ringmaster::cli
