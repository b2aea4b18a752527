// SPDX-License-Identifier: GPL-3.0-or-later
// A Unix socket that serves this user's own processes only: it lives in the user's private runtime folder, is
// mode 0600, and every connection's peer credentials (SO_PEERCRED) are checked before its server (a gRPC
// server, or the agent's rank socket) sees a byte; a caller of another uid is hung up on.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <thread>

namespace grpc {
class Server;
}

namespace ringmaster::agent {

class SameUserSocket {
 public:
  // Binds `path` (a stale socket there is replaced; one that answers is "in use"). Throws InputError naming
  // the path when it cannot.
  explicit SameUserSocket(std::string path);
  // Stops accepting and removes the socket file.
  ~SameUserSocket();
  SameUserSocket(const SameUserSocket&) = delete;
  SameUserSocket& operator=(const SameUserSocket&) = delete;

  // Hands every accepted connection of this uid to `server` (which must outlive this object's accepting; call
  // close() before shutting the server down).
  void serve(grpc::Server& server);
  // Hands every accepted connection of this uid (a non-blocking descriptor, theirs to close) to `take`, on
  // the socket's own thread.
  void serve(std::function<void(int fd)> take);
  void close();

  const std::string& path() const { return path_; }
  // Connections hung up on because another uid made them.
  int refused() const { return refused_.load(); }

 private:
  void acceptLoop(const std::function<void(int fd)>& take);

  std::string path_;
  int listenFd_ = -1;
  int wakeFd_ = -1;  // an eventfd that ends the accept loop
  std::atomic<int> refused_{0};
  std::thread thread_;
};

}  // namespace ringmaster::agent
