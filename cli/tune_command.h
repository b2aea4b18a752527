// SPDX-License-Identifier: GPL-3.0-or-later
// `ringmaster tune`: search the engine's bucket cap or fusion threshold × cycle time with short real runs
// (console/tune/tune_session) and recommend the flags with the best measured throughput.
#pragma once

#include <CLI/CLI.hpp>

#include "cli/commands.h"

namespace ringmaster::cli {

void addTuneCommand(CLI::App& app, CommandResult& result);

}  // namespace ringmaster::cli
