// SPDX-License-Identifier: GPL-3.0-or-later
// What another local user could try against an agent: every call of the Agent and Telemetry services, without a
// token or a secret, printed as "Call STATUS_CODE" lines. The trust tests run it as a second uid.
//
//   agent_caller TARGET JOB_ID MARKER    TARGET: host:port or unix:PATH; the Launch it tries would run
//                                        /bin/sh -c 'id > MARKER'.
#include <grpcpp/grpcpp.h>

#include <chrono>
#include <iostream>
#include <string>

#include "common/job_spec.h"
#include "ringmaster/v1/agent.grpc.pb.h"
#include "ringmaster/v1/telemetry.grpc.pb.h"

namespace v1 = ringmaster::v1;

namespace {

// OK, UNAVAILABLE, PERMISSION_DENIED, ... as gRPC names them.
const char* codeName(grpc::StatusCode code) {
  switch (code) {
    case grpc::OK: return "OK";
    case grpc::CANCELLED: return "CANCELLED";
    case grpc::UNKNOWN: return "UNKNOWN";
    case grpc::INVALID_ARGUMENT: return "INVALID_ARGUMENT";
    case grpc::DEADLINE_EXCEEDED: return "DEADLINE_EXCEEDED";
    case grpc::NOT_FOUND: return "NOT_FOUND";
    case grpc::ALREADY_EXISTS: return "ALREADY_EXISTS";
    case grpc::PERMISSION_DENIED: return "PERMISSION_DENIED";
    case grpc::UNAUTHENTICATED: return "UNAUTHENTICATED";
    case grpc::RESOURCE_EXHAUSTED: return "RESOURCE_EXHAUSTED";
    case grpc::FAILED_PRECONDITION: return "FAILED_PRECONDITION";
    case grpc::ABORTED: return "ABORTED";
    case grpc::OUT_OF_RANGE: return "OUT_OF_RANGE";
    case grpc::UNIMPLEMENTED: return "UNIMPLEMENTED";
    case grpc::INTERNAL: return "INTERNAL";
    case grpc::UNAVAILABLE: return "UNAVAILABLE";
    case grpc::DATA_LOSS: return "DATA_LOSS";
    default: return "OTHER";
  }
}

void within(grpc::ClientContext& context) {
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(3));
}

void print(const std::string& call, const grpc::Status& status) {
  std::cout << call << " " << codeName(status.error_code()) << std::endl;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::cerr << "usage: agent_caller TARGET JOB_ID MARKER\n";
    return 2;
  }
  const std::string target = argv[1], jobId = argv[2], marker = argv[3];
  auto channel = grpc::CreateChannel(target, grpc::InsecureChannelCredentials());
  auto agent = v1::Agent::NewStub(channel);
  auto telemetry = v1::Telemetry::NewStub(channel);
  {
    grpc::ClientContext context;
    within(context);
    v1::HostInfo info;
    print("GetHostInfo", agent->GetHostInfo(&context, {}, &info));
  }
  {
    grpc::ClientContext context;
    within(context);
    v1::LaunchRequest request;
    request.set_job_id("intruder-" + jobId);
    *request.mutable_spec() = ringmaster::defaultJobSpec();
    request.mutable_spec()->set_world_size(1);
    auto* program = request.mutable_spec()->mutable_program();
    for (const std::string& word : {std::string("/bin/sh"), std::string("-c"), "id > " + marker})
      program->add_argv(word);
    program->set_uninstrumented(true);
    request.set_first_rank(0);
    request.set_local_ranks(1);
    request.set_world_size(1);
    request.set_master_addr("127.0.0.1");
    request.set_master_port(29999);
    v1::LaunchReply reply;
    print("Launch", agent->Launch(&context, request, &reply));
  }
  {
    grpc::ClientContext context;
    within(context);
    v1::WatchRequest request;
    request.set_job_id(jobId);
    request.set_from_seq(1);
    auto reader = agent->Watch(&context, request);
    v1::WatchReply reply;
    const bool got = reader->Read(&reply);
    // A record read is a watch that got through, whatever the stream says later.
    if (got) {
      context.TryCancel();
      reader->Finish();
      std::cout << "Watch OK" << std::endl;
    } else {
      print("Watch", reader->Finish());
    }
  }
  {
    grpc::ClientContext context;
    within(context);
    v1::ControlRequest request;
    request.set_job_id(jobId);
    request.set_rank(-1);
    request.set_action(v1::ControlRequest::ACTION_TIMELINE_ON);
    v1::ControlReply reply;
    print("Control", agent->Control(&context, request, &reply));
  }
  {
    grpc::ClientContext context;
    within(context);
    v1::ControlPollRequest request;
    request.set_job_id(jobId);
    request.set_rank(0);
    v1::ControlPollReply reply;
    print("PollControl", telemetry->PollControl(&context, request, &reply));
  }
  {
    grpc::ClientContext context;
    within(context);
    v1::ReportReply reply;
    auto writer = telemetry->Report(&context, &reply);
    v1::ReportRequest request;
    request.set_job_id(jobId);
    request.set_rank(0);
    request.mutable_batch()->add_records()->mutable_log()->set_text("forged");
    writer->Write(request);
    writer->WritesDone();
    grpc::Status status = writer->Finish();
    if (status.ok() && reply.accepted() == 0) {
      std::cout << "Report NOTHING_ACCEPTED" << std::endl;
    } else {
      print("Report", status);
    }
  }
  {
    // Last: a stop that got through would end the job the other calls look at.
    grpc::ClientContext context;
    within(context);
    v1::StopRequest request;
    request.set_job_id(jobId);
    v1::StopReply reply;
    print("Stop", agent->Stop(&context, request, &reply));
  }
  return 0;
}
