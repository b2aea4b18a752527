// SPDX-License-Identifier: GPL-3.0-or-later
#include "tests/support/process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <stdexcept>
#include <thread>

#include "tests/support/files.h"

namespace ringmaster::test {

std::string binPath(const std::string& name) {
  return std::string(RM_BIN_DIR) + "/" + name;
}

ProcessResult runProcess(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
                         std::chrono::milliseconds timeout) {
  char outPath[] = "/tmp/rm-test-out-XXXXXX";
  char errPath[] = "/tmp/rm-test-err-XXXXXX";
  int outFd = mkstemp(outPath);
  int errFd = mkstemp(errPath);
  ProcessResult result;
  pid_t pid = fork();
  if (pid == 0) {
    dup2(outFd, STDOUT_FILENO);
    dup2(errFd, STDERR_FILENO);
    int devNull = open("/dev/null", O_RDONLY);
    dup2(devNull, STDIN_FILENO);
    for (const auto& [key, value] : env) setenv(key.c_str(), value.c_str(), 1);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    std::perror("execv");
    _exit(127);
  }
  close(outFd);
  close(errFd);
  auto deadline = std::chrono::steady_clock::now() + timeout;
  int status = 0;
  rusage usage{};
  while (true) {
    pid_t done = wait4(pid, &status, WNOHANG, &usage);
    if (done == pid) break;
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      wait4(pid, &status, 0, &usage);
      result.timedOut = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (WIFEXITED(status) && !result.timedOut) result.exitCode = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  result.peakRssBytes = int64_t{usage.ru_maxrss} * 1024;  // Linux counts it in KiB
  result.out = readFile(outPath);
  result.err = readFile(errPath);
  unlink(outPath);
  unlink(errPath);
  return result;
}

BackgroundProcess::BackgroundProcess(const std::vector<std::string>& argv,
                                     const std::map<std::string, std::string>& env,
                                     const std::string& outputPrefix) {
  int outFd = -1, errFd = -1;
  if (outputPrefix.empty()) {
    char outPath[] = "/tmp/rm-test-bg-out-XXXXXX";
    char errPath[] = "/tmp/rm-test-bg-err-XXXXXX";
    outFd = ::mkostemp(outPath, O_CLOEXEC);
    errFd = ::mkostemp(errPath, O_CLOEXEC);
    outPath_ = outPath;
    errPath_ = errPath;
    temporary_ = true;
  } else {
    outPath_ = outputPrefix + ".out";
    errPath_ = outputPrefix + ".err";
    outFd = ::open(outPath_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    errFd = ::open(errPath_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  }
  if (outFd < 0 || errFd < 0) throw std::runtime_error("cannot create " + outPath_ + " or " + errPath_);
  pid_ = ::fork();
  if (pid_ == 0) {
    ::setpgid(0, 0);
    ::dup2(outFd, STDOUT_FILENO);
    ::dup2(errFd, STDERR_FILENO);
    int devNull = ::open("/dev/null", O_RDONLY);
    ::dup2(devNull, STDIN_FILENO);
    for (const auto& [key, value] : env) ::setenv(key.c_str(), value.c_str(), 1);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execv(args[0], args.data());
    std::perror("execv");
    ::_exit(127);
  }
  ::close(outFd);
  ::close(errFd);
  if (pid_ < 0) throw std::runtime_error("cannot fork for " + argv.at(0));
}

BackgroundProcess::~BackgroundProcess() {
  if (running()) {
    ::kill(-pid_, SIGTERM);
    if (wait(std::chrono::seconds(10)).timedOut) {
      ::kill(-pid_, SIGKILL);
      ::waitpid(pid_, &status_, 0);
      reaped_ = true;
    }
  }
  if (temporary_) {
    ::unlink(outPath_.c_str());
    ::unlink(errPath_.c_str());
  }
}

void BackgroundProcess::signal(int sig) const {
  if (!reaped_) ::kill(pid_, sig);
}

bool BackgroundProcess::running() {
  if (reaped_) return false;
  if (::waitpid(pid_, &status_, WNOHANG) == pid_) reaped_ = true;
  return !reaped_;
}

ProcessResult BackgroundProcess::wait(std::chrono::milliseconds timeout) {
  ProcessResult result;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (running() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  result.timedOut = running();
  if (!result.timedOut) {
    if (WIFEXITED(status_)) result.exitCode = WEXITSTATUS(status_);
    if (WIFSIGNALED(status_)) result.signal = WTERMSIG(status_);
  }
  result.out = out();
  result.err = err();
  return result;
}

std::string BackgroundProcess::out() const {
  return readFile(outPath_);
}

std::string BackgroundProcess::err() const {
  return readFile(errPath_);
}

}  // namespace ringmaster::test
