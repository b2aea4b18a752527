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

// A child process that runs while the test does: started in the constructor with its output in files, ended
// (SIGTERM, then SIGKILL after `grace`) by finish() or the destructor.
class BackgroundProcess {
 public:
  BackgroundProcess(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env = {});
  ~BackgroundProcess();
  BackgroundProcess(const BackgroundProcess&) = delete;
  BackgroundProcess& operator=(const BackgroundProcess&) = delete;

  int pid() const { return pid_; }
  // Sends `sig` and waits up to `grace` for the process to end, then kills it. Returns how it ended.
  ProcessResult finish(int sig, std::chrono::milliseconds grace = std::chrono::seconds(30));
  // What it has printed so far.
  std::string out() const;
  std::string err() const;

 private:
  int pid_ = -1;
  std::string outPath_;
  std::string errPath_;
};

// Path of a binary built by this project.
std::string binPath(const std::string& name);

}  // namespace ringmaster::test
