// SPDX-License-Identifier: GPL-3.0-or-later
#include "agent/agent_server.h"

#include <grpcpp/grpcpp.h>
#include <grpcpp/security/server_credentials.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <mutex>
#include <optional>

#include "agent/launch_environment.h"
#include "agent/local_socket.h"
#include "agent/program_path.h"
#include "agent/rank_intake.h"
#include "agent/rank_socket.h"
#include "agent/tls_files.h"
#include "common/error.h"
#include "common/loopback_port.h"
#include "common/record_checks.h"
#include "common/runtime_dir.h"
#include "common/small_file.h"
#include "ringmaster/v1/agent.grpc.pb.h"
#include "ringmaster/v1/telemetry.grpc.pb.h"

namespace ringmaster::agent {
namespace {

constexpr int kMaxMessageBytes = 64 << 20;
constexpr size_t kWatchBatchRecords = 8192;

// A streaming call refused before it began.
template <typename Base>
class Refusal : public Base {
 public:
  explicit Refusal(const grpc::Status& status) { this->Finish(status); }
  void OnDone() override { delete this; }
};

// Streams a job's journal from a sequence number on: what is on disk first, then records as they arrive,
// until the job has finished (job_finished on the last reply) or the watcher goes away.
class WatchReactor : public grpc::ServerWriteReactor<v1::WatchReply> {
 public:
  WatchReactor(grpc::CallbackServerContext* context, std::shared_ptr<Journal> journal, uint64_t fromSeq)
      : context_(context), journal_(std::move(journal)), next_(std::max<uint64_t>(fromSeq, 1)) {
    cursor_->reactor = this;
    pump();
  }
  ~WatchReactor() override { releaseBatch(); }

  void OnWriteDone(bool ok) override {
    auto cursor = cursor_;
    std::lock_guard lock(cursor->mutex);
    writing_ = false;
    releaseBatch();
    if (!ok) broken_ = true;
    pumpLocked();
  }
  void OnCancel() override { pump(); }
  void OnDone() override {
    {
      std::lock_guard lock(cursor_->mutex);
      cursor_->reactor = nullptr;
    }
    delete this;
  }

 private:
  // Outlives the reactor so that a journal notification arriving after OnDone finds no one and does nothing.
  struct Cursor {
    std::recursive_mutex mutex;  // recursive: a notification may run inline inside pumpLocked()
    WatchReactor* reactor = nullptr;
    void wake() {
      std::lock_guard lock(mutex);
      if (reactor) reactor->pumpLocked();
    }
  };

  void pump() {
    auto cursor = cursor_;
    std::lock_guard lock(cursor->mutex);
    pumpLocked();
  }

  // Called with the cursor's mutex held. Finish() may run OnDone inline, so nothing touches members after it.
  void pumpLocked() {
    if (writing_ || finished_) return;
    if (broken_ || context_->IsCancelled()) {
      finished_ = true;
      Finish(grpc::Status(grpc::CANCELLED, "the watcher went away"));
      return;
    }
    if (lastSent_) {
      finished_ = true;
      Finish(grpc::Status::OK);
      return;
    }
    std::shared_ptr<const v1::RecordBatch> batch;
    try {
      batch = journal_->read(next_, kWatchBatchRecords);
    } catch (const std::exception& e) {
      finished_ = true;
      Finish(grpc::Status(grpc::DATA_LOSS, e.what()));
      return;
    }
    if (batch && batch->records_size() > 0) {
      next_ = batch->records(batch->records_size() - 1).seq() + 1;
      // The batch is shared with the journal and other watchers: lend it to the reply instead of copying it.
      batch_ = std::move(batch);
      reply_.unsafe_arena_set_allocated_batch(const_cast<v1::RecordBatch*>(batch_.get()));
      reply_.set_job_finished(false);
      writing_ = true;
      StartWrite(&reply_);
      return;
    }
    if (journal_->finished() && next_ > journal_->durableSeq()) {
      if (std::string error = journal_->error(); !error.empty()) {
        // The records that follow were never written: ending as if the job had finished would hide that.
        finished_ = true;
        Finish(grpc::Status(grpc::DATA_LOSS,
                            "the agent could not write job records to its journal (" + error +
                                "); it stopped the job's ranks. Free space in its --state-dir and "
                                "run the job again"));
        return;
      }
      reply_.set_job_finished(true);
      lastSent_ = true;
      writing_ = true;
      StartWrite(&reply_);
      return;
    }
    journal_->notifyWhen(next_, [cursor = cursor_] { cursor->wake(); });
  }

  void releaseBatch() {
    if (batch_) {
      reply_.unsafe_arena_release_batch();
      batch_.reset();
    }
  }

  grpc::CallbackServerContext* context_;
  std::shared_ptr<Journal> journal_;
  std::shared_ptr<Cursor> cursor_ = std::make_shared<Cursor>();
  uint64_t next_;
  v1::WatchReply reply_;
  std::shared_ptr<const v1::RecordBatch> batch_;
  bool writing_ = false;
  bool broken_ = false;
  bool lastSent_ = false;
  bool finished_ = false;
};

// Takes a rank's stream of record batches into its job's journal.
class ReportReactor : public grpc::ServerReadReactor<v1::ReportRequest> {
 public:
  ReportReactor(Agent& agent, v1::ReportReply* reply) : agent_(agent), reply_(reply) { StartRead(&request_); }

  void OnReadDone(bool ok) override {
    if (!ok) {
      // The rank is done: answer once everything it sent is on disk.
      if (!intake_) {
        Finish(grpc::Status::OK);
        return;
      }
      reply_->set_accepted(intake_->accepted());
      intake_->job().journal().notifyWhen(intake_->lastSeq(), [this] { Finish(grpc::Status::OK); });
      return;
    }
    if (!intake_) {
      Job* job = nullptr;
      grpc::Status status = agent_.reportTarget(request_.job_id(), request_.rank(), request_.secret(), job);
      if (!status.ok()) {
        Finish(status);
        return;
      }
      intake_.emplace(*job, request_.rank());
    } else if (request_.job_id() != intake_->job().id() || request_.rank() != intake_->rank()) {
      Finish(grpc::Status(grpc::INVALID_ARGUMENT, "one Report stream carries one rank of one job"));
      return;
    }
    if (static_cast<size_t>(request_.batch().records_size()) > kMaxRecordsPerReport) {
      Finish(grpc::Status(grpc::INVALID_ARGUMENT,
                          "a Report request carries at most " + std::to_string(kMaxRecordsPerReport) +
                              " records, this one " + std::to_string(request_.batch().records_size())));
      return;
    }
    intake_->take(std::move(*request_.mutable_batch()));
    request_.Clear();
    StartRead(&request_);
  }
  void OnDone() override { delete this; }

 private:
  Agent& agent_;
  v1::ReportReply* reply_;
  v1::ReportRequest request_;
  std::optional<RankIntake> intake_;
};

// Every call on the network server needs the bearer token; calls on the same-user socket were vetted by the
// socket (its folder, its mode and the peer's uid) before the server saw a byte.
grpc::Status authorize(const grpc::CallbackServerContext* context, const std::string& token) {
  if (token.empty()) return grpc::Status::OK;
  const auto& metadata = context->client_metadata();
  auto it = metadata.find("authorization");
  if (it == metadata.end()) {
    return grpc::Status(grpc::UNAUTHENTICATED,
                        "this agent requires a token: give the console --token-file with the agent's token");
  }
  std::string presented(it->second.data(), it->second.size());
  if (!sameSecret(presented, "Bearer " + token)) {
    return grpc::Status(grpc::UNAUTHENTICATED,
                        "the token presented does not match the agent's --token-file: check the console's "
                        "--token-file");
  }
  return grpc::Status::OK;
}

// The Agent service for consoles. `token` empty: the same-user socket's instance.
class AgentService : public v1::Agent::CallbackService {
 public:
  AgentService(Agent& agent, std::string token) : agent_(agent), token_(std::move(token)) {}

  grpc::ServerUnaryReactor* GetHostInfo(grpc::CallbackServerContext* context, const v1::GetHostInfoRequest*,
                                        v1::HostInfo* reply) override {
    auto* reactor = context->DefaultReactor();
    grpc::Status status = authorize(context, token_);
    if (status.ok()) *reply = agent_.hostInfo();
    reactor->Finish(status);
    return reactor;
  }

  grpc::ServerUnaryReactor* Launch(grpc::CallbackServerContext* context, const v1::LaunchRequest* request,
                                   v1::LaunchReply* reply) override {
    auto* reactor = context->DefaultReactor();
    grpc::Status status = authorize(context, token_);
    if (!status.ok()) {
      reactor->Finish(status);
      return reactor;
    }
    agent_.launch(*request, [reactor, reply](const grpc::Status& s, const v1::LaunchReply& r) {
      *reply = r;
      reactor->Finish(s);
    });
    return reactor;
  }

  grpc::ServerUnaryReactor* Stop(grpc::CallbackServerContext* context, const v1::StopRequest* request,
                                 v1::StopReply*) override {
    auto* reactor = context->DefaultReactor();
    grpc::Status status = authorize(context, token_);
    reactor->Finish(status.ok() ? agent_.stop(*request) : status);
    return reactor;
  }

  grpc::ServerUnaryReactor* Control(grpc::CallbackServerContext* context, const v1::ControlRequest* request,
                                    v1::ControlReply*) override {
    auto* reactor = context->DefaultReactor();
    grpc::Status status = authorize(context, token_);
    reactor->Finish(status.ok() ? agent_.control(*request) : status);
    return reactor;
  }

  grpc::ServerWriteReactor<v1::WatchReply>* Watch(grpc::CallbackServerContext* context,
                                                  const v1::WatchRequest* request) override {
    grpc::Status status = authorize(context, token_);
    std::shared_ptr<Journal> journal;
    if (status.ok()) status = agent_.journalFor(request->job_id(), journal);
    if (!status.ok()) return new Refusal<grpc::ServerWriteReactor<v1::WatchReply>>(status);
    return new WatchReactor(context, std::move(journal), request->from_seq());
  }

 private:
  Agent& agent_;
  std::string token_;
};

// The Telemetry service for ranks, on a loopback port of its own: every call presents the rank's own secret.
class TelemetryService : public v1::Telemetry::CallbackService {
 public:
  explicit TelemetryService(Agent& agent) : agent_(agent) {}

  grpc::ServerReadReactor<v1::ReportRequest>* Report(grpc::CallbackServerContext*,
                                                     v1::ReportReply* reply) override {
    return new ReportReactor(agent_, reply);
  }

  grpc::ServerUnaryReactor* PollControl(grpc::CallbackServerContext* context,
                                        const v1::ControlPollRequest* request,
                                        v1::ControlPollReply* reply) override {
    auto* reactor = context->DefaultReactor();
    Job* job = nullptr;
    grpc::Status status = agent_.reportTarget(request->job_id(), request->rank(), request->secret(), job);
    if (status.ok()) *reply = job->takeControl(request->rank());
    reactor->Finish(status);
    return reactor;
  }

 private:
  Agent& agent_;
};

}  // namespace

struct AgentServer::Services {
  Services(Agent& agent, const std::string& token)
      : local(agent, ""), network(agent, token), telemetry(agent) {}
  AgentService local;
  AgentService network;
  TelemetryService telemetry;
};

std::string defaultWorkerPath() {
  const std::filesystem::path dir = thisProgramDir();
  return dir.empty() ? "ringmaster-worker" : (dir / "ringmaster-worker").string();
}

std::string defaultStateDir() {
  if (const char* state = std::getenv("XDG_STATE_HOME"); state && *state) {
    return std::string(state) + "/ringmaster/agent";
  }
  const char* home = std::getenv("HOME");
  return std::string(home && *home ? home : "/tmp") + "/.local/state/ringmaster/agent";
}

std::string readTokenFile(const std::string& path) {
  std::string token = readSmallFile(path, "--token-file");
  token.erase(0, token.find_first_not_of(" \t\r\n"));
  token.erase(token.find_last_not_of(" \t\r\n") + 1);
  if (token.empty())
    throw InputError("--token-file " + path + ": the file is empty; put a long random token in it");
  if (token.find_first_of(" \t\r\n") != std::string::npos) {
    throw InputError("--token-file " + path + ": the token must be one word without spaces");
  }
  return token;
}

AgentServer::AgentServer(const AgentOptions& options) : options_(options) {
  AgentOptions checked = options;
  if (checked.port == 0) checked.port = 1;  // 0 (any free port) is for programs embedding the agent
  if (auto problem = checkAgentOptions(checked); !problem.empty()) throw InputError(problem);
  std::string token = options.tokenFile.empty() ? "" : readTokenFile(options.tokenFile);

  AgentConfig config;
  config.workerPath = options.workerPath.empty() ? defaultWorkerPath() : options.workerPath;
  config.stateDir = options.stateDir.empty() ? defaultStateDir() : options.stateDir;
  config.keepJournalsDays = options.keepJournalsDays;
  config.anyProgram = options.anyProgram;
  config.anyFolder = options.anyFolder;
  for (const auto& name : options.allowedEnvironment) {
    if (!isGuardedVariable(name)) {
      throw InputError("--allow-env " + name +
                       ": not a variable launches are kept from setting (launches may set it already); name "
                       "one of those ringmaster-agent --help lists under --allow-env");
    }
  }
  config.allowedEnvironment = options.allowedEnvironment;
  const char* path = std::getenv("PATH");
  for (const auto& program : options.allowedPrograms) {
    try {
      config.allowedPrograms.push_back(findProgram(program, "", path ? path : "").resolved);
    } catch (const InputError& e) {
      throw InputError("--allow-program " + program + ": " + e.what());
    }
  }
  for (const auto& folder : options.allowedFolders) {
    std::error_code ec;
    const auto resolved = std::filesystem::canonical(folder, ec);
    if (ec || !std::filesystem::is_directory(resolved, ec)) {
      throw InputError("--allow-folder " + folder + ": not a folder here (" +
                       (ec ? ec.message() : std::string("not a directory")) + ")");
    }
    config.allowedFolders.push_back(resolved.string());
  }
  {
    std::error_code ec;
    config.allowedFolders.push_back(
        std::filesystem::weakly_canonical(std::filesystem::absolute(config.stateDir), ec).string());
  }
  config.pythonRoot = options.pythonRoot.empty() ? findPythonRoot(thisProgramDir()) : options.pythonRoot;
  try {
    agent_ = std::make_unique<Agent>(config);
  } catch (const std::filesystem::filesystem_error& e) {
    throw InputError("--state-dir " + config.stateDir + ": " + e.code().message());
  }
  services_ = std::make_unique<Services>(*agent_, token);

  // Ranks report to a loopback port that serves Telemetry only, each with its own secret.
  {
    grpc::ServerBuilder builder;
    builder.SetMaxReceiveMessageSize(kMaxMessageBytes);
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &telemetryPort_);
    builder.RegisterService(&services_->telemetry);
    telemetryServer_ = builder.BuildAndStart();
    if (!telemetryServer_ || telemetryPort_ == 0)
      throw InputError("cannot listen on a loopback port for the ranks' telemetry");
    agent_->setTelemetryAddress("127.0.0.1:" + std::to_string(telemetryPort_));
  }
  // Users' programs report over a Unix socket of their own, in this user's private folder.
  try {
    rankSocket_ = std::make_unique<RankSocket>(
        *agent_, userRuntimeDir() + "/ranks-" + std::to_string(::getpid()) + ".sock");
    agent_->setRankSocket(rankSocket_->path());
  } catch (const InputError& e) {
    std::cerr << "agent: " << e.what() << "; users' programs run without telemetry" << std::endl;
  }

  // Consoles over TCP only with the token: loopback is not trust.
  if (!token.empty()) {
    std::shared_ptr<grpc::ServerCredentials> credentials = grpc::InsecureServerCredentials();
    if (!options.tlsCert.empty()) {
      grpc::SslServerCredentialsOptions ssl;
      TlsKeyPair pair = readTlsKeyPair(options.tlsCert, options.tlsKey);  // checked: gRPC would only log
      ssl.pem_key_cert_pairs.push_back({std::move(pair.keyPem), std::move(pair.certificatePem)});
      credentials = grpc::SslServerCredentials(ssl);
    }
    std::string host = options.listen;
    if (host.find(':') != std::string::npos && host.front() != '[') host = "[" + host + "]";
    grpc::ServerBuilder builder;
    builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT,
                               0);  // a second agent on the same port must fail, not share
    builder.SetMaxReceiveMessageSize(kMaxMessageBytes);
    builder.SetMaxSendMessageSize(kMaxMessageBytes);
    builder.AddListeningPort(host + ":" + std::to_string(options.port), credentials, &port_);
    builder.RegisterService(&services_->network);
    networkServer_ = builder.BuildAndStart();
    if (!networkServer_ || port_ == 0) {
      throw InputError(
          "cannot listen on " + host + ":" + std::to_string(options.port) +
          ": the port is in use or the address is not one of this host's (see --listen, --port)");
    }
  } else {
    // A number no agent of this host listens on right now names one that serves no TCP port.
    port_ = options.port > 0 ? options.port : freeLoopbackPort();
    if (port_ == 0) port_ = static_cast<int>(::getpid() % 60000) + 1024;
  }

  // This user's consoles over a Unix socket in the user's private folder, named by the port.
  {
    grpc::ServerBuilder builder;
    builder.SetMaxReceiveMessageSize(kMaxMessageBytes);
    builder.SetMaxSendMessageSize(kMaxMessageBytes);
    builder.RegisterService(&services_->local);
    localServer_ = builder.BuildAndStart();
    if (!localServer_) throw InputError("cannot start the agent's same-user service");
    try {
      socket_ = std::make_unique<SameUserSocket>(
          options.socketPath.empty() ? agentSocketPath(std::to_string(port_)) : options.socketPath);
      socket_->serve(*localServer_);
    } catch (const InputError& e) {
      // With a token, TCP serves every console (two agents of one user on the same port number in two network
      // namespaces share the runtime folder); without one nothing would.
      if (!networkServer_) throw;
      std::cerr << "agent: " << e.what() << "; serving consoles over TCP only" << std::endl;
    }
  }
}

AgentServer::~AgentServer() {
  shutdown();
}

const std::string& AgentServer::socketPath() const {
  static const std::string none;
  return socket_ ? socket_->path() : none;
}

std::string AgentServer::localAddress() const {
  std::string address = socket_ ? "unix:" + socketPath() + " (this user only)" : "";
  if (!networkServer_) return address;
  std::string host = options_.listen;
  if (host.find(':') != std::string::npos && host.front() != '[') host = "[" + host + "]";
  return host + ":" + std::to_string(port_) + " (token required" + (options_.tlsCert.empty() ? "" : ", TLS") +
         ")" + (address.empty() ? "" : " and " + address);
}

void AgentServer::wait() {
  std::unique_lock lock(waitMutex_);
  shutDownCv_.wait(lock, [this] { return shutDown_; });
}

void AgentServer::shutdown() {
  if (shuttingDown_.exchange(true)) {
    wait();
    return;
  }
  // Ranks first: their journals close, so watchers get job_finished and end their streams.
  agent_->stopAll(agent_->config().stopGraceS);
  const auto deadline = std::chrono::system_clock::now() + std::chrono::seconds(2);
  if (socket_) socket_->close();
  rankSocket_.reset();
  localServer_->Shutdown(deadline);
  if (networkServer_) networkServer_->Shutdown(deadline);
  telemetryServer_->Shutdown(deadline);
  {
    std::lock_guard lock(waitMutex_);
    shutDown_ = true;
  }
  shutDownCv_.notify_all();
}

}  // namespace ringmaster::agent
