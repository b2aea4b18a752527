// SPDX-License-Identifier: GPL-3.0-or-later
// Which variables a launch may set for a user's program (JobSpec.program.environment). The dynamic loader's
// and the interpreters' variables (LD_PRELOAD, PYTHONPATH, BASH_ENV ...) make a program load or run code of
// the launcher's choosing before its own, so a program the agent's owner allowed would no longer be the
// program that runs: an agent accepts each of them only where its owner allowed it by name (--allow-env).
#pragma once

#include <string>
#include <vector>

namespace ringmaster::agent {

// The guarded names, a trailing '*' standing for any ending ("LD_*"), for --help and messages.
const std::vector<std::string>& guardedVariables();

// Whether `name` is a guarded variable.
bool isGuardedVariable(const std::string& name);

// Empty when a launch may set `entry` ("NAME=value") with `allowed` (the names given to --allow-env), else
// why not, naming the variable and the flag that would allow it.
std::string environmentRefusal(const std::string& entry, const std::vector<std::string>& allowed);

}  // namespace ringmaster::agent
