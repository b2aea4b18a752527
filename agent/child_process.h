// SPDX-License-Identifier: GPL-3.0-or-later
// One child process the agent started: its own process group, its output on pipes, dead when its parent dies.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

namespace ringmaster::agent {

struct SpawnOptions {
  std::vector<std::string> argv;  // argv[0] is the program's path
  std::vector<std::string> env;   // the whole environment, "NAME=value"
  // Deliver SIGKILL to the child when the thread that spawned it ends (PR_SET_PDEATHSIG): spawn from a thread
  // that lives as long as the child should.
  bool dieWithParent = true;
  std::string workingDir;  // folder the child starts in; empty: the parent's
  // The file to execute when it is not argv[0]: a path whose links were resolved when it was checked,
  // executed only while its last part is still no link. argv[0] stays what the program is told it is.
  std::string executable{};
  int workingDirFd = -1;  // when not -1: the folder the child starts in, already open (workingDir names it)
};

class ChildProcess {
 public:
  // Starts the child. Throws std::runtime_error saying why it could not run (e.g. "... : No such file or
  // directory").
  explicit ChildProcess(const SpawnOptions& options);
  // Kills the child's process group if it still runs, and reaps it.
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  pid_t pid() const { return pid_; }
  // Non-blocking read ends of the child's stdout and stderr; -1 once closed.
  int stdoutFd() const { return stdout_; }
  int stderrFd() const { return stderr_; }
  void closeOutput(int fd);

  // Reaps the child if it has exited (never blocks); true once it has.
  bool poll();
  bool exited() const { return exited_; }
  // Valid once exited(): the exit status, or the terminating signal (0 when it exited normally).
  int exitCode() const { return exitCode_; }
  int signal() const { return signal_; }
  // Sends `sig` to the child's whole process group (the rank and anything it started).
  void signalGroup(int sig);

 private:
  pid_t pid_ = -1;
  int stdout_ = -1;
  int stderr_ = -1;
  bool exited_ = false;
  int exitCode_ = 0;
  int signal_ = 0;
};

// Makes this process the reaper of every process its children leave behind (PR_SET_CHILD_SUBREAPER): a
// daemon a rank starts (setsid, double fork) becomes this process's child instead of escaping to init, so the
// job that started it can end it. False when the kernel refuses.
bool becomeSubreaper();

// The processes whose parent is this one and whose environment holds `entry` ("NAME=value"), alive (a zombie
// shows no environment).
std::vector<pid_t> childrenWithEnvironment(const std::string& entry);

// The current environment with `overrides` ("NAME=value") replacing or adding entries.
std::vector<std::string> environmentWith(const std::vector<std::string>& overrides);

// "SIGKILL" for 9; "signal N" for numbers without a name.
std::string signalName(int sig);

struct CommandOutput {
  int exitCode = 0;
  int signal = 0;
  std::string out;
  std::string err;
};

// Runs a program to completion with this process's environment and returns what it printed and how it ended.
// Throws std::runtime_error when it cannot run or outlives `timeout` (it is then killed).
CommandOutput runCommand(const std::vector<std::string>& argv, std::chrono::milliseconds timeout);

// Runs a program to completion and returns its stdout (for `ringmaster-worker --version`).
// Throws std::runtime_error when it cannot run, fails, or outlives `timeout`.
std::string runForOutput(const std::vector<std::string>& argv, std::chrono::milliseconds timeout);

}  // namespace ringmaster::agent
