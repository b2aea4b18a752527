// SPDX-License-Identifier: GPL-3.0-or-later
// A gRPC Agent service on a loopback port whose Watch stream the test writes, for what a real
// ringmaster-agent of this version cannot be made to do: send a reply protobuf cannot parse (an agent of
// another version, a damaged one), or keep a stream open without ever ending the job (an agent whose job
// hangs). It answers GetHostInfo as a host that runs programs, and Launch and Stop with OK.
#pragma once

#include <grpcpp/grpcpp.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "ringmaster/v1/agent.grpc.pb.h"

namespace ringmaster::test {

class ScriptedAgent {
 public:
  // Writes the stream; `closing` turns true when the agent is going away.
  using Script = std::function<void(grpc::ServerContext&, grpc::ServerWriter<v1::WatchReply>&,
                                    const std::atomic<bool>& closing)>;

  explicit ScriptedAgent(Script watch) : service_(std::move(watch)) {
    grpc::ServerBuilder builder;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port_);
    builder.RegisterService(&service_);
    server_ = builder.BuildAndStart();
  }
  ~ScriptedAgent() {
    service_.closing = true;
    server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(5));
  }
  ScriptedAgent(const ScriptedAgent&) = delete;
  ScriptedAgent& operator=(const ScriptedAgent&) = delete;

  int port() const { return port_; }
  // What consoles present: an agent without a token would be this user's socket, not this TCP port.
  static constexpr const char* kToken = "scripted-agent-token";
  int watches() const { return service_.watches.load(); }
  int stops() const { return service_.stops.load(); }

  // A Watch stream that sends `first` and then nothing, until the watcher goes away or the agent closes.
  static Script sendsThenHangs(v1::WatchReply first) {
    return
        [first = std::move(first)](grpc::ServerContext& context, grpc::ServerWriter<v1::WatchReply>& writer,
                                   const std::atomic<bool>& closing) {
          writer.Write(first);
          while (!context.IsCancelled() && !closing)
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        };
  }

 private:
  struct Service final : v1::Agent::Service {
    explicit Service(Script w) : watch(std::move(w)) {}
    grpc::Status GetHostInfo(grpc::ServerContext*, const v1::GetHostInfoRequest*,
                             v1::HostInfo* info) override {
      info->set_hostname("scripted");
      info->set_cores(1);
      info->set_runs_programs(true);
      info->add_backends(v1::BACKEND_GLOO);
      return grpc::Status::OK;
    }
    grpc::Status Launch(grpc::ServerContext*, const v1::LaunchRequest*, v1::LaunchReply*) override {
      return grpc::Status::OK;
    }
    grpc::Status Stop(grpc::ServerContext*, const v1::StopRequest*, v1::StopReply*) override {
      stops += 1;
      return grpc::Status::OK;
    }
    grpc::Status Watch(grpc::ServerContext* context, const v1::WatchRequest*,
                       grpc::ServerWriter<v1::WatchReply>* writer) override {
      watches += 1;
      watch(*context, *writer, closing);
      return grpc::Status::OK;
    }
    Script watch;
    std::atomic<int> watches{0};
    std::atomic<int> stops{0};
    std::atomic<bool> closing{false};
  };

  Service service_;
  int port_ = 0;
  std::unique_ptr<grpc::Server> server_;
};

}  // namespace ringmaster::test
