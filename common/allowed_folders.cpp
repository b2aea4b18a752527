// SPDX-License-Identifier: GPL-3.0-or-later
#include "common/allowed_folders.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <optional>

#include "common/error.h"

namespace ringmaster {
namespace fs = std::filesystem;

namespace {

// A rename elsewhere on the filesystem makes RESOLVE_BENEATH answer EAGAIN; it is asked again this often.
constexpr int kBeneathAttempts = 16;

// The path's names, without empty ones and "." ("/a//./b" is {"a", "b"}); ".." is kept for the kernel to
// resolve beneath the folder.
std::vector<std::string> components(const std::string& path) {
  std::vector<std::string> names;
  size_t start = 0;
  while (start <= path.size()) {
    size_t slash = path.find('/', start);
    if (slash == std::string::npos) slash = path.size();
    std::string name = path.substr(start, slash - start);
    if (!name.empty() && name != ".") names.push_back(std::move(name));
    start = slash + 1;
  }
  return names;
}

// `names` past `folder`'s joined by '/' ("." for the folder itself), or nullopt when `folder` does not hold
// them.
std::optional<std::string> relativeTo(const std::vector<std::string>& names, const std::string& folder) {
  const std::vector<std::string> base = components(folder);
  if (names.size() < base.size() || !std::equal(base.begin(), base.end(), names.begin())) return std::nullopt;
  std::string relative;
  for (size_t i = base.size(); i < names.size(); ++i) relative += (relative.empty() ? "" : "/") + names[i];
  return relative.empty() ? "." : relative;
}

const char* kHowToAllow = "its owner allows a folder by starting the agent with --allow-folder DIR";

}  // namespace

FileDescriptor::~FileDescriptor() {
  if (fd_ >= 0) ::close(fd_);
}

FileDescriptor& FileDescriptor::operator=(FileDescriptor&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.release();
  }
  return *this;
}

int FileDescriptor::release() {
  const int fd = fd_;
  fd_ = -1;
  return fd;
}

AllowedFolders::AllowedFolders(const std::vector<std::string>& folders) {
  for (const auto& path : folders) {
    // No link may stand in the path now: the agent resolved it, so one that appeared since was put there.
    open_how how{};
    how.flags = O_PATH | O_DIRECTORY | O_CLOEXEC;
    how.resolve = RESOLVE_NO_SYMLINKS;
    int fd = -1;
    for (int attempt = 0; attempt < kBeneathAttempts; ++attempt) {
      fd = static_cast<int>(::syscall(SYS_openat2, AT_FDCWD, path.c_str(), &how, sizeof how));
      if (fd >= 0 || errno != EAGAIN) break;
    }
    if (fd < 0) {
      const int error = errno;
      for (auto& folder : folders_) ::close(folder.fd);
      folders_.clear();
      throw InputError("allowed folder " + path + ": " +
                       (error == ELOOP ? std::string("a link now stands in its path")
                        : error == ENOSYS
                            ? std::string("this kernel cannot open files beneath a folder (openat2 needs "
                                          "Linux 5.6 or later)")
                            : std::strerror(error)));
    }
    folders_.push_back({path, fd});
  }
}

AllowedFolders::~AllowedFolders() {
  for (auto& folder : folders_) ::close(folder.fd);
}

std::vector<std::string> AllowedFolders::paths() const {
  std::vector<std::string> paths;
  for (const auto& folder : folders_) paths.push_back(folder.path);
  return paths;
}

const AllowedFolders& AllowedFolders::anywhere() {
  static const AllowedFolders none;
  return none;
}

std::pair<const AllowedFolders::Folder*, std::string> AllowedFolders::locate(const std::string& path) const {
  std::error_code ec;
  const fs::path absolute = fs::absolute(path, ec);
  const std::vector<std::string> names = components(absolute.string());
  auto holding = [&](const std::vector<std::string>& of) -> std::pair<const Folder*, std::string> {
    const Folder* best = nullptr;
    std::string relative;
    for (const auto& folder : folders_) {
      auto inside = relativeTo(of, folder.path);
      if (inside && (!best || folder.path.size() > best->path.size())) {
        best = &folder;
        relative = *inside;
      }
    }
    return {best, relative};
  };
  if (auto found = holding(names); found.first) return found;
  // A path that reaches an allowed folder through a link (as the agent's check at launch resolves it): opened
  // by where the link leads now, still beneath that folder.
  const fs::path resolved = fs::weakly_canonical(absolute, ec);
  if (!ec) {
    if (auto found = holding(components(resolved.string())); found.first) return found;
  }
  std::string allowed;
  for (const auto& folder : folders_) allowed += (allowed.empty() ? "" : " ") + folder.path;
  throw InputError(path + " is outside the folders this agent lets jobs use (" + allowed +
                   "): " + kHowToAllow + ", or choose a path inside one of those");
}

FileDescriptor AllowedFolders::openBeneath(const Folder& folder, const std::string& relative,
                                           const std::string& path, int flags, mode_t mode) const {
  open_how how{};
  how.flags = static_cast<uint64_t>(flags | O_CLOEXEC);
  if (flags & O_CREAT) how.mode = mode;
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
  int fd = -1;
  for (int attempt = 0; attempt < kBeneathAttempts; ++attempt) {
    fd = static_cast<int>(::syscall(SYS_openat2, folder.fd, relative.c_str(), &how, sizeof how));
    if (fd >= 0 || errno != EAGAIN) break;
  }
  if (fd < 0 && errno == EXDEV) {
    throw InputError(path + " leads out of " + folder.path +
                     " (through a link or '..'), the folder this agent lets the job use it in: " +
                     kHowToAllow + ", or give a path that stays inside it");
  }
  return FileDescriptor(fd);
}

FileDescriptor AllowedFolders::open(const std::string& path, int flags, mode_t mode) const {
  if (!confining()) return FileDescriptor(::open(path.c_str(), flags | O_CLOEXEC, mode));
  auto [folder, relative] = locate(path);
  return openBeneath(*folder, relative, path, flags, mode);
}

FileDescriptor AllowedFolders::makeFolders(const std::string& path) const {
  auto cannot = [](const std::string& folder, int error) {
    return InputError(folder + ": cannot create or open the folder: " + std::strerror(error));
  };
  if (!confining()) {
    std::error_code ec;
    fs::create_directories(path, ec);
    if (ec) throw InputError(path + ": cannot create the folder: " + ec.message());
    FileDescriptor fd(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!fd) throw cannot(path, errno);
    return fd;
  }
  auto [folder, relative] = locate(path);
  // Each missing folder is made inside its parent as opened beneath the allowed folder, so none is made
  // where a link points.
  FileDescriptor parent;
  std::string sofar;
  for (const auto& name : components(relative)) {
    const int parentFd = parent ? parent.get() : folder->fd;
    sofar += (sofar.empty() ? "" : "/") + name;
    FileDescriptor next = openBeneath(*folder, sofar, path, O_PATH | O_DIRECTORY, 0);
    if (!next && errno == ENOENT) {
      if (::mkdirat(parentFd, name.c_str(), 0777) != 0 && errno != EEXIST)
        throw cannot(folder->path + "/" + sofar, errno);
      next = openBeneath(*folder, sofar, path, O_PATH | O_DIRECTORY, 0);
    }
    if (!next) throw cannot(folder->path + "/" + sofar, errno);
    parent = std::move(next);
  }
  FileDescriptor opened = openBeneath(*folder, relative, path, O_RDONLY | O_DIRECTORY, 0);
  if (!opened) throw cannot(path, errno);
  return opened;
}

}  // namespace ringmaster
