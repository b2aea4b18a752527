// SPDX-License-Identifier: GPL-3.0-or-later
#include "console/session/agent_client.h"

#include "common/error.h"
#include "common/runtime_dir.h"

namespace ringmaster::console {
namespace {

using Clock = std::chrono::steady_clock;

std::chrono::system_clock::time_point deadlineIn(std::chrono::milliseconds timeout) {
  return std::chrono::system_clock::now() + timeout;
}

bool permanent(grpc::StatusCode code) {
  return code == grpc::NOT_FOUND || code == grpc::UNAUTHENTICATED || code == grpc::PERMISSION_DENIED ||
         code == grpc::INVALID_ARGUMENT || code == grpc::DATA_LOSS || code == grpc::UNIMPLEMENTED;
}

}  // namespace

std::string AgentEndpoint::target() const {
  if (!socketPath.empty()) return "unix:" + socketPath;
  std::string h = host;
  if (h.find(':') != std::string::npos && h.front() != '[') h = "[" + h + "]";
  return h + ":" + std::to_string(port);
}

AgentEndpoint resolveLocalAgent(AgentEndpoint endpoint) {
  if (!endpoint.socketPath.empty() || !endpoint.token.empty() || !endpoint.tlsCaPem.empty() ||
      !agent::isLoopbackAddress(endpoint.host)) {
    return endpoint;
  }
  try {
    endpoint.socketPath = agentSocketPath(std::to_string(endpoint.port));
  } catch (const InputError&) {
    // No private runtime folder here: the TCP address stays, and the agent refuses a call without a token.
  }
  return endpoint;
}

AgentClient::AgentClient(AgentEndpoint endpoint) : endpoint_(resolveLocalAgent(std::move(endpoint))) {
  std::shared_ptr<grpc::ChannelCredentials> credentials = grpc::InsecureChannelCredentials();
  if (!endpoint_.tlsCaPem.empty()) {
    grpc::SslCredentialsOptions ssl;
    ssl.pem_root_certs = endpoint_.tlsCaPem;
    credentials = grpc::SslCredentials(ssl);
  }
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(64 << 20);
  // Notice a dead host within seconds even while a Watch stream is idle.
  args.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS, 10000);
  args.SetInt(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, 5000);
  args.SetInt(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
  channel_ = grpc::CreateCustomChannel(endpoint_.target(), credentials, args);
  stub_ = v1::Agent::NewStub(channel_);
}

std::unique_ptr<grpc::ClientReader<grpc::ByteBuffer>> AgentClient::watchBytes(
    grpc::ClientContext& context, const v1::WatchRequest& request) {
  // The generated stub's own call, with the replies' bytes left for the caller to parse.
  static const std::string name = "/" + std::string(v1::Agent::service_full_name()) + "/Watch";
  static const grpc::internal::RpcMethod method(name.c_str(), grpc::internal::RpcMethod::SERVER_STREAMING);
  return std::unique_ptr<grpc::ClientReader<grpc::ByteBuffer>>(
      grpc::internal::ClientReaderFactory<grpc::ByteBuffer>::Create(channel_.get(), method, &context,
                                                                    request));
}

void AgentClient::prepare(grpc::ClientContext& context) const {
  if (!endpoint_.token.empty()) context.AddMetadata("authorization", "Bearer " + endpoint_.token);
}

grpc::Status AgentClient::hostInfo(v1::HostInfo& info, std::chrono::milliseconds timeout) {
  grpc::ClientContext context;
  prepare(context);
  context.set_deadline(deadlineIn(timeout));
  return stub_->GetHostInfo(&context, v1::GetHostInfoRequest(), &info);
}

grpc::Status AgentClient::launch(const v1::LaunchRequest& request, v1::LaunchReply& reply,
                                 std::chrono::milliseconds timeout) {
  grpc::ClientContext context;
  prepare(context);
  context.set_deadline(deadlineIn(timeout));
  return stub_->Launch(&context, request, &reply);
}

grpc::Status AgentClient::stop(const std::string& jobId, double graceS) {
  grpc::ClientContext context;
  prepare(context);
  context.set_deadline(deadlineIn(std::chrono::seconds(10)));
  v1::StopRequest request;
  request.set_job_id(jobId);
  request.set_grace_s(graceS);
  v1::StopReply reply;
  return stub_->Stop(&context, request, &reply);
}

grpc::Status AgentClient::control(const std::string& jobId, int rank, v1::ControlRequest::Action action) {
  grpc::ClientContext context;
  prepare(context);
  context.set_deadline(deadlineIn(std::chrono::seconds(10)));
  v1::ControlRequest request;
  request.set_job_id(jobId);
  request.set_rank(rank);
  request.set_action(action);
  v1::ControlReply reply;
  return stub_->Control(&context, request, &reply);
}

std::string describeStatus(const grpc::Status& status, const AgentEndpoint& endpoint) {
  std::string text = status.error_message();
  switch (status.error_code()) {
    case grpc::UNAVAILABLE:
    case grpc::DEADLINE_EXCEEDED:
      if (!endpoint.socketPath.empty()) {
        return "cannot reach the agent at " + endpoint.host + ":" + std::to_string(endpoint.port) +
               ", this user's socket " + endpoint.target() + " (" + text +
               "): is ringmaster-agent running as this user with --port " + std::to_string(endpoint.port) +
               "? An agent of another user, or one that serves TCP, needs its --token-file";
      }
      return "cannot reach the agent at " + endpoint.target() + " (" + text +
             "): is ringmaster-agent running there, and is --agent-port right?";
    case grpc::UNAUTHENTICATED:
      return "the agent at " + endpoint.target() + " refused us: " + text;
    default:
      return text.empty() ? "error " + std::to_string(status.error_code()) : text;
  }
}

JournalFollower::JournalFollower(AgentClient& client, std::string jobId, uint64_t fromSeq,
                                 OnRecords onRecords, OnEnd onEnd, OnConnection onConnection)
    : client_(client),
      jobId_(std::move(jobId)),
      onRecords_(std::move(onRecords)),
      onEnd_(std::move(onEnd)),
      onConnection_(std::move(onConnection)),
      nextSeq_(std::max<uint64_t>(fromSeq, 1)) {
  thread_ = std::thread([this] { run(); });
}

JournalFollower::~JournalFollower() {
  stop();
  thread_.join();
}

void JournalFollower::stop() {
  std::lock_guard lock(mutex_);
  stopping_ = true;
  if (context_) context_->TryCancel();
  wake_.notify_all();
}

void JournalFollower::dropConnection() {
  std::lock_guard lock(mutex_);
  if (context_) context_->TryCancel();
}

Clock::time_point JournalFollower::unreachableSince() const {
  std::lock_guard lock(mutex_);
  return unreachableSince_;
}

void JournalFollower::run() {
  auto backoff = std::chrono::milliseconds(100);
  bool lost = false;  // told onConnection_ the stream broke, and not yet that it is back
  while (!stopping_) {
    grpc::ClientContext context;
    client_.prepare(context);
    {
      std::lock_guard lock(mutex_);
      if (stopping_) break;
      context_ = &context;
    }
    v1::WatchRequest request;
    request.set_job_id(jobId_);
    request.set_from_seq(nextSeq_);
    auto reader = client_.watchBytes(context, request);
    grpc::ByteBuffer bytes;
    v1::WatchReply reply;
    bool finished = false;
    bool received = false;
    std::string unreadable;
    while (reader->Read(&bytes)) {
      if (!grpc::SerializationTraits<v1::WatchReply>::Deserialize(&bytes, &reply).ok()) {
        // gRPC's own reader would end the loop here as if the stream had ended, and Finish() would then wait
        // for ever: the agent's status comes only after the replies still on their way, which nobody reads.
        unreadable =
            "the agent at " + client_.endpoint().target() + " sent records after #" +
            std::to_string(nextSeq_ - 1) +
            " that this console cannot read (not a valid message); is it the same Ringmaster version?";
        context.TryCancel();
        break;
      }
      received = true;
      {
        std::lock_guard lock(mutex_);
        unreachableSince_ = {};
      }
      std::vector<v1::Record> records;
      records.reserve(static_cast<size_t>(reply.batch().records_size()));
      for (auto& record : *reply.mutable_batch()->mutable_records()) {
        if (record.seq() < nextSeq_) continue;  // already had it (cannot happen with a correct agent)
        nextSeq_ = record.seq() + 1;
        records.push_back(std::move(record));
      }
      if (!records.empty()) onRecords_(records);
      if (lost) {
        lost = false;
        if (onConnection_) onConnection_({true, {}, records.size()});
      }
      if (reply.job_finished()) finished = true;
    }
    grpc::Status status = reader->Finish();
    {
      std::lock_guard lock(mutex_);
      context_ = nullptr;
    }
    if (finished) {
      onEnd_(grpc::Status::OK);
      return;
    }
    if (stopping_) break;
    if (!unreadable.empty()) {
      // Reading again from the same record would fail the same way.
      onEnd_(grpc::Status(grpc::DATA_LOSS, unreadable));
      return;
    }
    if (permanent(status.error_code())) {
      onEnd_(status);
      return;
    }
    if (received) backoff = std::chrono::milliseconds(100);
    if (!lost) {
      lost = true;
      if (onConnection_) onConnection_({false, describeStatus(status, client_.endpoint()), 0});
    }
    {
      std::unique_lock lock(mutex_);
      if (unreachableSince_ == Clock::time_point{} && !received) unreachableSince_ = Clock::now();
      reconnects_ += 1;
      wake_.wait_for(lock, backoff, [&] { return stopping_.load(); });
    }
    backoff = std::min(backoff * 2, std::chrono::milliseconds(2000));
  }
  onEnd_(grpc::Status(grpc::CANCELLED, "stopped watching"));
}

}  // namespace ringmaster::console
