// SPDX-License-Identifier: GPL-3.0-or-later
// What an agent's owner allows holds where it is used, not only where a launch is checked: the program that
// runs is the one allowed even when a link flips, and a launch sets no variable that changes what a program
// loads. Another user of the machine (uid 65534 when the tests run as root) does the flipping.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <memory>

#include "agent/agent_server.h"
#include "agent/job.h"
#include "console/agent_client.h"
#include "tests/integration/agent_test_support.h"

using namespace ringmaster;
using namespace ringmaster::test;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

constexpr uid_t kOtherUser = 65534;

// `argv` as the other user when the tests run as root (else as this one).
std::vector<std::string> asOtherUser(std::vector<std::string> argv) {
  if (::geteuid() != 0) return argv;
  std::vector<std::string> prefixed = {"/usr/bin/setpriv", "--reuid=65534", "--regid=65534",
                                       "--clear-groups"};
  prefixed.insert(prefixed.end(), argv.begin(), argv.end());
  return prefixed;
}

// A folder the other user owns and may change, inside `dir` (which everyone may enter).
std::string otherUsersFolder(const TempDir& dir, const std::string& name) {
  ::chmod(dir.path().c_str(), 0755);
  const std::string folder = dir.file(name);
  fs::create_directories(folder);
  if (::geteuid() == 0 && ::chown(folder.c_str(), kOtherUser, kOtherUser) != 0) ADD_FAILURE() << folder;
  return folder;
}

agent::AgentOptions optionsIn(const TempDir& dir) {
  agent::AgentOptions options;
  options.port = 0;
  options.stateDir = dir.file("state");
  options.workerPath = binPath("ringmaster-worker");
  return options;
}

console::AgentClient clientFor(const agent::AgentServer& server) {
  return console::AgentClient({"127.0.0.1", server.port(), "", "", ""});
}

// One rank of a user's program, uninstrumented.
v1::LaunchRequest programLaunch(const std::string& jobId, const std::vector<std::string>& argv,
                                const std::vector<std::string>& environment = {}) {
  v1::LaunchRequest request;
  request.set_job_id(jobId);
  v1::JobSpec spec = defaultJobSpec();
  spec.set_world_size(1);
  auto* program = spec.mutable_program();
  for (const auto& a : argv) program->add_argv(a);
  for (const auto& e : environment) program->add_environment(e);
  program->set_uninstrumented(true);
  *request.mutable_spec() = spec;
  request.set_first_rank(0);
  request.set_local_ranks(1);
  request.set_world_size(1);
  request.set_master_addr("127.0.0.1");
  request.set_master_port(static_cast<uint32_t>(freePort()));
  return request;
}

// Every record of a job, once it has finished.
std::vector<v1::Record> recordsOf(console::AgentClient& client, const std::string& jobId) {
  std::vector<v1::Record> records;
  bool finished = false;
  console::JournalFollower follower(
      client, jobId, 1,
      [&](const std::vector<v1::Record>& r) { records.insert(records.end(), r.begin(), r.end()); },
      [&](const grpc::Status& s) { finished = s.ok(); });
  EXPECT_TRUE(eventually([&] { return finished; }, 120s)) << "job " << jobId << " did not finish";
  follower.stop();
  return records;
}

std::string outputOf(const std::vector<v1::Record>& records) {
  std::string text;
  for (const auto& r : records) {
    if (r.has_log()) text += r.log().text() + "\n";
  }
  return text;
}

// A program named by a link is started by the file the agent checked: a link that another user flips
// between an allowed and a forbidden script while jobs launch never makes the agent run the forbidden one.
TEST(AgentConfinement, AProgramNamedByAFlippingLinkIsStartedByTheFileThatWasAllowed) {
  TempDir dir("confine-flip");
  ::chmod(dir.path().c_str(), 0755);
  const std::string programs = dir.file("programs");
  fs::create_directories(programs);
  ::chmod(programs.c_str(), 0755);
  const std::string allowed = programs + "/allowed.sh", forbidden = programs + "/forbidden.sh";
  const std::string ranForbidden = dir.file("forbidden-ran");
  writeFile(allowed, "#!/bin/sh\nexit 0\n");
  writeFile(forbidden, "#!/bin/sh\necho ran >> " + ranForbidden + "\n");
  ::chmod(allowed.c_str(), 0755);
  ::chmod(forbidden.c_str(), 0755);
  const std::string link = otherUsersFolder(dir, "mine") + "/train";

  agent::AgentOptions options = optionsIn(dir);
  options.allowedPrograms = {allowed};
  agent::AgentServer server(options);
  auto client = clientFor(server);

  const std::string flip =
      "import os, sys\n"
      "link, targets = sys.argv[1], sys.argv[2:]\n"
      "while True:\n"
      "    for target in targets:\n"
      "        try:\n"
      "            os.remove(link + '.next')\n"
      "        except FileNotFoundError:\n"
      "            pass\n"
      "        os.symlink(target, link + '.next')\n"
      "        os.replace(link + '.next', link)\n";
  BackgroundProcess flipper(asOtherUser({"/usr/bin/python3", "-c", flip, link, allowed, forbidden}));
  ASSERT_TRUE(eventually([&] { return fs::is_symlink(link); }, 30s)) << "the link never appeared";

  int started = 0, refused = 0;
  std::vector<int> pids;
  for (int i = 0; i < 150; ++i) {
    v1::LaunchReply reply;
    grpc::Status status = client.launch(programLaunch("flip-" + std::to_string(i), {link}), reply);
    if (status.ok()) {
      ++started;
      pids.insert(pids.end(), reply.pids().begin(), reply.pids().end());
    } else {
      EXPECT_EQ(status.error_code(), grpc::PERMISSION_DENIED) << status.error_message();
      EXPECT_NE(status.error_message().find("--allow-program"), std::string::npos) << status.error_message();
      ++refused;
    }
  }
  EXPECT_TRUE(eventually(
      [&] { return std::none_of(pids.begin(), pids.end(), [](int pid) { return processAlive(pid); }); },
      60s));
  EXPECT_FALSE(fs::exists(ranForbidden)) << "the forbidden script ran " << readFile(ranForbidden).size() / 4
                                         << " times in " << started << " started jobs";
  // Both sides of the link were seen, so the flips did race the checks.
  EXPECT_GT(started, 0);
  EXPECT_GT(refused, 0);
}

std::unique_ptr<BackgroundProcess> startAgent(const TempDir& dir, int port,
                                              const std::vector<std::string>& extra) {
  std::vector<std::string> argv = {binPath("ringmaster-agent"),
                                   "--port",
                                   std::to_string(port),
                                   "--state-dir",
                                   dir.file("state-" + std::to_string(port)),
                                   "--allow-program",
                                   "/bin/sh"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  return std::make_unique<BackgroundProcess>(argv);
}

// The loader's and interpreters' variables (LD_PRELOAD, PYTHONPATH ...) would run code of the launcher's
// choosing inside an allowed program: a launch sets them only where the agent's owner allowed each one.
TEST(AgentConfinement, ALaunchSetsTheLoadersVariablesOnlyWhereTheAgentAllowsThem) {
  TempDir dir("confine-env");
  auto help = runProcess({binPath("ringmaster-agent"), "--help"});
  EXPECT_NE(help.out.find("--allow-env"), std::string::npos) << help.out;
  for (const char* name : {"LD_*", "PYTHONPATH", "NODE_OPTIONS", "BASH_ENV"})
    EXPECT_NE(help.out.find(name), std::string::npos) << name << " is not named in\n" << help.out;

  // Only a guarded name can be allowed: anything else is a mistake the owner hears of.
  auto typo = runProcess({binPath("ringmaster-agent"), "--port", std::to_string(freePort()), "--state-dir",
                          dir.file("state-typo"), "--allow-env", "EPOCHS"});
  EXPECT_EQ(typo.exitCode, 2) << typo.err;
  EXPECT_NE(typo.err.find("--allow-env EPOCHS"), std::string::npos) << typo.err;

  const std::vector<std::string> program = {"/bin/sh", "-c", "test \"$LD_PRELOAD\" = libc.so.6"};
  for (bool allowing : {false, true}) {
    SCOPED_TRACE(allowing ? "--allow-env LD_PRELOAD" : "no --allow-env");
    const int port = freePort();
    auto agentProcess = startAgent(
        dir, port,
        allowing ? std::vector<std::string>{"--allow-env", "LD_PRELOAD"} : std::vector<std::string>{});
    console::AgentClient client({"127.0.0.1", port, "", "", ""});
    v1::HostInfo info;
    ASSERT_TRUE(eventually([&] { return client.hostInfo(info, 1s).ok(); }, 30s)) << "no agent";

    v1::LaunchReply reply;
    grpc::Status status = client.launch(programLaunch("preload", program, {"LD_PRELOAD=libc.so.6"}), reply);
    if (!allowing) {
      EXPECT_EQ(status.error_code(), grpc::PERMISSION_DENIED) << status.error_message();
      EXPECT_NE(status.error_message().find("LD_PRELOAD"), std::string::npos) << status.error_message();
      EXPECT_NE(status.error_message().find("--allow-env LD_PRELOAD"), std::string::npos)
          << status.error_message();
      status = client.launch(programLaunch("pythonpath", program, {"PYTHONPATH=/tmp"}), reply);
      EXPECT_EQ(status.error_code(), grpc::PERMISSION_DENIED) << status.error_message();
      EXPECT_NE(status.error_message().find("--allow-env PYTHONPATH"), std::string::npos)
          << status.error_message();
      // Variables that change nothing of what is loaded are the launch's to set.
      status = client.launch(programLaunch("plain", {"/bin/sh", "-c", "true"}, {"EPOCHS=3"}), reply);
      EXPECT_TRUE(status.ok()) << status.error_message();
    } else {
      ASSERT_TRUE(status.ok()) << status.error_message();
      const auto records = recordsOf(client, "preload");
      bool exitedWell = false;
      for (const auto& r : records) {
        if (r.has_rank_state() && r.rank_state().state() == v1::RankState::STATE_EXITED)
          exitedWell = r.rank_state().exit_code() == 0;
      }
      EXPECT_TRUE(exitedWell) << "the rank did not see LD_PRELOAD:\n" << outputOf(records);
      // Allowing one variable allows no other.
      status = client.launch(programLaunch("audit", program, {"LD_AUDIT=libc.so.6"}), reply);
      EXPECT_EQ(status.error_code(), grpc::PERMISSION_DENIED) << status.error_message();
    }
    agentProcess->signal(SIGTERM);
    EXPECT_FALSE(agentProcess->wait(30s).timedOut);
  }
}

// How starting the ranks of a job made without an agent's launch checks (`setup.request` a program's
// launch) came out, once they have exited.
agent::StartResult startedJob(const TempDir& dir, agent::JobSetup setup) {
  fs::create_directories(dir.file("job"));
  setup.workerPath = setup.request.spec().program().argv(0);
  setup.directory = dir.file("job");
  setup.hostname = "here";
  agent::Job job(std::move(setup));
  std::mutex mutex;
  std::optional<agent::StartResult> result;
  job.start([&](const agent::StartResult& r) {
    std::lock_guard lock(mutex);
    result = r;
  });
  EXPECT_TRUE(eventually([&] { return job.finished(); }, 30s)) << "the job did not finish";
  std::lock_guard lock(mutex);
  return result.value_or(agent::StartResult{});
}

// The rank's environment is checked again where it is made, so a job that did not come through the
// launch's check still does not start with a variable its agent does not allow.
TEST(AgentConfinement, AJobDoesNotStartARankWithALoaderVariableItWasNotAllowed) {
  TempDir dir("confine-job-env");
  agent::JobSetup setup;
  setup.request = programLaunch("direct", {"/bin/sh", "-c", "true"}, {"LD_PRELOAD=libc.so.6"});
  const agent::StartResult result = startedJob(dir, std::move(setup));
  EXPECT_FALSE(result.ok) << "the rank started with LD_PRELOAD";
  EXPECT_NE(result.error.find("LD_PRELOAD"), std::string::npos) << result.error;
  EXPECT_NE(result.error.find("--allow-env"), std::string::npos) << result.error;
}

}  // namespace
