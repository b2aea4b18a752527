// SPDX-License-Identifier: GPL-3.0-or-later
#include "history/console_claims.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <mutex>
#include <utility>

namespace ringmaster {

namespace {

// <store>.consoles beside the store file (links resolved): where live consoles keep their lock files.
std::string consolesFolder(const std::string& storePath) {
  std::error_code ec;
  return std::filesystem::weakly_canonical(storePath, ec).string() + ".consoles";
}

// Room enough for a run's end: its findings and its status, written in one transaction.
constexpr off_t kEndRoomBytes = 256 << 10;

std::string endRoomFile(const std::string& storePath, int64_t runId) {
  return consolesFolder(storePath) + "/run-" + std::to_string(runId) + ".room";
}

}  // namespace

// The descriptor stays open until the process ends, when the kernel releases the lock, also after kill -9.
std::string claimForThisProcess(const std::string& storePath) {
  static std::mutex mutex;
  static std::map<std::pair<pid_t, std::string>, std::string> claimed;  // (process, lock folder) -> lock file
  std::lock_guard lock(mutex);
  const std::string folder = consolesFolder(storePath);
  // Keyed by process too: a forked child shares its parent's lock and must take its own.
  if (auto it = claimed.find({::getpid(), folder}); it != claimed.end()) return it->second;
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  std::string name = std::string(host) + "-" + std::to_string(::getpid()) + ".lock";
  std::error_code ec;
  std::filesystem::create_directories(folder, ec);
  int fd = ::open((folder + "/" + name).c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0 || ::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if (fd >= 0) ::close(fd);
    name.clear();  // no lock beside the store: the next console to open it takes the run for an orphan
  }
  claimed[{::getpid(), folder}] = name;
  return name;
}

bool consoleAlive(const std::string& storePath, const std::string& name) {
  if (name.empty() || name.find('/') != std::string::npos) return false;
  const std::string file = consolesFolder(storePath) + "/" + name;
  int fd = ::open(file.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) return false;
  // Only a lock taken proves the console gone; any failure (held, or locks unsupported here) leaves it be.
  const bool held = ::flock(fd, LOCK_EX | LOCK_NB) != 0;
  if (!held) ::unlink(file.c_str());
  ::close(fd);
  return held;
}

bool consoleSeemsAlive(const std::string& storePath, const std::string& name) {
  if (name.empty() || name.find('/') != std::string::npos) return false;
  int fd = ::open((consolesFolder(storePath) + "/" + name).c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool held = ::flock(fd, LOCK_SH | LOCK_NB) != 0;
  ::close(fd);
  return held;
}

void keepEndRoom(const std::string& storePath, int64_t runId) {
  const int fd = ::open(endRoomFile(storePath, runId).c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) return;  // no room even for this: the run goes on without it
  (void)::posix_fallocate(fd, 0, kEndRoomBytes);
  ::close(fd);
}

bool releaseEndRoom(const std::string& storePath, int64_t runId) {
  return ::unlink(endRoomFile(storePath, runId).c_str()) == 0;
}

}  // namespace ringmaster
