// SPDX-License-Identifier: GPL-3.0-or-later
#include "console/run_flags.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "agent/agent_server.h"
#include "common/error.h"
#include "common/host_list.h"
#include "common/job_flags.h"

namespace ringmaster::console {
namespace {

std::string readWholeFile(const std::string& path, const std::string& flag) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(flag + " " + path + ": cannot read the file");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

void addRunFlags(CLI::App& app, RunFlags& flags) {
  const std::string launch = "Launch";
  app.add_option("-n,--np,--ranks", flags.ranks, "Ranks in all")->capture_default_str()->group(launch);
  app.add_option("-H,--hosts", flags.hostList, "Hosts and their slots: host1:4,host2:4 (default: this machine)")
      ->group(launch);
  app.add_option("--hostfile", flags.hostfile, "File with one 'host slots=N' per line")
      ->check(CLI::ExistingFile)
      ->group(launch);
  app.add_option("--agent-port", flags.agentPort, "TCP port of the hosts' agents")
      ->capture_default_str()
      ->check(CLI::Range(1, 65535))
      ->group(launch);
  app.add_option("--token-file", flags.tokenFile, "File with the agents' bearer token")
      ->check(CLI::ExistingFile)
      ->group(launch);
  app.add_option("--tls-ca", flags.tlsCa, "CA certificate (PEM) of the agents' TLS certificates")
      ->check(CLI::ExistingFile)
      ->group(launch);
  app.add_option("--job-id", flags.jobId, "Job id (default: date, time and a random suffix)")->group(launch);
  app.add_option("--worker", flags.worker, "ringmaster-worker for local runs (default: beside this program)")
      ->group(launch);
  app.add_option("--state-dir", flags.stateDir, "Journal folder for local runs (default: XDG state dir)")
      ->group(launch);
  const std::string outputs = "Outputs";
  app.add_option("--summary-json", flags.summaryJson, "Write the run summary as JSON to FILE")
      ->type_name("FILE")
      ->group(outputs);
  app.add_option("--timeline", flags.timeline, "Write every rank's timeline as Chrome trace JSON to FILE")
      ->type_name("FILE")
      ->group(outputs);
  app.add_option("--store", flags.store, "Run history file (default: the user's, in the XDG data dir)")
      ->type_name("FILE")
      ->group(outputs);
  app.add_flag("--no-store", flags.noStore, "Do not keep this run in the history")->group(outputs);
  addJobFlags(app, flags.spec);
}

RunFlags parseRunFlags(std::vector<std::string> args) {
  RunFlags flags;
  CLI::App app{"The job to run: the flags of `ringmaster run`.", "ringmaster run"};
  addRunFlags(app, flags);
  // mpirun and horovodrun users type "-np 4"; CLI11 allows only one-letter short flags.
  for (auto& arg : args) {
    if (arg == "-np") arg = "--np";
  }
  // CLI11 takes the arguments last first.
  std::reverse(args.begin(), args.end());
  try {
    app.parse(args);
  } catch (const CLI::CallForHelp&) {
    throw InputError(app.help());
  } catch (const CLI::ParseError& e) {
    throw InputError(e.what());
  }
  finishRunFlags(flags);
  return flags;
}

void finishRunFlags(RunFlags& flags) {
  if (flags.ranks < 1) throw InputError("-np must be at least 1, got " + std::to_string(flags.ranks));
  if (!flags.hostList.empty() && !flags.hostfile.empty()) throw InputError("give -H or --hostfile, not both");
  flags.spec.set_world_size(static_cast<uint32_t>(flags.ranks));
  if (!flags.timeline.empty()) flags.spec.set_timeline(true);
}

LaunchPlan launchPlan(const RunFlags& flags) {
  LaunchPlan plan;
  if (!flags.hostList.empty()) plan.hosts = parseHostList(flags.hostList);
  if (!flags.hostfile.empty()) plan.hosts = readHostfile(flags.hostfile);
  plan.agentPort = flags.agentPort;
  if (!flags.tokenFile.empty()) plan.token = agent::readTokenFile(flags.tokenFile);
  if (!flags.tlsCa.empty()) plan.tlsCaPem = readWholeFile(flags.tlsCa, "--tls-ca");
  plan.jobId = flags.jobId;
  plan.workerPath = flags.worker;
  plan.stateDir = flags.stateDir;
  plan.spec = flags.spec;
  if (plan.spec.name().empty()) plan.spec.set_name(runName(flags));
  return plan;
}

std::string runName(const RunFlags& flags) {
  if (!flags.jobId.empty()) return flags.jobId;
  return std::string(modelName(flags.spec.model())) + " " + std::string(engineName(flags.spec.engine())) + " x" +
         std::to_string(flags.ranks);
}

}  // namespace ringmaster::console
