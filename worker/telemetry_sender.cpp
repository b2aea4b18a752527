// SPDX-License-Identifier: GPL-3.0-or-later
#include "worker/telemetry_sender.h"

#include <grpcpp/grpcpp.h>

#include <cstdlib>
#include <iostream>

#include "common/chrome_trace.h"
#include "ringmaster/v1/telemetry.grpc.pb.h"

namespace ringmaster::worker {
namespace {

using Clock = std::chrono::steady_clock;
constexpr size_t kRecordsPerRequest = 4096;
constexpr auto kReconnectEvery = std::chrono::seconds(1);
constexpr auto kPollControlEvery = std::chrono::milliseconds(200);
constexpr auto kHealthEvery = std::chrono::seconds(2);
// This thread beats while the rank lives, also while training waits in a collective: a rank whose beats stop
// (frozen, stopped, swapped out) is told apart from those waiting for it.
constexpr auto kHeartbeatEvery = std::chrono::seconds(1);
constexpr auto kCloseTimeout = std::chrono::seconds(5);

}  // namespace

TelemetryOptions TelemetryOptions::fromEnvironment(std::string timelineFile) {
  TelemetryOptions options;
  if (const char* agent = std::getenv("RINGMASTER_AGENT")) options.agentAddress = agent;
  if (const char* job = std::getenv("RINGMASTER_JOB_ID")) options.jobId = job;
  if (const char* secret = std::getenv("RINGMASTER_JOB_SECRET")) options.secret = secret;
  options.timelineFile = std::move(timelineFile);
  return options;
}

std::string timelinePathForRank(const std::string& path, int rank, int worldSize) {
  if (path.empty()) return path;
  std::string out = path;
  if (size_t at = out.find("%r"); at != std::string::npos) return out.replace(at, 2, std::to_string(rank));
  if (worldSize <= 1) return out;
  size_t slash = out.rfind('/');
  size_t dot = out.rfind('.');
  std::string tag = ".rank" + std::to_string(rank);
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return out + tag;
  return out.insert(dot, tag);
}

// The sender thread and everything it owns (the stream, the trace file).
class TelemetrySession::Sender {
 public:
  Sender(TelemetrySession& session, TelemetryOptions options)
      : session_(session), options_(std::move(options)) {
    Probe& probe = session_.probe_;
    if (!options_.timelineFile.empty()) {
      timelinePath_ = timelinePathForRank(options_.timelineFile, probe.rank(), probe.worldSize());
      trace_ = std::make_unique<ChromeTraceWriter>(timelinePath_, "--timeline " + timelinePath_);
      trace_->nameRank(probe.rank(), "rank " + std::to_string(probe.rank()));
      probe.setTimelineOn(true);
    }
    // A burst (say a timeline of many small events) goes out as soon as a request's worth is waiting instead
    // of overflowing the buffer before the next interval.
    probe.buffer().setHighWater(kRecordsPerRequest, [this] {
      std::lock_guard lock(mutex_);
      flushNow_ = true;
      wake_.notify_one();
    });
    request_.set_job_id(options_.jobId);
    request_.set_rank(probe.rank());
    request_.set_secret(options_.secret);
    if (!options_.agentAddress.empty()) {
      grpc::ChannelArguments args;
      args.SetMaxSendMessageSize(64 << 20);
      stub_ = v1::Telemetry::NewStub(
          grpc::CreateCustomChannel(options_.agentAddress, grpc::InsecureChannelCredentials(), args));
    }
    thread_ = std::thread([this] { run(); });
  }

  ~Sender() {
    session_.probe_.buffer().setHighWater(0, nullptr);
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    // The agent gets a few seconds to take the last records; a hung agent must not keep the rank alive.
    {
      std::unique_lock lock(mutex_);
      if (!wake_.wait_for(lock, kCloseTimeout, [&] { return done_; })) {
        std::lock_guard streamLock(streamMutex_);
        if (context_) context_->TryCancel();
      }
    }
    thread_.join();
  }

  const std::string& timelinePath() const { return timelinePath_; }

 private:
  void run() {
    auto nextPoll = Clock::now();
    auto nextHealth = Clock::now() + kHealthEvery;
    auto nextHeartbeat =
        Clock::now();  // the first at once: the console hears from a rank before its first step
    while (true) {
      {
        std::unique_lock lock(mutex_);
        wake_.wait_for(lock, options_.interval, [&] { return stopping_ || flushNow_; });
        flushNow_ = false;
        if (stopping_) break;
      }
      drain();
      if (Clock::now() >= nextHealth) {
        reportHealth();
        nextHealth = Clock::now() + kHealthEvery;
      }
      if (options_.heartbeats && Clock::now() >= nextHeartbeat) {
        heartbeat();
        nextHeartbeat = Clock::now() + kHeartbeatEvery;
      }
      if (stub_ && Clock::now() >= nextPoll) {
        pollControl();
        nextPoll = Clock::now() + kPollControlEvery;
      }
    }
    drain();
    reportHealth();
    drain();
    closeStream();
    if (trace_) trace_->flush();
    std::lock_guard lock(mutex_);
    done_ = true;
    wake_.notify_all();
  }

  void drain() {
    RecordBuffer& buffer = session_.probe_.buffer();
    auto& records = *request_.mutable_batch()->mutable_records();
    while (true) {
      // The records sent last time are cleared here and handed back to the buffer for reuse.
      buffer.drainInto(records, kRecordsPerRequest);
      if (records.empty()) break;
      if (trace_) {
        for (const auto& r : records) {
          if (r.has_timeline()) trace_->add(r.timeline());
        }
      }
      send(request_);
    }
    if (trace_) {
      try {
        trace_->flush();
      } catch (const std::exception& e) {
        std::cerr << "ringmaster-worker: " << e.what() << "; the timeline stops here, training goes on\n";
        trace_.reset();
      }
    }
  }

  // Sends one request (job id and rank set, records in its batch).
  void send(const v1::ReportRequest& request) {
    if (!stub_) return;
    const size_t count = static_cast<size_t>(request.batch().records_size());
    if (!writer_ && !openStream()) {
      session_.probe_.buffer().countDropped(count);
      return;
    }
    if (writer_->Write(request)) {
      session_.sent_.fetch_add(count, std::memory_order_relaxed);
      return;
    }
    session_.probe_.buffer().countDropped(count);
    grpc::Status status = finishStream();
    warnOnce("the agent at " + options_.agentAddress + " stopped taking telemetry (" +
             status.error_message() + ")");
  }

  bool openStream() {
    if (Clock::now() < nextConnect_) return false;
    nextConnect_ = Clock::now() + kReconnectEvery;
    std::lock_guard lock(streamMutex_);
    context_ = std::make_unique<grpc::ClientContext>();
    writer_ = stub_->Report(context_.get(), &reply_);
    return writer_ != nullptr;
  }

  grpc::Status finishStream() {
    if (!writer_) return grpc::Status::OK;
    grpc::Status status = writer_->Finish();
    std::lock_guard lock(streamMutex_);
    writer_.reset();
    context_.reset();
    return status;
  }

  void closeStream() {
    if (!writer_) return;
    writer_->WritesDone();
    grpc::Status status = finishStream();
    if (!status.ok())
      warnOnce("the agent did not confirm the last telemetry (" + status.error_message() + ")");
  }

  // Makes `request` this rank's and returns the one record it will carry (the sender's own records).
  v1::Record* ownRecord(v1::ReportRequest& request) const {
    request.set_job_id(options_.jobId);
    request.set_rank(session_.probe_.rank());
    request.set_secret(options_.secret);
    return request.mutable_batch()->add_records();
  }

  void reportHealth() {
    if (!stub_) return;
    v1::ReportRequest request;
    auto* health = ownRecord(request)->mutable_health();
    health->set_rank(session_.probe_.rank());
    health->set_records_sent(session_.sent_.load(std::memory_order_relaxed));
    health->set_records_dropped(session_.probe_.buffer().dropped());
    send(request);
  }

  void heartbeat() {
    if (!stub_) return;
    v1::ReportRequest request;
    auto* beat = ownRecord(request)->mutable_heartbeat();
    beat->set_rank(session_.probe_.rank());
    beat->set_last_step(session_.probe_.lastStep());
    beat->set_time_ns(session_.probe_.now());  // no phase: the built-in loop does not track one
    session_.probe_.fillCollectives(*beat);
    send(request);
  }

  void pollControl() {
    if (!writer_) return;  // no agent to ask right now
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(1));
    v1::ControlPollRequest request;
    request.set_job_id(options_.jobId);
    request.set_rank(session_.probe_.rank());
    request.set_secret(options_.secret);
    v1::ControlPollReply reply;
    if (!stub_->PollControl(&context, request, &reply).ok()) return;
    if (reply.stop()) session_.stopRequested_.store(true, std::memory_order_relaxed);
    if (reply.checkpoint_now()) session_.checkpointRequested_.store(true, std::memory_order_relaxed);
    if (reply.timeline_on()) session_.probe_.setTimelineOn(true);
    if (reply.timeline_off()) session_.probe_.setTimelineOn(false);
  }

  void warnOnce(const std::string& what) {
    if (warned_) return;
    warned_ = true;
    std::cerr << "ringmaster-worker: " << what << "; training goes on and telemetry is counted as dropped\n";
  }

  TelemetrySession& session_;
  const TelemetryOptions options_;
  std::string timelinePath_;
  std::unique_ptr<ChromeTraceWriter> trace_;
  std::unique_ptr<v1::Telemetry::Stub> stub_;

  std::mutex streamMutex_;  // guards context_ against TryCancel from the destructor
  std::unique_ptr<grpc::ClientContext> context_;
  std::unique_ptr<grpc::ClientWriter<v1::ReportRequest>> writer_;
  v1::ReportReply reply_;
  v1::ReportRequest request_;  // job id and rank set once; its records are reused from batch to batch
  Clock::time_point nextConnect_{};
  bool warned_ = false;

  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  bool flushNow_ = false;  // the buffer reached a request's worth of records
  bool done_ = false;
  std::thread thread_;
};

TelemetrySession::TelemetrySession(Probe& probe, TelemetryOptions options)
    : probe_(probe), sender_(std::make_unique<Sender>(*this, std::move(options))) {}

TelemetrySession::~TelemetrySession() = default;

std::string TelemetrySession::timelinePath() const {
  return sender_->timelinePath();
}

}  // namespace ringmaster::worker
