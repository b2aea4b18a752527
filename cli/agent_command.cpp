// SPDX-License-Identifier: GPL-3.0-or-later
#include "cli/agent_command.h"

#include <signal.h>

#include <iostream>
#include <memory>
#include <thread>

#include "agent/agent_server.h"
#include "common/error.h"

namespace ringmaster::cli {

void addAgentCommand(CLI::App& app, CommandResult& result) {
  auto* command =
      app.add_subcommand("agent", "Run this host's agent in the foreground (like ringmaster-agent)");
  auto options = std::make_shared<agent::AgentOptions>();
  command->add_option("--listen", options->listen, "Address to listen on")->capture_default_str();
  command->add_option("--port", options->port, "TCP port to listen on")->capture_default_str();
  command
      ->add_option("--token-file", options->tokenFile, "File holding the bearer token consoles must present")
      ->check(CLI::ExistingFile);
  command->add_option("--tls-cert", options->tlsCert, "PEM certificate for TLS")->check(CLI::ExistingFile);
  command->add_option("--tls-key", options->tlsKey, "PEM private key for TLS")->check(CLI::ExistingFile);
  command->add_option("--state-dir", options->stateDir,
                      "Directory for job journals (default: XDG state dir)");
  command->add_option("--worker", options->workerPath,
                      "ringmaster-worker to start (default: beside ringmaster)");
  command->callback([options, &result] {
    sigset_t stopSignals;
    sigemptyset(&stopSignals);
    sigaddset(&stopSignals, SIGINT);
    sigaddset(&stopSignals, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stopSignals, nullptr);
    try {
      agent::AgentServer server(*options);
      std::cerr << "ringmaster agent: listening on " << server.localAddress() << std::endl;
      std::thread signals([&] {
        int sig = 0;
        sigwait(&stopSignals, &sig);
        server.shutdown();
      });
      server.wait();
      signals.join();
      result.exitCode = 0;
    } catch (const InputError& e) {
      std::cerr << "ringmaster agent: " << e.what() << "\n";
      result.exitCode = 2;
    }
  });
}

}  // namespace ringmaster::cli
