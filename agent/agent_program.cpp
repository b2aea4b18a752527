// SPDX-License-Identifier: GPL-3.0-or-later
#include "agent/agent_program.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <memory>
#include <thread>

#include "agent/agent_server.h"
#include "agent/launch_environment.h"
#include "common/error.h"

namespace ringmaster::agent {
namespace {

// Written to a temporary name and renamed, so that a console polling for the file never reads half of it.
std::string writeEndpointFile(const std::string& path, int port) {
  const std::string partial = path + ".partial";
  const std::string text = "port " + std::to_string(port) + "\n";
  int fd = ::open(partial.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return std::string("cannot create ") + partial + ": " + std::strerror(errno);
  const bool written = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  const int savedErrno = errno;
  ::close(fd);
  if (!written || std::rename(partial.c_str(), path.c_str()) != 0) {
    ::unlink(partial.c_str());
    return "cannot write " + path + ": " + std::strerror(written ? errno : savedErrno);
  }
  return {};
}

}  // namespace

void addAgentFlags(CLI::App& app, AgentOptions& options) {
  app.add_option("--listen", options.listen, "Address to serve consoles on over TCP (with --token-file)")
      ->capture_default_str()
      ->type_name("ADDRESS");
  app.add_option("--port", options.port,
                 "TCP port to serve consoles on (with --token-file); it also names this user's socket, "
                 "agent-PORT.sock, which consoles of this user reach as 127.0.0.1:PORT without a token")
      ->capture_default_str();
  app.add_option("--token-file", options.tokenFile,
                 "File holding the bearer token consoles must present; without it the agent serves no TCP "
                 "port, only this user's own consoles over a Unix socket (checked by uid)")
      ->type_name("FILE");
  app.add_option(
         "--socket", options.socketPath,
         "Unix socket for this user's consoles (default: $XDG_RUNTIME_DIR/ringmaster/agent-PORT.sock, "
         "else /tmp/ringmaster-UID/agent-PORT.sock)")
      ->type_name("FILE");
  app.add_option("--tls-cert", options.tlsCert, "PEM certificate for TLS (with --tls-key)")
      ->type_name("FILE");
  app.add_option("--tls-key", options.tlsKey, "PEM private key for TLS (with --tls-cert)")->type_name("FILE");
  app.add_option("--state-dir", options.stateDir, "Directory for job journals (default: XDG state dir)")
      ->type_name("DIR");
  app.add_option("--keep-journals-days", options.keepJournalsDays,
                 "Remove finished jobs' journals older than this many days (0: keep them all)")
      ->capture_default_str();
  app.add_option(
         "--allow-program", options.allowedPrograms,
         "A program users' jobs may run besides ringmaster-worker, such as /usr/bin/python3 (repeatable; "
         "compared by resolved path)")
      ->type_name("FILE")
      ->allow_extra_args(false);
  app.add_option("--allow-folder", options.allowedFolders,
                 "A folder users' jobs may read data from and write checkpoints to, with everything under it "
                 "(repeatable; the agent's state folder is always allowed)")
      ->type_name("DIR")
      ->allow_extra_args(false);
  std::string guarded;
  for (const auto& name : guardedVariables()) guarded += (guarded.empty() ? "" : " ") + name;
  app.add_option("--allow-env", options.allowedEnvironment,
                 "A variable of the dynamic loader's or an interpreter's that launches may set for users' "
                 "programs (repeatable; by default they may set none of " +
                     guarded + ")")
      ->type_name("NAME")
      ->allow_extra_args(false);
  app.add_option("--endpoint-file", options.endpointFile,
                 "Write 'port N' to FILE once listening (for --port 0; only the owner may read it)")
      ->type_name("FILE");
  app.add_option("--worker", options.workerPath, "ringmaster-worker to start (default: beside this program)")
      ->type_name("FILE");
}

int runAgentInForeground(const AgentOptions& options, const std::string& program) {
  // The server's threads inherit this mask, so only our sigwait thread takes SIGINT and SIGTERM and shutdown
  // runs outside a signal handler. The ranks get a clean signal mask when they start.
  sigset_t stopSignals;
  sigemptyset(&stopSignals);
  sigaddset(&stopSignals, SIGINT);
  sigaddset(&stopSignals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stopSignals, nullptr);
  signal(SIGPIPE, SIG_IGN);
  signal(SIGXFSZ,
         SIG_IGN);  // a file-size limit on the journal is a write error to report, not the agent's death

  // Port 0 picks a free port for programs embedding the agent and for a Slurm job step, which writes it to
  // --endpoint-file; a person starting one names the port.
  if (auto problem = checkAgentOptions(options); !problem.empty()) {
    std::cerr << program << ": " << problem << "\n";
    return 2;
  }
  std::unique_ptr<AgentServer> server;
  try {
    server = std::make_unique<AgentServer>(options);
  } catch (const InputError& e) {
    std::cerr << program << ": " << e.what() << "\n";
    return 2;
  }
  if (!options.endpointFile.empty()) {
    if (auto problem = writeEndpointFile(options.endpointFile, server->port()); !problem.empty()) {
      std::cerr << program << ": --endpoint-file " << problem << "; give a folder this user can write\n";
      server->shutdown();
      server->wait();
      return 2;
    }
  }
  std::cerr << program << ": serving consoles on " << server->localAddress() << std::endl;
  if (!server->servesTcp()) {
    std::cerr << program << ": no TCP port: only uid " << ::geteuid()
              << " reaches this agent (as 127.0.0.1:" << server->port()
              << "); give --token-file to serve consoles of other users or hosts" << std::endl;
  }
  std::thread signals([&] {
    int sig = 0;
    sigwait(&stopSignals, &sig);
    std::cerr << program << ": stopping jobs and shutting down" << std::endl;
    server->shutdown();
  });
  server->wait();
  signals.join();
  return 0;
}

}  // namespace ringmaster::agent
