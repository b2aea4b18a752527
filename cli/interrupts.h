// SPDX-License-Identifier: GPL-3.0-or-later
// Ctrl-C and SIGTERM for the commands that run jobs: the signal only counts, the command's loop decides.
#pragma once

namespace ringmaster::cli {

// From now on SIGINT and SIGTERM add one to interruptCount() instead of ending the process.
void catchInterrupts();

// How many SIGINT or SIGTERM arrived since catchInterrupts().
int interruptCount();

}  // namespace ringmaster::cli
