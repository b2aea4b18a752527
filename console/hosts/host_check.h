// SPDX-License-Identifier: GPL-3.0-or-later
// Connecting to a remote host's agent as the Hosts page does: the address as a person types it, the token and
// CA files read, GetHostInfo asked with a deadline, and a failure put in words that say what to do about it.
#pragma once

#include <chrono>
#include <string>

#include "console/session/agent_client.h"

namespace ringmaster::console {

// "host", "host:port", "[v6]:port" or a bare IPv6 address; the port defaults to the agent's. Throws
// InputError.
AgentEndpoint parseAgentAddress(const std::string& address);

struct HostCheck {
  bool reachable = false;
  v1::HostInfo info;       // when reachable; info.problems() is the host's preflight
  AgentEndpoint endpoint;  // what was used (token and CA read from their files)
  std::string message;     // when not reachable: why, and what to do
};

// Reads `tokenFile` and `tlsCaFile` (either may be empty) and asks the agent at `address` for its host info.
// Never throws: a bad address or unreadable file is a message too. Blocks up to `timeout`: not on a GUI
// thread.
HostCheck checkHost(const std::string& address, const std::string& tokenFile, const std::string& tlsCaFile,
                    std::chrono::milliseconds timeout = std::chrono::seconds(10));

// A failed call to an agent in a person's words: "cannot reach 10.0.0.5:50551: connection refused — is
// ringmaster-agent running there?", "token rejected (UNAUTHENTICATED): ...", and so on.
std::string explainAgentStatus(const grpc::Status& status, const AgentEndpoint& endpoint);

}  // namespace ringmaster::console
