// SPDX-License-Identifier: GPL-3.0-or-later
// A console's line to one host's agent: unary calls with the bearer token and TLS when configured, and a
// JournalFollower that follows a job's journal, resuming where it left off when the stream breaks.
#pragma once

#include <grpcpp/grpcpp.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "agent/agent_options.h"
#include "ringmaster/v1/agent.grpc.pb.h"

namespace ringmaster::console {

namespace v1 = ::ringmaster::v1;

struct AgentEndpoint {
  std::string host;  // as the user wrote it
  int port = agent::kDefaultAgentPort;
  std::string token;       // bearer token; empty: none
  std::string tlsCaPem;    // CA certificate (PEM) that signed the agent's; empty: plaintext
  std::string socketPath;  // this user's agent's Unix socket; empty: TCP, or found from a loopback host
  // "unix:PATH", or "host:port" with IPv6 in brackets.
  std::string target() const;
};

// A loopback host with no token and no TLS is this user's own agent on this machine, reached over its socket
// (agent-<port>.sock in the user's runtime folder); any other endpoint as it is.
AgentEndpoint resolveLocalAgent(AgentEndpoint endpoint);

class AgentClient {
 public:
  explicit AgentClient(AgentEndpoint endpoint);

  const AgentEndpoint& endpoint() const { return endpoint_; }
  grpc::Status hostInfo(v1::HostInfo& info, std::chrono::milliseconds timeout = std::chrono::seconds(30));
  grpc::Status launch(const v1::LaunchRequest& request, v1::LaunchReply& reply,
                      std::chrono::milliseconds timeout = std::chrono::seconds(60));
  grpc::Status stop(const std::string& jobId, double graceS = 0);
  grpc::Status control(const std::string& jobId, int rank, v1::ControlRequest::Action action);

  // Adds the token to a call's metadata.
  void prepare(grpc::ClientContext& context) const;
  // Agent.Watch with each reply as the bytes that came, for a reader that tells a reply it cannot parse from
  // the end of the stream.
  std::unique_ptr<grpc::ClientReader<grpc::ByteBuffer>> watchBytes(grpc::ClientContext& context,
                                                                   const v1::WatchRequest& request);

 private:
  AgentEndpoint endpoint_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::Agent::Stub> stub_;
};

// "UNAVAILABLE: failed to connect ..." with a hint for the usual causes.
std::string describeStatus(const grpc::Status& status, const AgentEndpoint& endpoint);

// Follows one job's journal on one agent from a sequence number on, handing each batch over in order. When
// the stream breaks (agent restarting, network) it reconnects and resumes at the next sequence number, so
// nothing is missed or repeated. Ends when the agent says the job finished, on a permanent error, or on
// stop().
class JournalFollower {
 public:
  using OnRecords = std::function<void(const std::vector<v1::Record>&)>;
  using OnEnd = std::function<void(const grpc::Status&)>;  // OK: the job finished
  // The stream broke and the follower is reconnecting, or it is back: for a banner a person reads.
  struct ConnectionChange {
    bool connected = false;   // false: lost, reconnecting; true: back
    std::string why;          // when lost: what broke it
    uint64_t backfilled = 0;  // when back: records the first batch after reconnecting brought (what piled up)
  };
  using OnConnection = std::function<void(const ConnectionChange&)>;

  JournalFollower(AgentClient& client, std::string jobId, uint64_t fromSeq, OnRecords onRecords, OnEnd onEnd,
                  OnConnection onConnection = {});
  ~JournalFollower();  // stop() and wait for the thread
  JournalFollower(const JournalFollower&) = delete;
  JournalFollower& operator=(const JournalFollower&) = delete;

  void stop();
  // Breaks the current stream as a network fault would; the follower resumes from nextSeq().
  void dropConnection();
  uint64_t nextSeq() const { return nextSeq_.load(); }
  uint64_t reconnects() const { return reconnects_.load(); }
  // Since when the agent cannot be reached; epoch when connected.
  std::chrono::steady_clock::time_point unreachableSince() const;

 private:
  void run();

  AgentClient& client_;
  const std::string jobId_;
  OnRecords onRecords_;
  OnEnd onEnd_;
  OnConnection onConnection_;
  std::atomic<uint64_t> nextSeq_;
  std::atomic<uint64_t> reconnects_{0};
  std::atomic<bool> stopping_{false};
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  grpc::ClientContext* context_ = nullptr;  // the open stream's, guarded by mutex_
  std::chrono::steady_clock::time_point unreachableSince_{};
  std::thread thread_;
};

}  // namespace ringmaster::console
