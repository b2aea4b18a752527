// SPDX-License-Identifier: GPL-3.0-or-later
// ringmaster-agent: starts ranks on this host for consoles and relays their telemetry.
#include <signal.h>

#include <CLI/CLI.hpp>
#include <iostream>
#include <thread>

#include "agent/agent_options.h"
#include "agent/agent_server.h"
#include "common/error.h"
#include "common/malloc_policy.h"
#include "ringmaster/version.h"

int main(int argc, char** argv) {
  using namespace ringmaster::agent;
  ringmaster::keepLargeAllocations(size_t{256} << 20);  // telemetry message buffers stay in the process
  AgentOptions options;
  CLI::App app{"Ringmaster host agent: launches ringmaster-worker ranks for consoles and streams their telemetry.\n"
               "Listens on loopback unless given --token-file.",
               "ringmaster-agent"};
  app.set_version_flag("--version", std::string("ringmaster-agent ") + RINGMASTER_VERSION);
  app.add_option("--listen", options.listen, "Address to listen on")->capture_default_str();
  app.add_option("--port", options.port, "TCP port to listen on")->capture_default_str();
  app.add_option("--token-file", options.tokenFile, "File holding the bearer token consoles must present")
      ->check(CLI::ExistingFile);
  app.add_option("--tls-cert", options.tlsCert, "PEM certificate for TLS")->check(CLI::ExistingFile);
  app.add_option("--tls-key", options.tlsKey, "PEM private key for TLS")->check(CLI::ExistingFile);
  app.add_option("--state-dir", options.stateDir, "Directory for job journals (default: XDG state dir)");
  app.add_option("--keep-journals-days", options.keepJournalsDays,
                 "Remove finished jobs' journals older than this many days (0: keep them all)")
      ->capture_default_str();
  app.add_option("--worker", options.workerPath, "ringmaster-worker to start (default: beside this agent)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }
  if (auto problem = checkAgentOptions(options); !problem.empty()) {
    std::cerr << "ringmaster-agent: " << problem << "\n";
    return 2;
  }

  // SIGINT/SIGTERM are taken by a thread of ours (sigwait) so that shutdown runs outside a signal handler.
  // The ranks get a clean signal mask when they start.
  sigset_t stopSignals;
  sigemptyset(&stopSignals);
  sigaddset(&stopSignals, SIGINT);
  sigaddset(&stopSignals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stopSignals, nullptr);
  signal(SIGPIPE, SIG_IGN);

  std::unique_ptr<AgentServer> server;
  try {
    server = std::make_unique<AgentServer>(options);
  } catch (const ringmaster::InputError& e) {
    std::cerr << "ringmaster-agent: " << e.what() << "\n";
    return 2;
  }
  std::cerr << "ringmaster-agent: listening on " << server->localAddress()
            << (options.tlsCert.empty() ? "" : " (TLS)") << (options.tokenFile.empty() ? "" : " (token required)")
            << std::endl;
  std::thread signals([&] {
    int sig = 0;
    sigwait(&stopSignals, &sig);
    std::cerr << "ringmaster-agent: stopping jobs and shutting down" << std::endl;
    server->shutdown();
  });
  server->wait();
  signals.join();
  return 0;
}
