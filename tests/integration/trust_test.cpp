// SPDX-License-Identifier: GPL-3.0-or-later
// A second local user (uid 65534, through setpriv) against a live local run and a plain agent: whatever port
// or socket they find, no launch, watch, stop or control gets through. And what a rank leaves running ends
// with its job.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "agent/agent_server.h"
#include "console/session/agent_client.h"
#include "tests/support/agent_test_support.h"

using namespace ringmaster;
using namespace ringmaster::test;
using namespace std::chrono_literals;

namespace {

constexpr const char* kSetpriv = "/usr/bin/setpriv";

struct Endpoints {
  std::set<int> tcpPorts;         // listening
  std::set<std::string> sockets;  // Unix socket paths
};

// The socket inodes `pid` holds open.
std::set<std::string> socketInodes(int pid) {
  std::set<std::string> inodes;
  std::error_code ec;
  for (const auto& fd : std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/fd", ec)) {
    const std::string link = std::filesystem::read_symlink(fd.path(), ec).string();
    if (link.rfind("socket:[", 0) == 0) inodes.insert(link.substr(8, link.size() - 9));
  }
  return inodes;
}

// The TCP ports `pid` listens on and the Unix sockets it bound, as another user would find them (ss -lpx).
Endpoints endpointsOf(int pid) {
  Endpoints found;
  const std::set<std::string> inodes = socketInodes(pid);
  for (const std::string table : {"/proc/net/tcp", "/proc/net/tcp6"}) {
    std::istringstream lines(readFile(table));
    std::string line;
    std::getline(lines, line);
    while (std::getline(lines, line)) {
      std::istringstream fields(line);
      std::string slot, local, remote, state, queues, timer, retransmit, uid, timeout, inode;
      fields >> slot >> local >> remote >> state >> queues >> timer >> retransmit >> uid >> timeout >> inode;
      if (state == "0A" && inodes.count(inode)) {
        found.tcpPorts.insert(std::stoi(local.substr(local.find(':') + 1), nullptr, 16));
      }
    }
  }
  std::istringstream lines(readFile("/proc/net/unix"));
  std::string line;
  std::getline(lines, line);
  while (std::getline(lines, line)) {
    std::istringstream fields(line);
    std::string num, refs, protocol, flags, type, state, inode, path;
    fields >> num >> refs >> protocol >> flags >> type >> state >> inode >> path;
    if (!path.empty() && path[0] == '/' && inodes.count(inode)) found.sockets.insert(path);
  }
  return found;
}

// agent_caller's "Call CODE" lines.
std::map<std::string, std::string> callResults(const std::string& out) {
  std::map<std::string, std::string> results;
  std::istringstream lines(out);
  std::string call, code;
  while (lines >> call >> code) results[call] = code;
  return results;
}

ProcessResult callAs(bool otherUser, const std::string& target, const std::string& jobId,
                     const std::string& marker) {
  std::vector<std::string> argv;
  if (otherUser) argv = {kSetpriv, "--reuid=65534", "--regid=65534", "--clear-groups"};
  argv.insert(argv.end(), {binPath("agent_caller"), target, jobId, marker});
  return runProcess(argv, {}, 60s);
}

// Every call another user makes on `target` fails, and the launch it tried ran nothing.
void expectNothingGetsThrough(const std::string& target, const std::string& jobId, const TempDir& open) {
  const std::string marker = open.file("ran-" + std::to_string(std::hash<std::string>{}(target)));
  ProcessResult r = callAs(true, target, jobId, marker);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  auto results = callResults(r.out);
  for (const std::string call :
       {"GetHostInfo", "Launch", "Watch", "Control", "PollControl", "Report", "Stop"}) {
    ASSERT_TRUE(results.count(call)) << target << ": " << r.out << r.err;
    EXPECT_NE(results[call], "OK") << target << ": another user's " << call << " got through";
  }
  EXPECT_NE(results["Report"], "NOTHING_ACCEPTED")
      << target << ": a report stream without a secret was taken";
  std::this_thread::sleep_for(200ms);  // a launch that got through would have written by now
  EXPECT_FALSE(std::filesystem::exists(marker)) << target << ": another user's program ran";
}

// The children of `pid` (of any of its threads), as found in /proc.
std::vector<int> childrenOf(int pid) {
  std::vector<int> children;
  std::error_code ec;
  for (const auto& task : std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/task", ec)) {
    std::istringstream words(readFile(task.path().string() + "/children"));
    for (int child; words >> child;) children.push_back(child);
  }
  return children;
}

std::string environmentValue(int pid, const std::string& name) {
  const std::string environ = readFile("/proc/" + std::to_string(pid) + "/environ");
  size_t at = environ.find(name + "=");
  if (at == std::string::npos) return {};
  at += name.size() + 1;
  return environ.substr(at, environ.find('\0', at) - at);
}

class Trust : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "a second uid needs root (setpriv)";
    // The other user may enter the test's folders and write its marker files in one of them.
    ::chmod(dir_.path().c_str(), 0755);
    std::filesystem::create_directories(open_.path());
    ::chmod(open_.path().c_str(), 0777);
  }
  TempDir dir_{"trust"};
  TempDir open_{"trust-open"};
};

TEST_F(Trust, AnotherUserReachesNothingOfALiveLocalRun) {
  BackgroundProcess run({binPath("ringmaster"), "run", "-np", "2", "--model", "mlp", "--data", "synthetic",
                         "--steps", "1000000", "--batch-size", "16", "--state-dir", dir_.file("state"),
                         "--store", dir_.file("runs.sqlite")});
  std::string jobId;
  Endpoints endpoints;
  ASSERT_TRUE(eventually(
      [&] {
        auto ranks = childrenOf(run.pid());
        if (ranks.size() < 2) return false;
        jobId = environmentValue(ranks[0], "RINGMASTER_JOB_ID");
        endpoints = endpointsOf(run.pid());
        return !jobId.empty() && !endpoints.tcpPorts.empty();
      },
      120s))
      << run.err();
  for (int port : endpoints.tcpPorts)
    expectNothingGetsThrough("127.0.0.1:" + std::to_string(port), jobId, open_);
  for (const auto& socket : endpoints.sockets) expectNothingGetsThrough("unix:" + socket, jobId, open_);
  ASSERT_FALSE(endpoints.sockets.empty()) << "the console serves itself over a socket";

  // Nor can they read the run from its history: the store is its user's alone.
  for (const std::vector<std::string>& command :
       {std::vector<std::string>{"show", "last"},
        {"runs"},
        {"report", "last", "--format", "csv", "-o", open_.file("stolen.csv")}}) {
    std::vector<std::string> argv = {kSetpriv, "--reuid=65534", "--regid=65534", "--clear-groups",
                                     binPath("ringmaster")};
    argv.insert(argv.end(), command.begin(), command.end());
    argv.insert(argv.end(), {"--store", dir_.file("runs.sqlite")});
    ProcessResult r = runProcess(argv, {}, 60s);
    EXPECT_NE(r.exitCode, 0) << command[0] << " as another user: " << r.out << r.err;
    EXPECT_EQ(r.out.find(jobId), std::string::npos) << r.out;
  }
  EXPECT_FALSE(std::filesystem::exists(open_.file("stolen.csv")));

  // The run's own user does get through its socket: the calls above could have succeeded.
  const std::string ownMarker = open_.file("owner-ran");
  ProcessResult own = callAs(false, "unix:" + *endpoints.sockets.begin(), "no-such-job", ownMarker);
  EXPECT_EQ(callResults(own.out)["GetHostInfo"], "OK") << own.out << own.err;
  EXPECT_EQ(callResults(own.out)["Launch"], "OK") << own.out << own.err;
  EXPECT_TRUE(eventually([&] { return std::filesystem::exists(ownMarker); }, 30s));

  // The run trained on, untouched: it ends when its user stops it.
  run.signal(SIGINT);
  ProcessResult ended = run.wait(60s);
  EXPECT_FALSE(ended.timedOut) << ended.err;
  EXPECT_EQ(ended.err.find("stopped by the agent"), std::string::npos) << ended.err;
}

TEST_F(Trust, AnotherUserReachesNothingOfAPlainAgent) {
  const int port = freePort();
  writeFile(dir_.file("token"), "plain-agent-token\n");
  ::chmod(dir_.file("token").c_str(), 0600);
  const int tokenPort = freePort();
  BackgroundProcess plain({binPath("ringmaster-agent"), "--port", std::to_string(port), "--state-dir",
                           dir_.file("plain"), "--worker", binPath("ringmaster-worker")});
  BackgroundProcess withToken({binPath("ringmaster-agent"), "--port", std::to_string(tokenPort),
                               "--token-file", dir_.file("token"), "--state-dir", dir_.file("token-state"),
                               "--worker", binPath("ringmaster-worker")});
  // Each runs a job of its owner's that the other user would watch and stop.
  console::AgentClient owner({"127.0.0.1", port, "", "", {}});
  console::AgentClient tokenOwner({"127.0.0.1", tokenPort, "plain-agent-token", "", {}});
  for (auto* client : {&owner, &tokenOwner}) {
    ASSERT_TRUE(eventually(
        [&] {
          v1::HostInfo info;
          return client->hostInfo(info, 1s).ok();
        },
        60s))
        << plain.err() << withToken.err();
    v1::LaunchReply reply;
    ASSERT_TRUE(client->launch(waitingRank("victim"), reply).ok());
  }
  EXPECT_NE(plain.err().find("no TCP port"), std::string::npos) << plain.err();
  EXPECT_NE(withToken.err().find("token required"), std::string::npos) << withToken.err();

  for (auto* agent : {&plain, &withToken}) {
    Endpoints endpoints = endpointsOf(agent->pid());
    ASSERT_FALSE(endpoints.tcpPorts.empty()) << "the ranks' telemetry port";
    for (int p : endpoints.tcpPorts)
      expectNothingGetsThrough("127.0.0.1:" + std::to_string(p), "victim", open_);
    for (const auto& socket : endpoints.sockets) expectNothingGetsThrough("unix:" + socket, "victim", open_);
  }
  // The default port of a plain agent is not served over TCP at all.
  EXPECT_FALSE(endpointsOf(plain.pid()).tcpPorts.count(port));
  EXPECT_TRUE(owner.stop("victim", 1).ok());
  EXPECT_TRUE(tokenOwner.stop("victim", 1).ok());
}

TEST_F(Trust, TheSocketHangsUpOnAnotherUidEvenWhenItsFileIsOpen) {
  // A socket file anyone may connect to, in a folder anyone may enter: the peer's uid is still checked.
  agent::AgentOptions options;
  options.port = 0;
  options.stateDir = dir_.file("state");
  options.workerPath = binPath("ringmaster-worker");
  options.socketPath = open_.file("agent.sock");
  agent::AgentServer server(options);
  ::chmod(options.socketPath.c_str(), 0666);
  expectNothingGetsThrough("unix:" + options.socketPath, "none", open_);
  ProcessResult own = callAs(false, "unix:" + options.socketPath, "none", open_.file("owner"));
  EXPECT_EQ(callResults(own.out)["GetHostInfo"], "OK") << own.out << own.err;
}

// Says hello on a rank socket as the ringmaster Python package does, and prints what came of it: "welcome",
// "refused: WHY" or "unreachable: WHY".
ProcessResult helloAs(bool otherUser, const std::string& socket, const std::string& jobId, int rank,
                      const std::string& secret) {
  const std::string code =
      "import os, sys\n"
      "from ringmaster._environment import RankEnvironment\n"
      "from ringmaster._telemetry import ChannelError, Hello, _AgentSocket\n"
      "env = RankEnvironment.from_environ({'RINGMASTER_JOB_ID': sys.argv[2], 'RINGMASTER_JOB_SECRET': "
      "sys.argv[4], 'RANK': sys.argv[3]})\n"
      "channel = _AgentSocket(sys.argv[1], Hello(env, int(sys.argv[3]), 1))\n"
      "try:\n"
      "    channel.connect()\n"
      "    print('welcome')\n"
      "except ChannelError as e:\n"
      "    print('refused:', e)\n"
      "except OSError as e:\n"
      "    print('unreachable:', e)\n";
  std::vector<std::string> argv;
  if (otherUser) argv = {kSetpriv, "--reuid=65534", "--regid=65534", "--clear-groups"};
  argv.insert(argv.end(), {"/usr/bin/python3", "-c", code, socket, jobId, std::to_string(rank), secret});
  return runProcess(argv, {{"PYTHONPATH", RM_PYTHON_ROOT}}, 60s);
}

TEST_F(Trust, TheRankSocketTakesOnlyTheOwnersRanksWithTheirSecrets) {
  BackgroundProcess run({binPath("ringmaster"), "run", "-np", "1", "--state-dir", dir_.file("state"),
                         "--store", dir_.file("runs.sqlite"), "--no-instrument", "--", "/bin/sleep", "600"});
  std::string socket, jobId, secret;
  ASSERT_TRUE(eventually(
      [&] {
        auto ranks = childrenOf(run.pid());
        if (ranks.empty()) return false;
        socket = environmentValue(ranks[0], "RINGMASTER_TELEMETRY_SOCKET");
        jobId = environmentValue(ranks[0], "RINGMASTER_JOB_ID");
        secret = environmentValue(ranks[0], "RINGMASTER_JOB_SECRET");
        return !socket.empty() && !secret.empty();
      },
      120s))
      << run.err();
  // Another user does not get through, even knowing the rank's secret.
  ProcessResult other = helloAs(true, socket, jobId, 0, secret);
  EXPECT_EQ(other.out.find("welcome"), std::string::npos) << other.out << other.err;
  EXPECT_NE(other.out.find("unreachable"), std::string::npos) << other.out << other.err;
  // The owner's process without the rank's secret, or as a rank the job does not have, is refused.
  ProcessResult wrong = helloAs(false, socket, jobId, 0, "not-the-secret");
  EXPECT_NE(wrong.out.find("refused: "), std::string::npos) << wrong.out << wrong.err;
  EXPECT_NE(wrong.out.find("each rank reports as itself only"), std::string::npos) << wrong.out;
  ProcessResult elsewhere = helloAs(false, socket, jobId, 3, secret);
  EXPECT_NE(elsewhere.out.find("is not part of job"), std::string::npos) << elsewhere.out << elsewhere.err;
  // With it, the rank is welcome: the refusals above could have gone the other way.
  ProcessResult own = helloAs(false, socket, jobId, 0, secret);
  EXPECT_NE(own.out.find("welcome"), std::string::npos) << own.out << own.err;
  run.signal(SIGINT);
  EXPECT_FALSE(run.wait(60s).timedOut);
}

TEST_F(Trust, ADaemonARankStartsEndsWithTheJob) {
  const std::string pidFile = dir_.file("daemon.pid");
  ProcessResult r = runProcess({binPath("ringmaster"), "run", "-np", "1", "--state-dir", dir_.file("state"),
                                "--store", dir_.file("runs.sqlite"), "--no-instrument", "--", "/bin/sh", "-c",
                                "setsid /bin/sh -c 'echo $$ > " + pidFile +
                                    "; exec sleep 600' </dev/null >/dev/null 2>&1 & "
                                    "while [ ! -s " +
                                    pidFile + " ]; do sleep 0.05; done"},
                               {}, 120s);
  ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
  const int daemon = std::stoi(readFile(pidFile));
  const bool ended = eventually([&] { return !processAlive(daemon); }, 10s);
  if (!ended) ::kill(daemon, SIGKILL);
  EXPECT_TRUE(ended) << "pid " << daemon << " (setsid, left running by the rank) outlived the job";
  // The run says so where its user reads it.
  EXPECT_NE((r.out + r.err).find("ended 1 process the job's ranks had started and left running"),
            std::string::npos)
      << r.out << r.err;
}

}  // namespace
