// SPDX-License-Identifier: GPL-3.0-or-later
#include "common/small_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/error.h"

namespace ringmaster {

std::string readSmallFile(const std::string& path, const std::string& what, size_t limit) {
  auto failure = [&](const std::string& why) { return InputError(what + " " + path + ": " + why); };
  // O_NONBLOCK: opening a FIFO with no writer must not wait; the type check below refuses it anyway.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) throw failure(std::string("cannot read the file (") + std::strerror(errno) + ")");
  struct stat info {};
  if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    ::close(fd);
    throw failure("not a regular file; give the path of the file itself");
  }
  if (static_cast<size_t>(info.st_size) > limit) {
    ::close(fd);
    throw failure("the file has " + std::to_string(info.st_size) +
                  " bytes, more than such a file ever needs (" + std::to_string(limit) + "); check the path");
  }
  std::string text;
  char buffer[16384];
  while (true) {
    ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int error = errno;
      ::close(fd);
      throw failure(std::string("cannot read the file (") + std::strerror(error) + ")");
    }
    if (n == 0) break;
    text.append(buffer, static_cast<size_t>(n));
    if (text.size() > limit) {  // it grew while being read
      ::close(fd);
      throw failure("the file is larger than such a file ever needs (" + std::to_string(limit) + " bytes)");
    }
  }
  ::close(fd);
  return text;
}

}  // namespace ringmaster
