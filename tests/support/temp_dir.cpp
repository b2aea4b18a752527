// SPDX-License-Identifier: GPL-3.0-or-later
#include "tests/support/temp_dir.h"

#include <stdlib.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>

namespace ringmaster::test {

namespace fs = std::filesystem;

TempDir::TempDir(const std::string& tag) {
  std::string pattern = (fs::temp_directory_path() / ("rm-" + tag + "-XXXXXX")).string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    throw std::runtime_error("cannot create the temporary folder " + pattern + ": " + std::strerror(errno));
  }
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ignored;  // a folder a test already removed, or a file still busy, is no reason to abort
  fs::remove_all(path_, ignored);
}

std::string TempDir::file(const std::string& name) const {
  return (fs::path(path_) / name).string();
}

}  // namespace ringmaster::test
