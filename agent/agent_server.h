// SPDX-License-Identifier: GPL-3.0-or-later
// The agent's gRPC servers, on the callback API (one reactor per call):
// - the Agent service for this user's consoles on a Unix socket in the user's private runtime folder, each
//   connection's uid checked (agent-<port>.sock; a console finds it by 127.0.0.1:<port> with no token);
// - the Agent service on `listen:port` only with a token, which every call must present (loopback is not
// trust);
// - the Telemetry service for Ringmaster's own ranks on a loopback port of its own, each rank presenting its
// own
//   secret, and the rank socket for users' programs (rank_socket.h), likewise.
#pragma once

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>

#include "agent/agent.h"
#include "agent/agent_options.h"

namespace grpc {
class Server;
}

namespace ringmaster::agent {

class RankSocket;
class SameUserSocket;

class AgentServer {
 public:
  // Starts listening. Throws InputError naming the option when it cannot (unsafe options, unreadable token or
  // certificate, address in use). Port 0 picks a free port (the embedded agent of a console).
  explicit AgentServer(const AgentOptions& options);
  // Stops every job (SIGTERM, then SIGKILL) and the server.
  ~AgentServer();
  AgentServer(const AgentServer&) = delete;
  AgentServer& operator=(const AgentServer&) = delete;

  // The TCP port consoles reach with the token; without a token, the number that names the socket.
  int port() const { return port_; }
  bool servesTcp() const { return networkServer_ != nullptr; }
  // Where this user's consoles reach the agent without a token.
  const std::string& socketPath() const;
  // host:port where ranks report (Telemetry only).
  std::string telemetryAddress() const { return "127.0.0.1:" + std::to_string(telemetryPort_); }
  // Where it serves consoles and whom, for a person.
  std::string localAddress() const;
  Agent& agent() { return *agent_; }

  // Blocks until shutdown() (from another thread) has finished.
  void wait();
  void shutdown();

 private:
  struct Services;
  AgentOptions options_;
  int port_ = 0;
  int telemetryPort_ = 0;
  std::unique_ptr<Agent> agent_;
  std::unique_ptr<Services> services_;
  // Destroyed in reverse: the socket stops accepting before the servers go, the servers before their
  // services.
  std::unique_ptr<grpc::Server> localServer_;
  std::unique_ptr<grpc::Server> networkServer_;
  std::unique_ptr<grpc::Server> telemetryServer_;
  std::unique_ptr<SameUserSocket> socket_;
  std::unique_ptr<RankSocket> rankSocket_;
  std::atomic<bool> shuttingDown_{false};
  std::mutex waitMutex_;
  std::condition_variable shutDownCv_;
  bool shutDown_ = false;
};

// The default places: ringmaster-worker beside the running program; $XDG_STATE_HOME/ringmaster/agent.
std::string defaultWorkerPath();
std::string defaultStateDir();

// The bearer token in `path` (surrounding whitespace removed). Throws InputError naming the file.
std::string readTokenFile(const std::string& path);

}  // namespace ringmaster::agent
