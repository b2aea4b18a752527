// SPDX-License-Identifier: GPL-3.0-or-later
// A real `ringmaster-agent` process on a loopback port for the console's tests: started in the constructor,
// ended (SIGTERM, then SIGKILL) in the destructor or by stop().
#pragma once

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "agent/agent_server.h"
#include "console/session/agent_client.h"
#include "tests/integration/agent_test_support.h"

namespace ringmaster::test {

class AgentProcess {
 public:
  // `tokenFile` empty: no token. Waits until the agent answers GetHostInfo; ready() says whether it did.
  AgentProcess(const std::string& stateDir, const std::string& tokenFile = {}) : port_(freePort()) {
    std::vector<std::string> argv = {binPath("ringmaster-agent"), "--listen",    "127.0.0.1", "--port",
                                     std::to_string(port_),       "--state-dir", stateDir,    "--worker",
                                     binPath("ringmaster-worker")};
    if (!tokenFile.empty()) argv.insert(argv.end(), {"--token-file", tokenFile});
    pid_ = ::fork();
    if (pid_ == 0) {
      std::vector<char*> args;
      for (auto& a : argv) args.push_back(a.data());
      args.push_back(nullptr);
      ::execv(args[0], args.data());
      ::_exit(127);
    }
    console::AgentClient client(
        {"127.0.0.1", port_, tokenFile.empty() ? "" : agent::readTokenFile(tokenFile), "", {}});
    ready_ = eventually(
        [&] {
          v1::HostInfo info;
          return client.hostInfo(info, std::chrono::seconds(1)).ok();
        },
        std::chrono::seconds(60));
  }
  ~AgentProcess() { stop(); }
  AgentProcess(const AgentProcess&) = delete;
  AgentProcess& operator=(const AgentProcess&) = delete;

  void stop() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGTERM);
    int status = 0;
    for (int i = 0; i < 500 && ::waitpid(pid_, &status, WNOHANG) == 0; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (::waitpid(pid_, &status, WNOHANG) == 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, &status, 0);
    }
    pid_ = -1;
  }

  int port() const { return port_; }
  bool ready() const { return ready_; }
  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }

 private:
  int port_;
  pid_t pid_ = -1;
  bool ready_ = false;
};

}  // namespace ringmaster::test
