// SPDX-License-Identifier: GPL-3.0-or-later
// The Unix socket the ranks of users' programs report through (RINGMASTER_TELEMETRY_SOCKET), for the
// ringmaster Python package, which has neither gRPC nor protobuf: this user's processes only
// (SameUserSocket), each rank naming its job, its rank and its secret in a hello, then sending record
// batches, control polls and a bye (protocol/ringmaster/v1/telemetry.proto, RankFrame). The records go the
// way the Telemetry service's do (RankIntake). One thread serves every connection.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <thread>

#include "agent/local_socket.h"

namespace ringmaster::v1 {
class RankFrame;
}

namespace ringmaster::agent {

class Agent;

class RankSocket {
 public:
  // Listens on `path`; throws InputError naming it when it cannot.
  RankSocket(Agent& agent, std::string path);
  // Hangs up on every rank and removes the socket file.
  ~RankSocket();
  RankSocket(const RankSocket&) = delete;
  RankSocket& operator=(const RankSocket&) = delete;

  const std::string& path() const { return socket_.path(); }

 private:
  struct Mailbox;
  struct Connection;

  void loop();
  void readFrom(Connection& connection);
  // False when the connection is to end once its answer is written.
  bool handle(Connection& connection, v1::RankFrame& frame);
  void send(Connection& connection, const std::string& bytes);
  void flush(Connection& connection);

  Agent& agent_;
  std::shared_ptr<Mailbox> mailbox_;  // shared with the accepting thread and the journals' callbacks
  SameUserSocket socket_;
  std::map<uint64_t, std::unique_ptr<Connection>> connections_;  // the loop's own
  uint64_t nextId_ = 1;
  std::thread thread_;
};

}  // namespace ringmaster::agent
