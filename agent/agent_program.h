// SPDX-License-Identifier: GPL-3.0-or-later
// The agent as a program, the same for ringmaster-agent and `ringmaster agent`: its flags, defined once, and
// its run in the foreground until SIGINT or SIGTERM.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "agent/agent_options.h"

namespace ringmaster::agent {

// Registers --listen, --port, --token-file, --tls-cert, --tls-key, --state-dir, --keep-journals-days and
// --worker on `app`, writing into `options` as CLI11 parses. The values are checked when the agent starts
// (checkAgentOptions, then AgentServer reading the files), so every program that starts an agent checks the
// same.
void addAgentFlags(CLI::App& app, AgentOptions& options);

// Runs an agent with `options` until SIGINT or SIGTERM, then stops its jobs. Messages on stderr start with
// "`program`: ". Returns the exit code: 0 after a stop, 2 when the options cannot be used (the message says
// why). Call it before starting any thread: it blocks SIGINT and SIGTERM so that one thread of its own takes
// them.
int runAgentInForeground(const AgentOptions& options, const std::string& program);

}  // namespace ringmaster::agent
