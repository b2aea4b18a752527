// SPDX-License-Identifier: GPL-3.0-or-later
// The agent's gRPC server: the Agent service for consoles and the Telemetry service for ranks, on the
// callback API (one reactor per call). Ranks always report to a loopback port of their own; consoles reach
// `listen:port`.
#pragma once

#include <memory>
#include <string>

#include "agent/agent.h"
#include "agent/agent_options.h"

namespace grpc {
class Server;
}

namespace ringmaster::agent {

class AgentServer {
 public:
  // Starts listening. Throws InputError naming the option when it cannot (unsafe options, unreadable token or
  // certificate, address in use). Port 0 picks a free port (the embedded agent of a console).
  explicit AgentServer(const AgentOptions& options);
  // Stops every job (SIGTERM, then SIGKILL) and the server.
  ~AgentServer();
  AgentServer(const AgentServer&) = delete;
  AgentServer& operator=(const AgentServer&) = delete;

  int port() const { return port_; }
  // host:port a console on this machine can use.
  std::string localAddress() const;
  Agent& agent() { return *agent_; }

  // Blocks until shutdown() is called from another thread.
  void wait();
  void shutdown();

 private:
  class Services;
  AgentOptions options_;
  int port_ = 0;
  int telemetryPort_ = 0;
  std::unique_ptr<Agent> agent_;
  std::unique_ptr<Services> services_;
  std::unique_ptr<grpc::Server> server_;
  bool shutDown_ = false;
};

// The default places: ringmaster-worker beside the running program; $XDG_STATE_HOME/ringmaster/agent.
std::string defaultWorkerPath();
std::string defaultStateDir();

// The bearer token in `path` (surrounding whitespace removed). Throws InputError naming the file.
std::string readTokenFile(const std::string& path);

}  // namespace ringmaster::agent
