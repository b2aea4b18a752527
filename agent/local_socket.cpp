// SPDX-License-Identifier: GPL-3.0-or-later
#include "agent/local_socket.h"

#include <fcntl.h>
#include <grpcpp/server.h>
#include <grpcpp/server_posix.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>

#include "common/error.h"

namespace ringmaster::agent {
namespace {

sockaddr_un addressOf(const std::string& path) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (path.size() >= sizeof address.sun_path) {
    throw InputError("socket path " + path + " is longer than " +
                     std::to_string(sizeof address.sun_path - 1) +
                     " bytes: set XDG_RUNTIME_DIR to a shorter folder");
  }
  std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
  return address;
}

// True when something accepts connections at `path`.
bool answers(const sockaddr_un& address) {
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  bool connected = ::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0;
  ::close(fd);
  return connected;
}

}  // namespace

SameUserSocket::SameUserSocket(std::string path) : path_(std::move(path)) {
  const sockaddr_un address = addressOf(path_);
  struct stat st {};
  if (::lstat(path_.c_str(), &st) == 0) {
    if (!S_ISSOCK(st.st_mode)) throw InputError(path_ + " exists and is not a socket: remove it");
    if (answers(address)) {
      throw InputError(path_ +
                       " is in use: another agent of this user serves it (give this one another --port)");
    }
    ::unlink(path_.c_str());
  }
  listenFd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (listenFd_ < 0) throw InputError(std::string("cannot make a Unix socket: ") + std::strerror(errno));
  // Made 0600 from the start, so no other user can connect between bind and chmod.
  const mode_t old = ::umask(077);
  const int bound = ::bind(listenFd_, reinterpret_cast<const sockaddr*>(&address), sizeof address);
  const int bindErrno = errno;
  ::umask(old);
  if (bound != 0 || ::listen(listenFd_, 64) != 0) {
    const std::string why = std::strerror(bound != 0 ? bindErrno : errno);
    ::close(listenFd_);
    listenFd_ = -1;
    throw InputError("cannot listen on " + path_ + " (" + why + ")");
  }
  wakeFd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
}

SameUserSocket::~SameUserSocket() {
  close();
  if (wakeFd_ >= 0) ::close(wakeFd_);
}

void SameUserSocket::serve(grpc::Server& server) {
  // The server owns each connection from here on.
  serve([&server](int fd) { grpc::AddInsecureChannelFromFd(&server, fd); });
}

void SameUserSocket::serve(std::function<void(int fd)> take) {
  thread_ = std::thread([this, take = std::move(take)] { acceptLoop(take); });
}

void SameUserSocket::close() {
  if (thread_.joinable()) {
    const uint64_t one = 1;
    [[maybe_unused]] ssize_t n = ::write(wakeFd_, &one, sizeof one);
    thread_.join();
  }
  if (listenFd_ >= 0) {
    ::close(listenFd_);
    listenFd_ = -1;
    ::unlink(path_.c_str());
  }
}

void SameUserSocket::acceptLoop(const std::function<void(int fd)>& take) {
  const uid_t self = ::geteuid();
  for (;;) {
    pollfd fds[2] = {{listenFd_, POLLIN, 0}, {wakeFd_, POLLIN, 0}};
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (fds[1].revents != 0) return;
    int fd = ::accept4(listenFd_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd < 0) continue;
    ucred peer{};
    socklen_t size = sizeof peer;
    if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &size) != 0 || peer.uid != self) {
      if (refused_.fetch_add(1) == 0) {
        std::cerr << "agent: refused a connection to " << path_ << " from uid " << peer.uid << " (only uid "
                  << self << " may use this agent)\n";
      }
      ::close(fd);
      continue;
    }
    take(fd);
  }
}

}  // namespace ringmaster::agent
