// SPDX-License-Identifier: GPL-3.0-or-later
// This user's private folder for sockets: $XDG_RUNTIME_DIR/ringmaster, else /tmp/ringmaster-<uid>. Only its
// owner may enter it, which is what makes a socket inside it reachable by this user alone.
#pragma once

#include <string>

namespace ringmaster {

// The folder, created 0700 when missing. Throws InputError when it exists but is not this user's private folder
// (another owner, a link, group or others may enter), naming it and what to do.
std::string userRuntimeDir();

// Where a host's agent serves this user's consoles: <runtime dir>/agent-<name>.sock, `name` being the agent's
// port (its TCP port when it has one, else the number it was given).
std::string agentSocketPath(const std::string& name);

}  // namespace ringmaster
