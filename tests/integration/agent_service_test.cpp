// SPDX-License-Identifier: GPL-3.0-or-later
// The agent's gRPC service against real ranks: validation, tokens, stop, orphans.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <limits>
#include <map>
#include <mutex>
#include <optional>

#include "agent/agent.h"
#include "agent/agent_server.h"
#include "agent/host_info.h"
#include "common/error.h"
#include "console/session/agent_client.h"
#include "ringmaster/v1/telemetry.grpc.pb.h"
#include "tests/support/agent_test_support.h"
#include "tests/support/scripted_agent.h"

using namespace ringmaster;
using namespace ringmaster::test;
using namespace std::chrono_literals;

namespace {

agent::AgentOptions localOptions(const TempDir& dir) {
  agent::AgentOptions options;
  options.port = 0;
  options.stateDir = dir.file("state");
  options.workerPath = binPath("ringmaster-worker");
  return options;
}

console::AgentClient clientFor(const agent::AgentServer& server, const std::string& token = "") {
  return console::AgentClient({"127.0.0.1", server.port(), token, "", {}});
}

TEST(AgentService, ReadsTheWorkersBuild) {
  auto build = agent::parseWorkerVersion("ringmaster-worker 0.1.0 (LibTorch 1.13.1, backends: gloo, nccl)\n");
  ASSERT_TRUE(build);
  EXPECT_EQ(build->ringmasterVersion, "0.1.0");
  EXPECT_EQ(build->torchVersion, "1.13.1");
  EXPECT_EQ(build->backends, (std::vector<v1::Backend>{v1::BACKEND_GLOO, v1::BACKEND_NCCL}));
  EXPECT_FALSE(agent::parseWorkerVersion("Python 3.11"));
}

TEST(AgentService, InvalidSpecIsInvalidArgumentNamingTheField) {
  TempDir dir("agent-invalid");
  agent::AgentServer server(localOptions(dir));
  auto client = clientFor(server);
  v1::LaunchRequest request = waitingRank("bad-spec");
  request.mutable_spec()->mutable_hyper()->set_batch_size(0);
  v1::LaunchReply reply;
  grpc::Status status = client.launch(request, reply);
  EXPECT_EQ(status.error_code(), grpc::INVALID_ARGUMENT);
  EXPECT_NE(status.error_message().find("spec.hyper.batch_size"), std::string::npos)
      << status.error_message();

  // Ringmaster's Horovod layer is part of the instrumentation an uninstrumented program runs without.
  request = waitingRank("horovod-uninstrumented");
  request.mutable_spec()->mutable_program()->add_argv("/bin/true");
  request.mutable_spec()->mutable_program()->set_horovod(true);
  request.mutable_spec()->mutable_program()->set_uninstrumented(true);
  status = client.launch(request, reply);
  EXPECT_EQ(status.error_code(), grpc::INVALID_ARGUMENT);
  EXPECT_NE(status.error_message().find("spec.program.horovod: needs the instrumentation"), std::string::npos)
      << status.error_message();

  request = waitingRank("../escape");
  status = client.launch(request, reply);
  EXPECT_EQ(status.error_code(), grpc::INVALID_ARGUMENT);
  EXPECT_NE(status.error_message().find("job_id"), std::string::npos) << status.error_message();

  request = waitingRank("bad-ranks");
  request.set_local_ranks(3);
  status = client.launch(request, reply);
  EXPECT_EQ(status.error_code(), grpc::INVALID_ARGUMENT);
  EXPECT_NE(status.error_message().find("local_ranks"), std::string::npos) << status.error_message();
}

TEST(AgentService, UnknownJobsAreNotFound) {
  TempDir dir("agent-unknown");
  agent::AgentServer server(localOptions(dir));
  auto client = clientFor(server);
  EXPECT_EQ(client.stop("no-such-job").error_code(), grpc::NOT_FOUND);
  EXPECT_EQ(client.control("no-such-job", 0, v1::ControlRequest::ACTION_STOP).error_code(), grpc::NOT_FOUND);
  grpc::Status end;
  bool ended = false;
  {
    console::JournalFollower follower(
        client, "no-such-job", 1, [](const std::vector<v1::Record>&) {},
        [&](const grpc::Status& s) {
          end = s;
          ended = true;
        });
    eventually([&] { return ended; }, 10s);
  }
  EXPECT_EQ(end.error_code(), grpc::NOT_FOUND);
}

TEST(AgentService, TokenIsRequiredWhenConfigured) {
  TempDir dir("agent-token");
  writeFile(dir.file("token"), "s3cret-token\n");
  auto options = localOptions(dir);
  options.tokenFile = dir.file("token");
  agent::AgentServer server(options);
  v1::HostInfo info;

  // Over TCP without the token (loopback is not trust).
  auto anonymous = v1::Agent::NewStub(
      grpc::CreateChannel("127.0.0.1:" + std::to_string(server.port()), grpc::InsecureChannelCredentials()));
  {
    grpc::ClientContext context;
    grpc::Status status = anonymous->GetHostInfo(&context, {}, &info);
    EXPECT_EQ(status.error_code(), grpc::UNAUTHENTICATED);
    EXPECT_NE(status.error_message().find("token"), std::string::npos);
  }
  {
    grpc::ClientContext context;
    v1::LaunchReply reply;
    EXPECT_EQ(anonymous->Launch(&context, waitingRank("no-token"), &reply).error_code(),
              grpc::UNAUTHENTICATED);
  }

  auto wrong = clientFor(server, "guess");
  EXPECT_EQ(wrong.hostInfo(info).error_code(), grpc::UNAUTHENTICATED);
  EXPECT_EQ(wrong.stop("anything").error_code(), grpc::UNAUTHENTICATED);

  auto right = clientFor(server, "s3cret-token");
  grpc::Status status = right.hostInfo(info);
  EXPECT_TRUE(status.ok()) << status.error_message();
  EXPECT_FALSE(info.hostname().empty());
  EXPECT_GE(info.cores(), 1u);
  EXPECT_EQ(info.problems_size(), 0) << info.problems(0);
}

TEST(AgentService, ListeningBeyondLoopbackNeedsAToken) {
  TempDir dir("agent-listen");
  auto options = localOptions(dir);
  options.listen = "0.0.0.0";
  try {
    agent::AgentServer server(options);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--token-file"), std::string::npos);
  }
}

// Launches rank 0 of a 2-rank job that waits at the rendezvous for its peer; its pid, or 0 when it did not
// start.
int launchWaitingRank(console::AgentClient& client, const std::string& jobId) {
  v1::LaunchReply reply;
  grpc::Status status = client.launch(waitingRank(jobId), reply);
  EXPECT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(reply.pids_size(), 1);
  return status.ok() && reply.pids_size() == 1 ? reply.pids(0) : 0;
}

TEST(AgentService, StopEndsTheRanksAndTheJournal) {
  TempDir dir("agent-stop");
  agent::AgentServer server(localOptions(dir));
  auto client = clientFor(server);
  const int pid = launchWaitingRank(client, "stop-me");
  ASSERT_GT(pid, 0);
  EXPECT_TRUE(processAlive(pid));
  ASSERT_TRUE(client.stop("stop-me", 1).ok());
  EXPECT_TRUE(eventually([&] { return !processAlive(pid); }, 10s));

  std::vector<v1::Record> records;
  bool finished = false;
  {
    console::JournalFollower follower(
        client, "stop-me", 1,
        [&](const std::vector<v1::Record>& r) { records.insert(records.end(), r.begin(), r.end()); },
        [&](const grpc::Status& s) { finished = s.ok(); });
    EXPECT_TRUE(eventually([&] { return finished; }, 10s));
  }
  bool sawExit = false;
  for (const auto& r : records) {
    if (r.has_rank_state() && r.rank_state().state() == v1::RankState::STATE_SIGNALED) {
      sawExit = true;
      EXPECT_EQ(r.rank_state().signal(), SIGTERM);
      EXPECT_NE(r.rank_state().message().find("stopped by the agent"), std::string::npos);
    }
  }
  EXPECT_TRUE(sawExit);
  // Launching the same job id again is refused.
  v1::LaunchReply reply;
  EXPECT_EQ(client.launch(waitingRank("stop-me"), reply).error_code(), grpc::ALREADY_EXISTS);
}

// Whether process `pid` ignores `signal`, from the SigIgn mask in /proc/PID/status.
bool ignoresSignal(int pid, int signal) {
  const std::string status = readFile("/proc/" + std::to_string(pid) + "/status");
  const size_t at = status.find("SigIgn:");
  if (at == std::string::npos) return false;
  const unsigned long long mask = std::strtoull(status.c_str() + at + 7, nullptr, 16);
  return (mask >> (signal - 1)) & 1;
}

// A rank ignores SIGPIPE: when its peer crashes, Gloo's next write fails with EPIPE and this rank ends with
// that error, instead of being killed by the signal at the same moment and passing for the rank that crashed.
TEST(AgentService, ARankIgnoresSigpipeSoAPeersCrashIsNotItsOwn) {
  TempDir dir("agent-sigpipe");
  agent::AgentServer server(localOptions(dir));
  auto client = clientFor(server);
  const int pid = launchWaitingRank(client, "sigpipe");
  ASSERT_GT(pid, 0);
  EXPECT_TRUE(eventually([&] { return ignoresSignal(pid, SIGPIPE); }, 30s))
      << readFile("/proc/" + std::to_string(pid) + "/status");
  EXPECT_FALSE(ignoresSignal(pid, SIGTERM));  // the agent's stop still ends it
  ASSERT_TRUE(client.stop("sigpipe", 1).ok());
  EXPECT_TRUE(eventually([&] { return !processAlive(pid); }, 10s));
}

// What the agent gave a rank it started in RINGMASTER_JOB_SECRET (the test runs as the same user).
std::string secretOf(int pid) {
  const std::string environ = readFile("/proc/" + std::to_string(pid) + "/environ");
  const std::string name = "RINGMASTER_JOB_SECRET=";
  size_t at = environ.find(name);
  if (at == std::string::npos) return {};
  at += name.size();
  return environ.substr(at, environ.find('\0', at) - at);
}

TEST(AgentService, OnlyTheJobsOwnRanksReportIntoIt) {
  TempDir dir("agent-secret");
  agent::AgentServer server(localOptions(dir));
  auto client = clientFor(server);
  v1::LaunchReply reply;
  ASSERT_TRUE(client.launch(waitingRank("guarded"), reply).ok());
  const std::string secret = secretOf(reply.pids(0));
  ASSERT_EQ(secret.size(), 32u) << "128 random bits in hex";

  auto telemetry = v1::Telemetry::NewStub(
      grpc::CreateChannel(server.telemetryAddress(), grpc::InsecureChannelCredentials()));
  auto poll = [&](const std::string& presented) {
    grpc::ClientContext context;
    v1::ControlPollRequest request;
    request.set_job_id("guarded");
    request.set_rank(0);
    request.set_secret(presented);
    v1::ControlPollReply pollReply;
    return telemetry->PollControl(&context, request, &pollReply);
  };
  EXPECT_TRUE(poll(secret).ok());
  for (const std::string& wrong :
       {std::string(), secret.substr(0, 31), secret.substr(1) + "0", std::string(64, 'a')}) {
    grpc::Status status = poll(wrong);
    EXPECT_EQ(status.error_code(), grpc::PERMISSION_DENIED) << "'" << wrong << "'";
    EXPECT_NE(status.error_message().find("RINGMASTER_JOB_SECRET"), std::string::npos)
        << status.error_message();
  }
  // A report stream with another job's secret is refused before anything reaches the journal.
  {
    grpc::ClientContext context;
    v1::ReportReply reportReply;
    auto stream = telemetry->Report(&context, &reportReply);
    v1::ReportRequest request;
    request.set_job_id("guarded");
    request.set_rank(0);
    request.set_secret("not-the-secret");
    request.mutable_batch()->add_records()->mutable_log()->set_text("forged");
    stream->Write(request);
    stream->WritesDone();
    grpc::Status status = stream->Finish();
    EXPECT_EQ(status.error_code(), grpc::PERMISSION_DENIED);
    EXPECT_EQ(reportReply.accepted(), 0u);
  }
  ASSERT_TRUE(client.stop("guarded", 1).ok());
}

TEST(AgentService, EachRankReportsAsItselfOnly) {
  TempDir dir("agent-rank-secrets");
  agent::AgentServer server(localOptions(dir));
  auto client = clientFor(server);
  // Ranks 0 and 1 of three: rank 2 never comes, so both wait at the rendezvous.
  v1::LaunchRequest request = waitingRank("two-here");
  *request.mutable_spec() = smallJob(3, 10);
  request.mutable_spec()->set_rendezvous_timeout_s(120);
  request.set_local_ranks(2);
  request.set_world_size(3);
  v1::LaunchReply reply;
  ASSERT_TRUE(client.launch(request, reply).ok());
  ASSERT_EQ(reply.pids_size(), 2);
  const std::string rank0 = secretOf(reply.pids(0)), rank1 = secretOf(reply.pids(1));
  EXPECT_NE(rank0, rank1);
  auto telemetry = v1::Telemetry::NewStub(
      grpc::CreateChannel(server.telemetryAddress(), grpc::InsecureChannelCredentials()));
  auto poll = [&](int rank, const std::string& presented) {
    grpc::ClientContext context;
    v1::ControlPollRequest poll;
    poll.set_job_id("two-here");
    poll.set_rank(rank);
    poll.set_secret(presented);
    v1::ControlPollReply pollReply;
    return telemetry->PollControl(&context, poll, &pollReply).error_code();
  };
  EXPECT_EQ(poll(0, rank0), grpc::OK);
  EXPECT_EQ(poll(1, rank1), grpc::OK);
  EXPECT_EQ(poll(1, rank0), grpc::PERMISSION_DENIED) << "rank 0's secret reports as rank 1";
  EXPECT_EQ(poll(0, rank1), grpc::PERMISSION_DENIED);
  ASSERT_TRUE(client.stop("two-here", 1).ok());
}

TEST(AgentService, ConsolesAndRanksHaveEachTheirOwnPort) {
  TempDir dir("agent-ports");
  writeFile(dir.file("token"), "ports-token\n");
  auto options = localOptions(dir);
  options.tokenFile = dir.file("token");
  agent::AgentServer server(options);
  ASSERT_TRUE(server.servesTcp());
  auto consolePort =
      grpc::CreateChannel("127.0.0.1:" + std::to_string(server.port()), grpc::InsecureChannelCredentials());
  auto telemetryPort = grpc::CreateChannel(server.telemetryAddress(), grpc::InsecureChannelCredentials());
  {
    // The ranks' port answers no console, even one holding the token.
    grpc::ClientContext context;
    context.AddMetadata("authorization", "Bearer ports-token");
    v1::HostInfo info;
    EXPECT_EQ(v1::Agent::NewStub(telemetryPort)->GetHostInfo(&context, {}, &info).error_code(),
              grpc::UNIMPLEMENTED);
  }
  {
    grpc::ClientContext context;
    v1::ControlPollRequest request;
    request.set_job_id("any");
    v1::ControlPollReply reply;
    EXPECT_EQ(v1::Telemetry::NewStub(consolePort)->PollControl(&context, request, &reply).error_code(),
              grpc::UNIMPLEMENTED);
  }
  // Without a token there is no TCP port for consoles at all: this user's socket only.
  agent::AgentServer plain(localOptions(dir));
  EXPECT_FALSE(plain.servesTcp());
  EXPECT_NE(plain.localAddress().find("this user only"), std::string::npos) << plain.localAddress();
  v1::HostInfo info;
  EXPECT_TRUE(clientFor(plain).hostInfo(info).ok()) << "the owner reaches it as 127.0.0.1:" << plain.port();
  grpc::ClientContext context;
  auto tcp = v1::Agent::NewStub(
      grpc::CreateChannel("127.0.0.1:" + std::to_string(plain.port()), grpc::InsecureChannelCredentials()));
  context.set_deadline(std::chrono::system_clock::now() + 2s);
  EXPECT_EQ(tcp->GetHostInfo(&context, {}, &info).error_code(), grpc::UNAVAILABLE);
}

TEST(AgentService, JobsUseOnlyTheFoldersTheAgentAllows) {
  TempDir dir("agent-folders");
  std::filesystem::create_directories(dir.file("shared/data"));
  std::filesystem::create_directories(dir.file("state"));
  std::filesystem::create_symlink("/etc", dir.file("state/etc-link"));
  agent::AgentOptions options = localOptions(dir);
  options.allowedFolders = {dir.file("shared")};
  agent::AgentServer server(options);
  auto client = clientFor(server);
  struct Case {
    std::string checkpointDir;
    grpc::StatusCode code;
    std::string says;
  };
  int launched = 0;
  for (const Case& c : {Case{"/etc", grpc::PERMISSION_DENIED, "--allow-folder"},
                        Case{"/", grpc::PERMISSION_DENIED, "--allow-folder"},
                        Case{dir.file("state/etc-link"), grpc::PERMISSION_DENIED, "outside the folders"},
                        Case{dir.file("shared/../../x"), grpc::INVALID_ARGUMENT, "'..'"},
                        Case{"../../x", grpc::INVALID_ARGUMENT, "absolute"},
                        Case{dir.file("shared/data/checkpoints"), grpc::OK, ""},
                        Case{dir.file("state/checkpoints"), grpc::OK, ""}}) {
    v1::LaunchRequest request = waitingRank("folders-" + std::to_string(launched));
    request.mutable_spec()->set_checkpoint_dir(c.checkpointDir);
    v1::LaunchReply reply;
    grpc::Status status = client.launch(request, reply);
    EXPECT_EQ(status.error_code(), c.code) << c.checkpointDir << ": " << status.error_message();
    EXPECT_NE(status.error_message().find(c.says), std::string::npos) << status.error_message();
    if (status.ok()) {
      EXPECT_TRUE(client.stop(request.job_id(), 1).ok());
      ++launched;
    } else {
      EXPECT_NE(status.error_message().find("spec.checkpoint_dir"), std::string::npos)
          << status.error_message();
    }
  }
  EXPECT_EQ(launched, 2);
  v1::LaunchRequest data = waitingRank("data-anywhere");
  data.mutable_spec()->set_data_dir("/root");
  v1::LaunchReply reply;
  EXPECT_EQ(client.launch(data, reply).error_code(), grpc::PERMISSION_DENIED);
  // A folder the owner names must exist.
  agent::AgentOptions missing = localOptions(dir);
  missing.allowedFolders = {dir.file("no-such-folder")};
  EXPECT_THROW(agent::AgentServer{missing}, ringmaster::InputError);
}

TEST(AgentService, RecordsARankCannotHaveMadeAreDroppedAndSaidOnce) {
  TempDir dir("agent-checks");
  agent::AgentServer server(localOptions(dir));
  auto client = clientFor(server);
  v1::LaunchReply reply;
  ASSERT_TRUE(client.launch(waitingRank("checked"), reply).ok());
  const std::string secret = secretOf(reply.pids(0));
  auto telemetry = v1::Telemetry::NewStub(
      grpc::CreateChannel(server.telemetryAddress(), grpc::InsecureChannelCredentials()));
  auto report = [&](const v1::RecordBatch& batch) {
    grpc::ClientContext context;
    v1::ReportReply reportReply;
    auto stream = telemetry->Report(&context, &reportReply);
    v1::ReportRequest request;
    request.set_job_id("checked");
    request.set_rank(0);
    request.set_secret(secret);
    *request.mutable_batch() = batch;
    stream->Write(request);
    stream->WritesDone();
    grpc::Status status = stream->Finish();
    return std::make_pair(status, reportReply.accepted());
  };

  v1::RecordBatch batch;
  auto* good = batch.add_records()->mutable_step();
  good->set_rank(0);
  good->set_step(3);
  good->set_total_ns(1'000'000);
  good->set_loss(std::numeric_limits<double>::quiet_NaN());  // a diverged loss is data
  auto* negative = batch.add_records()->mutable_step();
  negative->set_rank(0);
  negative->set_step(4);
  negative->set_forward_ns(-2'493'765'578);
  auto* farStep = batch.add_records()->mutable_step();  // beyond any job: views would allocate up to it
  farStep->set_rank(0);
  farStep->set_step(UINT64_MAX);
  farStep->set_total_ns(1'000'000);
  auto* nanLatency = batch.add_records()->mutable_allreduce();
  nanLatency->set_rank(0);
  nanLatency->set_latency_us(std::numeric_limits<double>::quiet_NaN());
  auto* huge = batch.add_records()->mutable_memory();
  huge->set_rank(0);
  huge->set_rss_bytes(uint64_t{1} << 60);  // an exbibyte
  auto* otherRank = batch.add_records()->mutable_step();
  otherRank->set_rank(1);
  auto* fakeExit = batch.add_records()->mutable_rank_state();
  fakeExit->set_rank(1);
  fakeExit->set_state(v1::RankState::STATE_SIGNALED);
  batch.add_records()->mutable_log()->set_text("forged");
  batch.add_records()->mutable_finding()->set_summary("forged");
  auto* nanStall = batch.add_records()->mutable_stall();
  nanStall->set_waited_s(std::numeric_limits<double>::infinity());
  auto [status, accepted] = report(batch);
  EXPECT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(accepted, 1u) << "only the step with the diverged loss can be true";

  v1::RecordBatch flood;
  for (int i = 0; i < 100'000; ++i) flood.add_records()->mutable_heartbeat()->set_rank(0);
  auto [floodStatus, floodAccepted] = report(flood);
  EXPECT_EQ(floodStatus.error_code(), grpc::INVALID_ARGUMENT);
  EXPECT_NE(floodStatus.error_message().find("at most"), std::string::npos) << floodStatus.error_message();
  EXPECT_EQ(floodAccepted, 0u);

  ASSERT_TRUE(client.stop("checked", 1).ok());
  std::vector<v1::Record> records;
  bool finished = false;
  {
    console::JournalFollower follower(
        client, "checked", 1,
        [&](const std::vector<v1::Record>& r) { records.insert(records.end(), r.begin(), r.end()); },
        [&](const grpc::Status& s) { finished = s.ok(); });
    EXPECT_TRUE(eventually([&] { return finished; }, 10s));
  }
  int steps = 0, said = 0;
  for (const auto& r : records) {
    steps += r.has_step();
    if (r.has_log() && r.log().stream() == v1::LogLine::STREAM_AGENT &&
        r.log().text().find("cannot be true") != std::string::npos) {
      ++said;
      EXPECT_NE(r.log().text().find("step 4: forward_ns is -2493765578"), std::string::npos)
          << r.log().text();
    }
    EXPECT_FALSE(r.has_finding()) << "a rank's finding reached the journal";
    EXPECT_FALSE(r.has_log() && r.log().text() == "forged") << "a rank's log line reached the journal";
    if (r.has_rank_state()) {
      EXPECT_NE(r.rank_state().rank(), 1) << "a forged exit of rank 1 reached the journal";
    }
  }
  EXPECT_EQ(steps, 1);
  EXPECT_EQ(said, 1);
}

TEST(AgentService, RanksDieWithTheirAgent) {
  TempDir dir("agent-orphans");
  int port = freePort();
  BackgroundProcess agent({binPath("ringmaster-agent"), "--port", std::to_string(port), "--state-dir",
                           dir.file("state"), "--worker", binPath("ringmaster-worker")});
  console::AgentClient client({"127.0.0.1", port, "", "", {}});
  v1::HostInfo info;
  ASSERT_TRUE(eventually([&] { return client.hostInfo(info, 1s).ok(); }, 30s)) << "the agent did not come up";
  v1::LaunchRequest request = waitingRank("orphans");
  request.set_local_ranks(2);
  request.set_world_size(3);  // ranks 0 and 1 here, rank 2 never: both wait at the rendezvous
  request.mutable_spec()->set_world_size(3);
  v1::LaunchReply reply;
  grpc::Status status = client.launch(request, reply);
  ASSERT_TRUE(status.ok()) << status.error_message();
  ASSERT_EQ(reply.pids_size(), 2);
  for (int pid : reply.pids()) EXPECT_TRUE(processAlive(pid));

  agent.signal(SIGKILL);
  agent.wait(10s);
  for (int pid : reply.pids()) {
    EXPECT_TRUE(eventually([&] { return !processAlive(pid); }, 10s))
        << "rank process " << pid << " outlived its agent";
  }
}

// A console's Control reaches every rank through the agent: the timeline starts on request while the ranks
// train, and a stop ends them cleanly (exit code 0) long before their last step.
TEST(AgentService, ControlTurnsTheTimelineOnAndStopsTheRanks) {
  TempDir dir("agent-control");
  agent::AgentServer server(localOptions(dir));
  auto client = clientFor(server);
  v1::LaunchRequest request = waitingRank("controlled");
  constexpr uint64_t kSteps = 1000000;  // far more than the test lets run
  *request.mutable_spec() = smallJob(2, kSteps);
  request.set_local_ranks(2);
  v1::LaunchReply reply;
  grpc::Status status = client.launch(request, reply);
  ASSERT_TRUE(status.ok()) << status.error_message();

  std::mutex mutex;
  std::map<int, uint64_t> steps, timelineEvents, exitCodes;
  std::map<int, uint64_t> lastStep;
  bool finished = false;
  console::JournalFollower follower(
      client, "controlled", 1,
      [&](const std::vector<v1::Record>& records) {
        std::lock_guard lock(mutex);
        for (const auto& r : records) {
          if (r.has_step()) {
            ++steps[r.step().rank()];
            lastStep[r.step().rank()] = r.step().step();
          }
          if (r.has_timeline()) ++timelineEvents[r.timeline().rank()];
          if (r.has_rank_state() && r.rank_state().state() == v1::RankState::STATE_EXITED) {
            exitCodes[r.rank_state().rank()] = static_cast<uint64_t>(r.rank_state().exit_code());
          }
        }
      },
      [&](const grpc::Status& s) {
        std::lock_guard lock(mutex);
        finished = s.ok();
      });
  auto locked = [&](auto predicate) {
    return [&, predicate] {
      std::lock_guard lock(mutex);
      return predicate();
    };
  };

  ASSERT_TRUE(eventually(locked([&] { return steps[0] >= 20 && steps[1] >= 20; }), 60s))
      << "the ranks did not train";
  {
    std::lock_guard lock(mutex);
    EXPECT_EQ(timelineEvents[0] + timelineEvents[1], 0u) << "the timeline was on before anyone asked";
  }
  ASSERT_TRUE(client.control("controlled", -1, v1::ControlRequest::ACTION_TIMELINE_ON).ok());
  EXPECT_TRUE(eventually(locked([&] { return timelineEvents[0] > 0 && timelineEvents[1] > 0; }), 30s))
      << "no timeline events after ACTION_TIMELINE_ON";

  ASSERT_TRUE(client.control("controlled", -1, v1::ControlRequest::ACTION_STOP).ok());
  ASSERT_TRUE(eventually(locked([&] { return finished; }), 60s)) << "the job did not end after ACTION_STOP";
  std::lock_guard lock(mutex);
  for (int rank : {0, 1}) {
    ASSERT_EQ(exitCodes.count(rank), 1u) << "rank " << rank << " did not exit normally";
    EXPECT_EQ(exitCodes[rank], 0u) << "rank " << rank;
    EXPECT_LT(lastStep[rank] + 1, kSteps) << "rank " << rank << " ran to its end instead of stopping";
  }
  // Both ranks agreed on the step they stopped at.
  EXPECT_EQ(lastStep[0], lastStep[1]);
}

// Journals of finished jobs are removed after --keep-journals-days; recent ones and running jobs stay.
TEST(AgentService, OldJournalsAreRemovedAtStart) {
  TempDir dir("agent-prune");
  auto options = localOptions(dir);
  const auto jobs = std::filesystem::path(options.stateDir) / "jobs";
  auto makeJob = [&](const std::string& id, std::chrono::hours age) {
    std::filesystem::create_directories(jobs / id);
    writeFile((jobs / id / "journal").string(), "RMJRNL1\n");
    std::filesystem::last_write_time(jobs / id / "journal",
                                     std::filesystem::file_time_type::clock::now() - age);
  };
  makeJob("last-month", std::chrono::hours(24 * 30));
  makeJob("yesterday", std::chrono::hours(24));
  options.keepJournalsDays = 0;  // keep everything
  { agent::AgentServer server(options); }
  EXPECT_TRUE(std::filesystem::exists(jobs / "last-month"));
  options.keepJournalsDays = 7;
  { agent::AgentServer server(options); }
  EXPECT_FALSE(std::filesystem::exists(jobs / "last-month"));
  EXPECT_TRUE(std::filesystem::exists(jobs / "yesterday" / "journal"));
}

// A reply protobuf cannot parse (a log line with bytes that are not UTF-8, as agents sent what a rank printed
// before they made it UTF-8): gRPC's reader stops at it as if the stream had ended, and Finish() then waits
// for a status the transport hands over only once the replies queued behind the bad one are read, that is for
// ever; with nothing behind it the stream looks ended and a follower would read it again and again. Either
// way the follower ends, with DATA_LOSS naming the agent, after one try.
TEST(AgentService, AReplyTheConsoleCannotReadEndsTheFollowerNamingTheAgent) {
  auto reply = [](uint64_t seq, bool readable, bool last) {
    v1::WatchReply r;
    auto* record = r.mutable_batch()->add_records();
    record->set_seq(seq);
    if (readable) {
      record->mutable_rank_state()->set_state(last ? v1::RankState::STATE_EXITED
                                                   : v1::RankState::STATE_RUNNING);
    } else {
      record->mutable_log()->set_text("\377bad");  // protobuf logs it, and sends it all the same
    }
    r.set_job_finished(last);
    return r;
  };
  for (const bool moreBehind : {true, false}) {
    SCOPED_TRACE(moreBehind ? "replies behind the bad one" : "the bad reply last");
    ScriptedAgent agent(
        [&](grpc::ServerContext&, grpc::ServerWriter<v1::WatchReply>& writer, const std::atomic<bool>&) {
          writer.Write(reply(1, true, false));
          writer.Write(reply(2, false, false));
          if (moreBehind) writer.Write(reply(3, true, true));
        });
    console::AgentClient client({"127.0.0.1", agent.port(), ScriptedAgent::kToken, "", {}});
    std::mutex mutex;
    std::vector<v1::Record> records;
    std::optional<grpc::Status> end;
    {
      console::JournalFollower follower(
          client, "unreadable", 1,
          [&](const std::vector<v1::Record>& r) {
            std::lock_guard lock(mutex);
            records.insert(records.end(), r.begin(), r.end());
          },
          [&](const grpc::Status& s) {
            std::lock_guard lock(mutex);
            end = s;
          });
      EXPECT_TRUE(eventually(
          [&] {
            std::lock_guard lock(mutex);
            return end.has_value();
          },
          30s))
          << "the follower did not end (" << agent.watches() << " tries)";
    }
    ASSERT_TRUE(end);
    EXPECT_EQ(end->error_code(), grpc::DATA_LOSS) << end->error_message();
    EXPECT_NE(end->error_message().find("the agent at 127.0.0.1:" + std::to_string(agent.port()) +
                                        " sent records after #1 that this console cannot read"),
              std::string::npos)
        << end->error_message();
    EXPECT_EQ(records.size(), 1u);
    EXPECT_EQ(agent.watches(), 1) << "reading from the same record again fails the same way";
  }
}

// A retention too long for the file clock (which spans about 292 years in nanoseconds) keeps every journal,
// as a long retention should, instead of wrapping around and removing them all.
TEST(AgentService, ARetentionBeyondTheClocksRangeKeepsEveryJournal) {
  TempDir dir("agent-prune-range");
  const auto jobs = std::filesystem::path(dir.file("state")) / "jobs";
  for (double days :
       {1e6, 1e300, std::numeric_limits<double>::infinity(), std::numeric_limits<double>::quiet_NaN()}) {
    std::filesystem::create_directories(jobs / "last-month");
    writeFile((jobs / "last-month" / "journal").string(), "RMJRNL1\n");
    std::filesystem::last_write_time(
        jobs / "last-month" / "journal",
        std::filesystem::file_time_type::clock::now() - std::chrono::hours(24 * 30));
    agent::AgentConfig config;
    config.stateDir = dir.file("state");
    config.keepJournalsDays = days;
    agent::Agent agent(config);
    EXPECT_EQ(agent.pruneOldJournals(), 0) << days;
    EXPECT_TRUE(std::filesystem::exists(jobs / "last-month" / "journal")) << days << " days removed it";
  }
}

// TLS with a token: a console that trusts the agent's certificate gets in; one that speaks plaintext, or
// trusts another CA, does not.
TEST(AgentService, TlsAcceptsOnlyConsolesTrustingItsCertificate) {
  TempDir dir("agent-tls");
  auto makeCertificate = [&](const std::string& name) {
    const std::string command =
        "openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=localhost "
        "-addext subjectAltName=IP:127.0.0.1,DNS:localhost -keyout " +
        dir.file(name + ".key") + " -out " + dir.file(name + ".pem") + " >/dev/null 2>&1";
    return std::system(command.c_str()) == 0;
  };
  if (!makeCertificate("agent") || !makeCertificate("other")) {
    GTEST_SKIP() << "openssl could not make a test certificate (scripts/install-deps installs openssl)";
  }
  writeFile(dir.file("token"), "tls-token\n");
  auto options = localOptions(dir);
  options.tokenFile = dir.file("token");
  options.tlsCert = dir.file("agent.pem");
  options.tlsKey = dir.file("agent.key");
  agent::AgentServer server(options);
  v1::HostInfo info;

  console::AgentClient trusting(
      {"127.0.0.1", server.port(), "tls-token", readFile(dir.file("agent.pem")), {}});
  grpc::Status status = trusting.hostInfo(info, 10s);
  EXPECT_TRUE(status.ok()) << status.error_message();
  EXPECT_FALSE(info.hostname().empty());

  console::AgentClient noToken({"127.0.0.1", server.port(), "", readFile(dir.file("agent.pem")), {}});
  EXPECT_EQ(noToken.hostInfo(info, 10s).error_code(), grpc::UNAUTHENTICATED);
  console::AgentClient plaintext({"127.0.0.1", server.port(), "tls-token", "", {}});
  EXPECT_FALSE(plaintext.hostInfo(info, 5s).ok());
  console::AgentClient otherCa(
      {"127.0.0.1", server.port(), "tls-token", readFile(dir.file("other.pem")), {}});
  EXPECT_FALSE(otherCa.hostInfo(info, 5s).ok());
}

}  // namespace
