// SPDX-License-Identifier: GPL-3.0-or-later
// How a host's agent listens and whom it trusts.
#pragma once

#include <string>
#include <vector>

namespace ringmaster::agent {

// The agent's default TCP port (documented in README.md).
inline constexpr int kDefaultAgentPort = 50551;
// The longest --keep-journals-days: a hundred years, well inside the range of the file clock.
inline constexpr int kMostJournalDays = 36500;

struct AgentOptions {
  std::string listen = "127.0.0.1";  // address to bind
  int port = kDefaultAgentPort;
  std::string tokenFile;   // required to serve consoles over TCP (without it: this user's socket only)
  std::string socketPath;  // this user's consoles' socket; default: <runtime dir>/agent-<port>.sock
  std::string tlsCert;
  std::string tlsKey;
  std::string stateDir;         // journals live here; default: XDG state dir
  std::string workerPath;       // ringmaster-worker to start; default: beside the agent
  double keepJournalsDays = 7;  // finished jobs' journals are removed after this many days; 0: never
  std::vector<std::string>
      allowedPrograms;      // users' programs ranks may run (--allow-program); none by default
  bool anyProgram = false;  // runs any program: the agent a user's own console embeds
  std::vector<std::string>
      allowedFolders;  // folders jobs may name for data and checkpoints (--allow-folder), besides stateDir
  bool anyFolder = false;  // jobs may name any folder: the agent a user's own console embeds
  // Loader and interpreter variables (launch_environment.h) launches may set for programs (--allow-env);
  // none by default, any with anyProgram.
  std::vector<std::string> allowedEnvironment;
  std::string pythonRoot;  // folder holding the ringmaster Python package; default: beside the agent
  // Where to write "port N" once listening (readable by the owner only), for a console that started this
  // agent with port 0 (a Slurm job step); empty: nowhere.
  std::string endpointFile;
};

bool isLoopbackAddress(const std::string& address);

// Empty when the options are safe to run with, else what to change ("--listen 0.0.0.0 needs --token-file
// ...").
std::string checkAgentOptions(const AgentOptions& options);

}  // namespace ringmaster::agent
