// SPDX-License-Identifier: GPL-3.0-or-later
// Runs a real child process for integration tests and collects what it printed.
#pragma once

#include <chrono>
#include <map>
#include <string>
#include <vector>

namespace ringmaster::test {

struct ProcessResult {
  int exitCode = -1;  // exit status, or -1 when killed by a signal or the timeout
  int signal = 0;     // terminating signal, 0 if none
  bool timedOut = false;
  std::string out;
  std::string err;
};

// Runs argv[0] (a path) with `argv`, extra environment variables added, killing it after `timeout`.
ProcessResult runProcess(const std::vector<std::string>& argv,
                         const std::map<std::string, std::string>& env = {},
                         std::chrono::milliseconds timeout = std::chrono::seconds(60));

// Path of a binary built by this project.
std::string binPath(const std::string& name);

}  // namespace ringmaster::test
