// SPDX-License-Identifier: GPL-3.0-or-later
#include "agent/program_path.h"

#include <limits.h>
#include <unistd.h>

#include <filesystem>
#include <sstream>

#include "common/error.h"

namespace ringmaster::agent {
namespace fs = std::filesystem;

namespace {

bool isExecutableFile(const fs::path& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec) && ::access(path.c_str(), X_OK) == 0;
}

}  // namespace

ProgramPath findProgram(const std::string& name, const std::string& workingDir,
                        const std::string& searchPath) {
  if (name.empty()) throw InputError("the program to run is empty: name an executable");
  fs::path found;
  if (name.find('/') != std::string::npos) {
    fs::path path(name);
    if (path.is_relative()) path = (workingDir.empty() ? fs::current_path() : fs::path(workingDir)) / path;
    if (!isExecutableFile(path)) {
      throw InputError("program " + name + ": " + path.lexically_normal().string() +
                       " is not an executable file on this host");
    }
    found = path.lexically_normal();
  } else {
    std::istringstream folders(searchPath);
    for (std::string folder; std::getline(folders, folder, ':');) {
      if (folder.empty() || fs::path(folder).is_relative()) continue;  // never the current folder
      if (isExecutableFile(fs::path(folder) / name)) {
        found = fs::path(folder) / name;
        break;
      }
    }
    if (found.empty()) {
      throw InputError("program " + name + ": not found on this host's PATH (" + searchPath +
                       "): give its absolute path");
    }
  }
  std::error_code ec;
  fs::path resolved = fs::canonical(found, ec);
  if (ec) throw InputError("program " + name + ": " + found.string() + ": " + ec.message());
  return {found.string(), resolved.string()};
}

std::vector<std::string> pythonRootCandidates(const std::string& binDir) {
  return {(fs::path(binDir) / ".." / "python").lexically_normal().string(),
          (fs::path(binDir) / ".." / RM_PYTHON_INSTALL_DIR).lexically_normal().string()};
}

std::string findPythonRoot(const std::string& binDir) {
  for (const fs::path candidate : pythonRootCandidates(binDir)) {
    std::error_code ec;
    if (fs::is_regular_file(candidate / "ringmaster" / "__init__.py", ec)) {
      return fs::weakly_canonical(candidate, ec).string();
    }
  }
  return {};
}

std::string thisProgramDir() {
  char self[PATH_MAX] = {};
  const ssize_t n = ::readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return {};
  return fs::path(std::string(self, static_cast<size_t>(n))).parent_path().string();
}

std::string instrumentedPythonPath(const std::string& pythonRoot) {
  return pythonRoot + "/ringmaster/_bootstrap:" + pythonRoot;
}

}  // namespace ringmaster::agent
