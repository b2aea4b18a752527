// SPDX-License-Identifier: GPL-3.0-or-later
#include "console/hosts/host_check.h"

#include <algorithm>
#include <cctype>

#include "agent/agent_server.h"
#include "agent/tls_files.h"
#include "common/error.h"

namespace ringmaster::console {
namespace {

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  return text;
}

bool contains(const std::string& haystack, const char* needle) {
  return haystack.find(needle) != std::string::npos;
}

int parsePort(const std::string& text, const std::string& address) {
  int port = 0;
  bool digits = !text.empty() && text.size() <= 5 &&
                std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c); });
  if (digits) port = std::stoi(text);
  if (port < 1 || port > 65535) {
    throw InputError("address " + address + ": '" + text + "' is not a TCP port (1-65535)");
  }
  return port;
}

}  // namespace

AgentEndpoint parseAgentAddress(const std::string& text) {
  std::string address = text;
  address.erase(0, address.find_first_not_of(" \t"));
  address.erase(address.find_last_not_of(" \t") + 1);
  if (address.empty())
    throw InputError("address: give the host of a ringmaster-agent, e.g. node1 or node1:50551");
  AgentEndpoint endpoint;
  if (address.front() == '[') {  // [v6] or [v6]:port
    const size_t close = address.find(']');
    if (close == std::string::npos)
      throw InputError("address " + address + ": missing ']' after the IPv6 address");
    endpoint.host = address.substr(1, close - 1);
    if (close + 1 < address.size()) {
      if (address[close + 1] != ':') throw InputError("address " + address + ": expected ':PORT' after ']'");
      endpoint.port = parsePort(address.substr(close + 2), address);
    }
  } else if (std::count(address.begin(), address.end(), ':') == 1) {  // host:port
    const size_t colon = address.find(':');
    endpoint.host = address.substr(0, colon);
    endpoint.port = parsePort(address.substr(colon + 1), address);
  } else {  // host, or a bare IPv6 address
    endpoint.host = address;
  }
  if (endpoint.host.empty() || endpoint.host.find_first_of(" \t/") != std::string::npos) {
    throw InputError("address " + address + ": '" + endpoint.host + "' is not a host name or address");
  }
  return endpoint;
}

std::string explainAgentStatus(const grpc::Status& status, const AgentEndpoint& given) {
  const AgentEndpoint endpoint = resolveLocalAgent(given);
  const std::string target = endpoint.target();
  const std::string detail = status.error_message();
  const std::string text = lower(detail);
  switch (status.error_code()) {
    case grpc::UNAUTHENTICATED:
      return "token rejected (UNAUTHENTICATED): " + detail;
    case grpc::PERMISSION_DENIED:
      return "the agent at " + target + " refused us (PERMISSION_DENIED): " + detail;
    case grpc::DEADLINE_EXCEEDED:
      return "no answer from " + target + " in time — is the host up, and does its firewall let TCP port " +
             std::to_string(endpoint.port) + " through?";
    case grpc::UNAVAILABLE:
      if (!endpoint.socketPath.empty() &&
          (contains(text, "no such file") || contains(text, "connection refused"))) {
        // A loopback address without a token is this user's own agent, over its socket.
        return "cannot reach " + endpoint.host + ":" + std::to_string(endpoint.port) +
               ": no agent of this user serves it (" + endpoint.socketPath +
               (contains(text, "no such file") ? " is missing" : " does not answer") +
               ") — is ringmaster-agent running as this user, and on port " + std::to_string(endpoint.port) +
               "? An agent of another user needs its --token-file";
      }
      if (contains(text, "connection refused")) {
        return "cannot reach " + target +
               ": connection refused — is ringmaster-agent running there, and on port " +
               std::to_string(endpoint.port) + "?";
      }
      if (contains(text, "dns") || contains(text, "resolv") || contains(text, "name or service not known")) {
        return "cannot resolve the host name '" + endpoint.host +
               "' — check its spelling, or give an IP address";
      }
      if (contains(text, "handshake") || contains(text, "ssl") || contains(text, "tls") ||
          contains(text, "certificate")) {
        return endpoint.tlsCaPem.empty()
                   ? "cannot talk to " + target + ": the agent seems to use TLS — give its CA certificate"
                   : "TLS handshake with " + target +
                         " failed — does the agent use TLS (--tls-cert), and did this "
                         "CA sign its certificate for the name '" +
                         endpoint.host + "'?";
      }
      if (contains(text, "timeout") || contains(text, "timed out") || contains(text, "deadline")) {
        return "no answer from " + target + " in time — is the host up, and does its firewall let TCP port " +
               std::to_string(endpoint.port) + " through?";
      }
      if (contains(text, "unreachable"))
        return "cannot reach " + target + ": no route to the host — check the network";
      return "cannot reach " + target + " (" + detail + ") — is ringmaster-agent running there" +
             (endpoint.tlsCaPem.empty() ? "" : ", and does it use TLS") + "?";
    default:
      return describeStatus(status, endpoint);
  }
}

HostCheck checkHost(const std::string& address, const std::string& tokenFile, const std::string& tlsCaFile,
                    std::chrono::milliseconds timeout) {
  HostCheck check;
  try {
    check.endpoint = parseAgentAddress(address);
    if (!tokenFile.empty()) {
      try {
        check.endpoint.token = agent::readTokenFile(tokenFile);
      } catch (const InputError& e) {
        // Its message names the CLI's flag; the Hosts page calls the field "token file".
        std::string why = e.what();
        if (why.rfind("--token-file ", 0) == 0) why.replace(0, 13, "token file ");
        throw InputError(why);
      }
    }
    if (!tlsCaFile.empty()) check.endpoint.tlsCaPem = agent::readCertificateFile(tlsCaFile, "TLS CA");
  } catch (const InputError& e) {
    check.message = e.what();
    return check;
  }
  AgentClient client(check.endpoint);
  const grpc::Status status = client.hostInfo(check.info, timeout);
  check.reachable = status.ok();
  if (!status.ok()) check.message = explainAgentStatus(status, check.endpoint);
  return check;
}

}  // namespace ringmaster::console
