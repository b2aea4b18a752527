// SPDX-License-Identifier: GPL-3.0-or-later
// The agent's gRPC service against real ranks: validation, tokens, stop, orphans.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <fstream>

#include "agent/agent_server.h"
#include "agent/host_info.h"
#include "common/error.h"
#include "console/agent_client.h"
#include "tests/integration/agent_test_support.h"

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
  return console::AgentClient({"127.0.0.1", server.port(), token, ""});
}

// A launch of rank 0 of a 2-rank job: rank 1 never comes, so rank 0 waits at the rendezvous (alive, idle).
v1::LaunchRequest waitingRank(const std::string& jobId) {
  v1::LaunchRequest request;
  request.set_job_id(jobId);
  *request.mutable_spec() = smallJob(2, 10);
  request.mutable_spec()->set_rendezvous_timeout_s(120);
  request.set_first_rank(0);
  request.set_local_ranks(1);
  request.set_world_size(2);
  request.set_master_addr("127.0.0.1");
  request.set_master_port(static_cast<uint32_t>(freePort()));
  return request;
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
  EXPECT_NE(status.error_message().find("spec.hyper.batch_size"), std::string::npos) << status.error_message();

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
  std::ofstream(dir.file("token")) << "s3cret-token\n";
  auto options = localOptions(dir);
  options.tokenFile = dir.file("token");
  agent::AgentServer server(options);
  v1::HostInfo info;

  auto anonymous = clientFor(server);
  grpc::Status status = anonymous.hostInfo(info);
  EXPECT_EQ(status.error_code(), grpc::UNAUTHENTICATED);
  EXPECT_NE(status.error_message().find("token"), std::string::npos);
  v1::LaunchReply reply;
  EXPECT_EQ(anonymous.launch(waitingRank("no-token"), reply).error_code(), grpc::UNAUTHENTICATED);

  auto wrong = clientFor(server, "guess");
  EXPECT_EQ(wrong.hostInfo(info).error_code(), grpc::UNAUTHENTICATED);
  EXPECT_EQ(wrong.stop("anything").error_code(), grpc::UNAUTHENTICATED);

  auto right = clientFor(server, "s3cret-token");
  status = right.hostInfo(info);
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

TEST(AgentService, StopEndsTheRanksAndTheJournal) {
  TempDir dir("agent-stop");
  agent::AgentServer server(localOptions(dir));
  auto client = clientFor(server);
  v1::LaunchReply reply;
  grpc::Status status = client.launch(waitingRank("stop-me"), reply);
  ASSERT_TRUE(status.ok()) << status.error_message();
  ASSERT_EQ(reply.pids_size(), 1);
  int pid = reply.pids(0);
  EXPECT_TRUE(processAlive(pid));
  ASSERT_TRUE(client.stop("stop-me", 1).ok());
  EXPECT_TRUE(eventually([&] { return !processAlive(pid); }, 10s));

  std::vector<v1::Record> records;
  bool finished = false;
  {
    console::JournalFollower follower(
        client, "stop-me", 1, [&](const std::vector<v1::Record>& r) { records.insert(records.end(), r.begin(), r.end()); },
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
  EXPECT_EQ(client.launch(waitingRank("stop-me"), reply).error_code(), grpc::ALREADY_EXISTS);
}

TEST(AgentService, RanksDieWithTheirAgent) {
  TempDir dir("agent-orphans");
  int port = freePort();
  pid_t agentPid = ::fork();
  if (agentPid == 0) {
    std::string portText = std::to_string(port);
    std::string stateDir = dir.file("state");
    std::string worker = binPath("ringmaster-worker");
    std::string agentBinary = binPath("ringmaster-agent");
    ::execl(agentBinary.c_str(), agentBinary.c_str(), "--port", portText.c_str(), "--state-dir", stateDir.c_str(),
            "--worker", worker.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  console::AgentClient client({"127.0.0.1", port, "", ""});
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

  ::kill(agentPid, SIGKILL);
  int wstatus = 0;
  ::waitpid(agentPid, &wstatus, 0);
  for (int pid : reply.pids()) {
    EXPECT_TRUE(eventually([&] { return !processAlive(pid); }, 10s)) << "rank process " << pid << " outlived its agent";
  }
}

}  // namespace
