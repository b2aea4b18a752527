// SPDX-License-Identifier: GPL-3.0-or-later
// Two hosts for real: two network namespaces joined by a veth pair, an agent in each, and a 2-host x 2-rank
// job launched with `ringmaster run -H` whose Gloo traffic crosses the veth. Skipped, visibly, where
// namespaces cannot be made (not root, no iproute2).
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <QByteArray>
#include <filesystem>
#include <set>

#include "common/json.h"
#include "tests/support/agent_test_support.h"

using namespace ringmaster::test;
using namespace std::chrono_literals;

namespace {

const std::string kIp = "/usr/sbin/ip";

ProcessResult ip(std::vector<std::string> args) {
  args.insert(args.begin(), kIp);
  return runProcess(args, {}, 30s);
}

// Two namespaces and a veth pair between them, removed again on destruction. Addresses are 10.77.N.1 and
// 10.77.N.2, only ever inside these namespaces.
class TwoHosts {
 public:
  TwoHosts() {
    int n = static_cast<int>(::getpid() % 250) + 1;
    std::string id = std::to_string(::getpid() % 100000);
    names_ = {"rmA" + id, "rmB" + id};
    links_ = {"rva" + id, "rvb" + id};
    addresses_ = {"10.77." + std::to_string(n) + ".1", "10.77." + std::to_string(n) + ".2"};
  }
  ~TwoHosts() {
    for (const auto& name : names_) ip({"netns", "del", name});
  }

  // Empty when the namespaces are up, else why they cannot be made.
  std::string create() {
    if (::geteuid() != 0) return "network namespaces need root";
    if (::access(kIp.c_str(), X_OK) != 0) return kIp + " is missing (install iproute2)";
    std::vector<std::vector<std::string>> steps = {
        {"netns", "add", names_[0]},
        {"netns", "add", names_[1]},
        {"link", "add", links_[0], "type", "veth", "peer", "name", links_[1]},
    };
    for (int i = 0; i < 2; ++i) {
      steps.push_back({"link", "set", links_[i], "netns", names_[i]});
      steps.push_back({"-n", names_[i], "addr", "add", addresses_[i] + "/24", "dev", links_[i]});
      steps.push_back({"-n", names_[i], "link", "set", links_[i], "up"});
      steps.push_back({"-n", names_[i], "link", "set", "lo", "up"});
    }
    for (const auto& step : steps) {
      auto result = ip(step);
      if (result.exitCode != 0) {
        std::string command = "ip";
        for (const auto& s : step) command += " " + s;
        return "'" + command + "' failed: " + result.err;
      }
    }
    return {};
  }

  const std::string& name(int i) const { return names_[i]; }
  const std::string& link(int i) const { return links_[i]; }
  const std::string& address(int i) const { return addresses_[i]; }

  uint64_t receivedBytes(int i) const {
    auto result = runProcess(
        {kIp, "netns", "exec", names_[i], "cat", "/sys/class/net/" + links_[i] + "/statistics/rx_bytes"}, {},
        10s);
    return result.exitCode == 0 ? std::stoull(result.out) : 0;
  }

 private:
  std::vector<std::string> names_, links_, addresses_;
};

// An agent started inside a namespace, ended on destruction; its output is kept beside the test's files.
class NamespacedAgent {
 public:
  NamespacedAgent(const TwoHosts& hosts, int i, int port, const std::string& tokenFile,
                  const std::string& stateDir)
      : agent_({kIp, "netns", "exec", hosts.name(i), binPath("ringmaster-agent"), "--listen",
                hosts.address(i), "--port", std::to_string(port), "--token-file", tokenFile, "--state-dir",
                stateDir, "--worker", binPath("ringmaster-worker")},
               // The ranks inherit it: Gloo uses the veth.
               {{"GLOO_SOCKET_IFNAME", hosts.link(i)}}, stateDir + "-agent") {}
  // Whether the agent said it serves consoles within `timeout`; what it printed is `log()`.
  bool serving(std::chrono::milliseconds timeout) {
    return eventually(
               [&] {
                 return agent_.err().find("serving consoles on") != std::string::npos || !agent_.running();
               },
               timeout) &&
           agent_.running();
  }
  std::string log() const { return agent_.err(); }
  // The host is gone: its agent dies at once, and its ranks with it (they die with their parent).
  void killNow() {
    agent_.signal(SIGKILL);
    agent_.wait(10s);
  }

 private:
  BackgroundProcess agent_;
};

// `ringmaster run` from host A against both hosts' agents (-H `hostList`, their port and token) with `flags`.
ProcessResult runFromHostA(const TwoHosts& hosts, const std::string& hostList, int port,
                           const std::string& token, const std::vector<std::string>& flags,
                           std::chrono::seconds timeout) {
  std::vector<std::string> argv = {
      kIp,       "netns",  "exec",         hosts.name(0),        binPath("ringmaster"), "run",
      "-H",      hostList, "--agent-port", std::to_string(port), "--token-file",        token,
      "--model", "mlp",    "--data",       "synthetic",          "--batch-size",        "16"};
  argv.insert(argv.end(), flags.begin(), flags.end());
  return runProcess(argv, {}, timeout);
}

TEST(LauncherNetns, TwoHostsTwoRanksEachOverAVethPair) {
  TwoHosts hosts;
  if (std::string why = hosts.create(); !why.empty())
    GTEST_SKIP() << "cannot make network namespaces: " << why;
  TempDir dir("netns");
  writeFile(dir.file("token"), "netns-test-token\n");
  const int port = 50551;
  NamespacedAgent a(hosts, 0, port, dir.file("token"), dir.file("state-a"));
  NamespacedAgent b(hosts, 1, port, dir.file("token"), dir.file("state-b"));
  ASSERT_TRUE(a.serving(30s)) << a.log();
  ASSERT_TRUE(b.serving(30s)) << b.log();
  uint64_t before = hosts.receivedBytes(1);

  // The console runs on host A; rank 0 (and its TCPStore) is there too.
  std::string summary = dir.file("summary.json");
  std::string hostList = hosts.address(0) + ":2," + hosts.address(1) + ":2";
  const ProcessResult result = runFromHostA(hosts, hostList, port, dir.file("token"),
                                            {"-np", "4", "--steps", "10", "--summary-json", summary}, 300s);
  ASSERT_EQ(result.exitCode, 0) << result.err;

  auto json = ringmaster::parseJson(readFile(summary));
  EXPECT_STREQ(json["status"].GetString(), "finished");
  std::set<std::string> rankHosts;
  for (const auto& r : json["ranks"].GetArray()) rankHosts.insert(r["host"].GetString());
  EXPECT_EQ(rankHosts, (std::set<std::string>{hosts.address(0), hosts.address(1)}));
  EXPECT_TRUE(json["params_identical"].GetBool());
  // Ten all-reduces of the MLP's gradients went over the wire, not just control messages.
  EXPECT_GT(hosts.receivedBytes(1) - before, 1'000'000u);
}

// A host lost mid-run with --min-ranks: the restart leaves it out and the job finishes on the host that
// remains, with the world size it has now, resumed from the checkpoint rank 0 wrote on its own host.
TEST(LauncherNetns, AHostLostWithMinRanksFinishesOnTheHostThatRemains) {
  TwoHosts hosts;
  if (std::string why = hosts.create(); !why.empty())
    GTEST_SKIP() << "cannot make network namespaces: " << why;
  TempDir dir("netns-elastic");
  writeFile(dir.file("token"), "netns-test-token\n");
  const int port = 50552;
  NamespacedAgent a(hosts, 0, port, dir.file("token"), dir.file("state-a"));
  NamespacedAgent b(hosts, 1, port, dir.file("token"), dir.file("state-b"));
  ASSERT_TRUE(a.serving(30s)) << a.log();
  ASSERT_TRUE(b.serving(30s)) << b.log();
  const std::string jobId = "elastic-" + std::to_string(::getpid());
  const std::string summary = dir.file("summary.json");
  const std::string hostList = hosts.address(0) + ":1," + hosts.address(1) + ":1";
  ProcessResult result;
  std::thread run([&] {
    result = runFromHostA(
        hosts, hostList, port, dir.file("token"),
        {"-np", "2", "--steps", "600", "--inject-straggler", "0:20", "--max-restarts", "1", "--min-ranks",
         "1", "--checkpoint-every", "50", "--job-id", jobId, "--no-store", "--summary-json", summary},
        400s);
  });
  // Host B trains (its journal grows), then it is gone.
  const std::string journal = dir.file("state-b") + "/jobs/" + jobId + "/journal";
  const bool trained = eventually(
      [&] {
        std::error_code error;
        return std::filesystem::file_size(journal, error) > 20'000 && !error;
      },
      120s);
  b.killNow();
  run.join();
  ASSERT_TRUE(trained) << "host B never trained: " << result.err;
  ASSERT_EQ(result.exitCode, 0) << result.out << result.err;
  EXPECT_NE(result.out.find("restart 1 of 1: "), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("starting every rank again on 1 ranks (host " + hosts.address(1) + " gone)"),
            std::string::npos)
      << result.out;
  auto json = ringmaster::parseJson(readFile(summary));
  EXPECT_STREQ(json["status"].GetString(), "finished");
  bool rank0Finished = false;
  for (const auto& r : json["ranks"].GetArray()) {
    if (r["rank"].GetInt() == 0 && r["host"].GetString() == hosts.address(0)) rank0Finished = true;
  }
  EXPECT_TRUE(rank0Finished) << readFile(summary);
  // The restart went on from rank 0's checkpoint on host A, not from step 0.
  EXPECT_TRUE(std::filesystem::exists(dir.file("state-a") + "/jobs/" + jobId + "/checkpoints/checkpoint.pt"));
}

}  // namespace
