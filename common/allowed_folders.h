// SPDX-License-Identifier: GPL-3.0-or-later
// The folders an agent's owner lets jobs use (ringmaster-agent --allow-folder), held open, so that every
// file a job names (its data, checkpoints, model) is opened beneath one of them at the moment it is used:
// openat2(RESOLVE_BENEATH) from the folder's descriptor, so that no link and no ".." in the path, made
// before or after the agent checked the launch, leads out of it.
#pragma once

#include <sys/types.h>

#include <string>
#include <utility>
#include <vector>

namespace ringmaster {

// An open file descriptor, closed with the object; -1 when there is none.
class FileDescriptor {
 public:
  FileDescriptor() = default;
  explicit FileDescriptor(int fd) : fd_(fd) {}
  ~FileDescriptor();
  FileDescriptor(FileDescriptor&& other) noexcept : fd_(other.release()) {}
  FileDescriptor& operator=(FileDescriptor&& other) noexcept;
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;

  int get() const { return fd_; }
  explicit operator bool() const { return fd_ >= 0; }
  // Gives the descriptor up to the caller, who closes it.
  int release();

 private:
  int fd_ = -1;
};

class AllowedFolders {
 public:
  // Confines nothing: paths are opened as given (the folders of a user's own local run are theirs, and a
  // worker started by hand has no agent to confine it).
  AllowedFolders() = default;
  // Opens each of `folders` (absolute, links resolved, as the agent resolved them at its start) once.
  // Throws InputError naming a folder that is not one here, or whose path now holds a link.
  explicit AllowedFolders(const std::vector<std::string>& folders);
  ~AllowedFolders();
  AllowedFolders(const AllowedFolders&) = delete;
  AllowedFolders& operator=(const AllowedFolders&) = delete;

  // The instance that confines nothing.
  static const AllowedFolders& anywhere();

  bool confining() const { return !folders_.empty(); }
  // The folders, as given.
  std::vector<std::string> paths() const;
  // Opens `path` (absolute) as open(2) would with `flags` (O_CLOEXEC added; `mode` with O_CREAT), resolving
  // every link and ".." in it beneath the allowed folder that holds it. Returns no descriptor, with errno
  // set, where open(2) would fail (ENOENT, EACCES ...). Throws InputError naming the path, the folder it
  // leads out of and the agent's --allow-folder when it is outside every allowed folder or leads out of one.
  FileDescriptor open(const std::string& path, int flags, mode_t mode = 0) const;
  // The folder `path`, created with any missing parents (mode 0777 less the umask) beneath the allowed
  // folder that holds it, open for reading (O_DIRECTORY). Throws InputError as open() does, and naming the
  // folder when it cannot be created or opened.
  FileDescriptor makeFolders(const std::string& path) const;

 private:
  struct Folder {
    std::string path;
    int fd = -1;  // O_PATH
  };
  // The allowed folder holding `path` and the path relative to it ("." for the folder itself).
  std::pair<const Folder*, std::string> locate(const std::string& path) const;
  FileDescriptor openBeneath(const Folder& folder, const std::string& relative, const std::string& path,
                             int flags, mode_t mode) const;

  std::vector<Folder> folders_;
};

}  // namespace ringmaster
