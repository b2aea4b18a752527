// SPDX-License-Identifier: GPL-3.0-or-later
#include "worker/process_memory.h"

#include <fcntl.h>
#include <malloc.h>
#include <unistd.h>

#include <cstdio>

namespace ringmaster::worker {

namespace {

uint64_t pageSize() {
  static const uint64_t bytes = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  return bytes;
}

}  // namespace

uint64_t hostTotalBytes() {
  static const uint64_t total = static_cast<uint64_t>(sysconf(_SC_PHYS_PAGES)) * pageSize();
  return total;
}

// /proc/self/statm stays open per thread: a read is one system call where an open, read and close are four. A
// forked child opens its own (the descriptor it inherited shows its parent).
class StatmFile {
 public:
  ~StatmFile() {
    if (fd_ >= 0) close(fd_);
  }
  int fd() {
    const pid_t pid = getpid();
    if (pid != pid_) {
      if (fd_ >= 0) close(fd_);
      fd_ = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
      pid_ = pid;
    }
    return fd_;
  }

 private:
  pid_t pid_ = 0;
  int fd_ = -1;
};

uint64_t readRssBytes() {
  thread_local StatmFile statm;
  const int fd = statm.fd();
  if (fd < 0) return 0;
  char text[128];
  const ssize_t n = pread(fd, text, sizeof text - 1, 0);
  if (n <= 0) return 0;
  text[n] = '\0';
  unsigned long long sizePages = 0;
  unsigned long long residentPages = 0;
  if (std::sscanf(text, "%llu %llu", &sizePages, &residentPages) != 2) return 0;
  return residentPages * pageSize();
}

uint64_t readHeapBytes() {
  struct mallinfo2 info = mallinfo2();
  return info.uordblks + info.hblkhd;
}

ProcessMemory readProcessMemory() {
  ProcessMemory memory;
  memory.hostTotalBytes = hostTotalBytes();
  memory.rssBytes = readRssBytes();
  memory.heapBytes = readHeapBytes();
  return memory;
}

}  // namespace ringmaster::worker
