// SPDX-License-Identifier: GPL-3.0-or-later
// Runs a real child process for integration tests and collects what it printed.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ringmaster::test {

struct ProcessResult {
  int exitCode = -1;  // exit status, or -1 when killed by a signal or the timeout
  int signal = 0;     // terminating signal, 0 if none
  bool timedOut = false;
  int64_t peakRssBytes = 0;  // the most memory it held at once (its maximum resident set)
  std::string out;
  std::string err;
};

// Runs argv[0] (a path) with `argv`, extra environment variables added, killing it after `timeout`.
ProcessResult runProcess(const std::vector<std::string>& argv,
                         const std::map<std::string, std::string>& env = {},
                         std::chrono::milliseconds timeout = std::chrono::seconds(60));

// A child process running beside the test, its output into files: started at once, interrupted, waited for
// with a limit, killed (with everything it started in its process group) when it goes out of scope.
class BackgroundProcess {
 public:
  // `outputPrefix`: its output goes to PREFIX.out and PREFIX.err (kept); empty: to temporary files.
  BackgroundProcess(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env = {},
                    const std::string& outputPrefix = {});
  ~BackgroundProcess();
  BackgroundProcess(const BackgroundProcess&) = delete;
  BackgroundProcess& operator=(const BackgroundProcess&) = delete;

  int pid() const { return pid_; }
  void signal(int sig) const;
  // The result once the process ended, or one with timedOut set (the process still runs) after `timeout`.
  ProcessResult wait(std::chrono::milliseconds timeout);
  bool running();
  std::string out() const;
  std::string err() const;

 private:
  int pid_ = -1;
  bool reaped_ = false;
  int status_ = 0;
  bool temporary_ = false;
  std::string outPath_;
  std::string errPath_;
};

// Path of a binary built by this project.
std::string binPath(const std::string& name);

}  // namespace ringmaster::test
