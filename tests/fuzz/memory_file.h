// SPDX-License-Identifier: GPL-3.0-or-later
// A file in memory (memfd) with a path, for the readers that take a path: each input is written over the last
// one, so a fuzz run touches no disk and creates no files.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace ringmaster::fuzz {

class MemoryFile {
 public:
  MemoryFile() : fd_(::memfd_create("ringmaster-fuzz", MFD_CLOEXEC)) {
    if (fd_ < 0) throw std::runtime_error("memfd_create failed");
    path_ = "/proc/self/fd/" + std::to_string(fd_);
  }
  ~MemoryFile() { ::close(fd_); }
  MemoryFile(const MemoryFile&) = delete;
  MemoryFile& operator=(const MemoryFile&) = delete;

  // Makes the file hold exactly `bytes`; returns its path.
  const std::string& hold(const uint8_t* bytes, size_t size) {
    if (::ftruncate(fd_, 0) != 0) throw std::runtime_error("ftruncate failed");
    size_t written = 0;
    while (written < size) {
      ssize_t n = ::pwrite(fd_, bytes + written, size - written, static_cast<off_t>(written));
      if (n <= 0) throw std::runtime_error("pwrite failed");
      written += static_cast<size_t>(n);
    }
    return path_;
  }

 private:
  int fd_;
  std::string path_;
};

}  // namespace ringmaster::fuzz
