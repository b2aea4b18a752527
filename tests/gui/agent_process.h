// SPDX-License-Identifier: GPL-3.0-or-later
// A real `ringmaster-agent` process on a loopback port for the console's tests: started in the constructor,
// ended (SIGTERM, then SIGKILL) by stop() or its destructor.
#pragma once

#include <signal.h>

#include <chrono>
#include <string>
#include <vector>

#include "agent/agent_server.h"
#include "console/session/agent_client.h"
#include "tests/support/agent_test_support.h"

namespace ringmaster::test {

class AgentProcess {
 public:
  // `tokenFile` empty: no token. Waits until the agent answers GetHostInfo; ready() says whether it did.
  AgentProcess(const std::string& stateDir, const std::string& tokenFile = {})
      : port_(freePort()), agent_(arguments(port_, stateDir, tokenFile)) {
    console::AgentClient client(
        {"127.0.0.1", port_, tokenFile.empty() ? "" : agent::readTokenFile(tokenFile), "", {}});
    ready_ = eventually(
        [&] {
          v1::HostInfo info;
          return client.hostInfo(info, std::chrono::seconds(1)).ok();
        },
        std::chrono::seconds(60));
  }

  // SIGTERM, then SIGKILL after 5 s.
  void stop() {
    if (!agent_.running()) return;
    agent_.signal(SIGTERM);
    if (agent_.wait(std::chrono::seconds(5)).timedOut) {
      agent_.signal(SIGKILL);
      agent_.wait(std::chrono::seconds(10));
    }
  }

  int port() const { return port_; }
  bool ready() const { return ready_; }
  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }

 private:
  static std::vector<std::string> arguments(int port, const std::string& stateDir,
                                            const std::string& tokenFile) {
    std::vector<std::string> argv = {binPath("ringmaster-agent"), "--listen",    "127.0.0.1", "--port",
                                     std::to_string(port),        "--state-dir", stateDir,    "--worker",
                                     binPath("ringmaster-worker")};
    if (!tokenFile.empty()) argv.insert(argv.end(), {"--token-file", tokenFile});
    return argv;
  }

  int port_;
  BackgroundProcess agent_;  // ended by its destructor when stop() was not called
  bool ready_ = false;
};

}  // namespace ringmaster::test
