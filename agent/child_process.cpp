// SPDX-License-Identifier: GPL-3.0-or-later
#include "agent/child_process.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace ringmaster::agent {
namespace {

struct Pipe {
  int read = -1;
  int write = -1;
};

Pipe makePipe() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0)
    throw std::runtime_error(std::string("cannot create a pipe: ") + std::strerror(errno));
  return {fds[0], fds[1]};
}

void closeFd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

std::vector<char*> cStrings(const std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (const auto& s : strings) out.push_back(const_cast<char*>(s.c_str()));
  out.push_back(nullptr);
  return out;
}

// What a /proc file of another process holds, or as much of it as could be read: the process may exit
// between listing and reading (the read then fails with ESRCH), which leaves nothing to find there.
std::string procFile(const std::string& path) {
  std::string text;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return text;
  char buffer[4096];
  for (ssize_t n; (n = ::read(fd, buffer, sizeof buffer)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    text.append(buffer, static_cast<size_t>(n));
  }
  ::close(fd);
  return text;
}

}  // namespace

bool becomeSubreaper() {
  return ::prctl(PR_SET_CHILD_SUBREAPER, 1) == 0;
}

std::vector<pid_t> childrenWithEnvironment(const std::string& entry) {
  std::vector<pid_t> found;
  const pid_t self = ::getpid();
  DIR* proc = ::opendir("/proc");
  if (!proc) return found;
  while (dirent* e = ::readdir(proc)) {
    char* end = nullptr;
    const long pid = std::strtol(e->d_name, &end, 10);
    if (pid <= 0 || *end != '\0') continue;
    const std::string dir = std::string("/proc/") + e->d_name;
    const std::string stat = procFile(dir + "/stat");
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so read after the last ')'.
    const size_t close = stat.rfind(')');
    if (close == std::string::npos) continue;
    char state = 0;
    long ppid = 0;
    if (std::sscanf(stat.c_str() + close + 1, " %c %ld", &state, &ppid) != 2 || ppid != self) continue;
    const std::string environment = procFile(dir + "/environ");
    size_t start = 0;
    for (size_t zero; (zero = environment.find('\0', start)) != std::string::npos; start = zero + 1) {
      if (environment.compare(start, zero - start, entry) == 0) {
        found.push_back(static_cast<pid_t>(pid));
        break;
      }
    }
  }
  ::closedir(proc);
  return found;
}

std::vector<std::string> environmentWith(const std::vector<std::string>& overrides) {
  std::vector<std::string> env;
  auto nameOf = [](const std::string& entry) { return entry.substr(0, entry.find('=')); };
  for (char** e = environ; e && *e; ++e) {
    std::string entry(*e);
    bool replaced = false;
    for (const auto& o : overrides) replaced = replaced || nameOf(o) == nameOf(entry);
    if (!replaced) env.push_back(std::move(entry));
  }
  env.insert(env.end(), overrides.begin(), overrides.end());
  return env;
}

ChildProcess::ChildProcess(const SpawnOptions& options) {
  if (options.argv.empty()) throw std::runtime_error("no program to start");
  // Everything the child needs is prepared before fork: between fork and exec only async-signal-safe calls.
  std::vector<char*> argv = cStrings(options.argv);
  std::vector<char*> envp = cStrings(options.env);
  Pipe out = makePipe();
  Pipe err = makePipe();
  Pipe execStatus = makePipe();  // closed by a successful exec; carries errno otherwise
  int devNull = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  pid_t parent = ::getpid();

  pid_t pid = ::fork();
  if (pid < 0) {
    int e = errno;
    for (int fd : {out.read, out.write, err.read, err.write, execStatus.read, execStatus.write, devNull})
      ::close(fd);
    throw std::runtime_error(std::string("cannot fork: ") + std::strerror(e));
  }
  if (pid == 0) {
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    for (int sig : {SIGINT, SIGTERM, SIGPIPE, SIGCHLD, SIGHUP, SIGXFSZ}) ::signal(sig, SIG_DFL);
    ::setpgid(0, 0);
    if (options.dieWithParent) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent) ::_exit(127);  // the parent died before prctl took effect
    }
    const bool moved = options.workingDirFd >= 0    ? ::fchdir(options.workingDirFd) == 0
                       : options.workingDir.empty() ? true
                                                    : ::chdir(options.workingDir.c_str()) == 0;
    if (!moved) {
      int e = errno;
      ssize_t ignored = ::write(execStatus.write, &e, sizeof e);
      (void)ignored;
      ::_exit(127);
    }
    ::dup2(devNull, STDIN_FILENO);
    ::dup2(out.write, STDOUT_FILENO);
    ::dup2(err.write, STDERR_FILENO);
    if (options.executable.empty()) {
      ::execve(argv[0], argv.data(), envp.data());
    } else {
      ::execveat(AT_FDCWD, options.executable.c_str(), argv.data(), envp.data(), AT_SYMLINK_NOFOLLOW);
    }
    int e = errno;
    ssize_t ignored = ::write(execStatus.write, &e, sizeof e);
    (void)ignored;
    ::_exit(127);
  }
  ::setpgid(pid, pid);  // also here, so that signalGroup works even before the child ran
  pid_ = pid;
  for (int fd : {out.write, err.write, execStatus.write, devNull}) ::close(fd);
  int childErrno = 0;
  ssize_t n;
  do {
    n = ::read(execStatus.read, &childErrno, sizeof childErrno);
  } while (n < 0 && errno == EINTR);
  ::close(execStatus.read);
  if (n == sizeof childErrno) {
    ::close(out.read);
    ::close(err.read);
    int status = 0;
    ::waitpid(pid, &status, 0);
    pid_ = -1;
    throw std::runtime_error(options.argv[0] + ": " + std::strerror(childErrno));
  }
  stdout_ = out.read;
  stderr_ = err.read;
  for (int fd : {stdout_, stderr_}) ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
}

ChildProcess::~ChildProcess() {
  if (pid_ > 0 && !exited_) {
    signalGroup(SIGKILL);
    int status = 0;
    ::waitpid(pid_, &status, 0);
  }
  closeFd(stdout_);
  closeFd(stderr_);
}

void ChildProcess::closeOutput(int fd) {
  if (fd == stdout_) closeFd(stdout_);
  if (fd == stderr_) closeFd(stderr_);
}

bool ChildProcess::poll() {
  if (exited_ || pid_ <= 0) return exited_;
  int status = 0;
  pid_t done = ::waitpid(pid_, &status, WNOHANG);
  if (done != pid_) return false;
  exited_ = true;
  if (WIFEXITED(status)) exitCode_ = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) signal_ = WTERMSIG(status);
  // Whatever the rank started must not outlive it.
  ::kill(-pid_, SIGKILL);
  return true;
}

void ChildProcess::signalGroup(int sig) {
  if (pid_ > 0 && !exited_) ::kill(-pid_, sig);
}

std::string signalName(int sig) {
  const char* abbrev = ::sigabbrev_np(sig);
  return abbrev ? std::string("SIG") + abbrev : "signal " + std::to_string(sig);
}

CommandOutput runCommand(const std::vector<std::string>& argv, std::chrono::milliseconds timeout) {
  ChildProcess child(SpawnOptions{argv, environmentWith({}), false, ""});
  CommandOutput result;
  auto deadline = std::chrono::steady_clock::now() + timeout;
  char buffer[4096];
  while (child.stdoutFd() >= 0 || child.stderrFd() >= 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      throw std::runtime_error(argv[0] + " did not finish within " + std::to_string(timeout.count()) + " ms");
    }
    pollfd fds[2] = {{child.stdoutFd(), POLLIN, 0}, {child.stderrFd(), POLLIN, 0}};
    ::poll(fds, 2, 50);
    for (int i = 0; i < 2; ++i) {
      int fd = fds[i].fd;
      if (fd < 0) continue;
      ssize_t n = ::read(fd, buffer, sizeof buffer);
      if (n > 0) (i == 0 ? result.out : result.err).append(buffer, static_cast<size_t>(n));
      if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) child.closeOutput(fd);
    }
  }
  while (!child.poll()) {
    if (std::chrono::steady_clock::now() > deadline) throw std::runtime_error(argv[0] + " did not exit");
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  result.exitCode = child.exitCode();
  result.signal = child.signal();
  return result;
}

std::string runForOutput(const std::vector<std::string>& argv, std::chrono::milliseconds timeout) {
  CommandOutput result = runCommand(argv, timeout);
  if (result.exitCode != 0 || result.signal != 0) {
    throw std::runtime_error(argv[0] + " failed (exit " + std::to_string(result.exitCode) +
                             "): " + result.err);
  }
  return result.out;
}

}  // namespace ringmaster::agent
