// SPDX-License-Identifier: GPL-3.0-or-later
// What an agent's owner allows holds where it is used, not only where a launch is checked: the program that
// runs is the one allowed even when a link flips. Another user of the machine (uid 65534 when the tests run
// as root) does the flipping.
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

}  // namespace
