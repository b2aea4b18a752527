// SPDX-License-Identifier: GPL-3.0-or-later
#include "common/runtime_dir.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "common/error.h"

namespace ringmaster {
namespace {

// `path` is a folder this user owns that no one else may enter; creates it so when it is missing.
void requirePrivateFolder(const std::string& path) {
  if (::mkdir(path.c_str(), 0700) != 0 && errno != EEXIST) {
    throw InputError("cannot create " + path + " (" + std::strerror(errno) +
                     "): set XDG_RUNTIME_DIR to a folder of yours");
  }
  struct stat st{};
  if (::lstat(path.c_str(), &st) != 0) {
    throw InputError("cannot inspect " + path + " (" + std::strerror(errno) + ")");
  }
  if (!S_ISDIR(st.st_mode)) {
    throw InputError(path + " is not a folder (a link or a file is there): remove it, or set XDG_RUNTIME_DIR");
  }
  if (st.st_uid != ::geteuid()) {
    throw InputError(path + " belongs to uid " + std::to_string(st.st_uid) +
                     ", not to this user: someone else made it; remove it, or set XDG_RUNTIME_DIR");
  }
  if ((st.st_mode & 077) != 0) {
    throw InputError(path + " may be entered by other users (mode " +
                     std::to_string((st.st_mode >> 6) & 7) + std::to_string((st.st_mode >> 3) & 7) +
                     std::to_string(st.st_mode & 7) + "): chmod 700 it");
  }
}

}  // namespace

std::string userRuntimeDir() {
  std::string dir;
  if (const char* runtime = std::getenv("XDG_RUNTIME_DIR"); runtime && *runtime == '/') {
    dir = std::string(runtime) + "/ringmaster";
  } else {
    dir = "/tmp/ringmaster-" + std::to_string(::geteuid());
  }
  requirePrivateFolder(dir);
  return dir;
}

std::string agentSocketPath(const std::string& name) {
  return userRuntimeDir() + "/agent-" + name + ".sock";
}

}  // namespace ringmaster
