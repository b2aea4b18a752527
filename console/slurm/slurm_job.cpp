// SPDX-License-Identifier: GPL-3.0-or-later
#include "console/slurm/slurm_job.h"

#include <signal.h>
#include <sys/stat.h>

#include <QStandardPaths>
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <sstream>
#include <thread>

#include "agent/agent_server.h"
#include "agent/child_process.h"
#include "agent/launch_environment.h"
#include "common/error.h"
#include "common/printable.h"
#include "common/shell_words.h"
#include "common/small_file.h"

namespace ringmaster::console {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

std::string trimmed(std::string text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
  size_t start = 0;
  while (start < text.size() && std::isspace(static_cast<unsigned char>(text[start]))) ++start;
  return text.substr(start);
}

std::string environment(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

// The last lines of a file (the job's output) for a message; empty when there is none.
std::string tailOf(const std::string& path, size_t lines = 10) {
  std::ifstream in(path);
  std::vector<std::string> kept;
  for (std::string line; std::getline(in, line);) {
    kept.push_back(printable(line));
    if (kept.size() > lines) kept.erase(kept.begin());
  }
  std::string text;
  for (const auto& l : kept) text += "\n  | " + l;
  return text.empty() ? "" : "\n" + path + " ends:" + text;
}

void writePrivateFile(const fs::path& path, const std::string& text,
                      fs::perms mode = fs::perms::owner_read | fs::perms::owner_write) {
  const fs::path partial = path.string() + ".partial";
  {
    std::ofstream out(partial, std::ios::binary | std::ios::trunc);
    fs::permissions(partial, mode);
    out << text;
    if (!out.flush()) throw InputError("cannot write " + partial.string() + ": choose another --slurm-dir");
  }
  fs::rename(partial, path);
}

std::string newToken() {
  std::random_device random;
  std::string token;
  const char* hex = "0123456789abcdef";
  for (int i = 0; i < 64; ++i) token += hex[random() % 16];
  return token;
}

// One agent per node as a job step: each picks a port, holds the job's token, writes its endpoint and keeps
// its journals in the job's folder under the node's name. `nodes` is a number or a shell expansion.
std::vector<std::string> agentStep(const std::string& nodes, const std::string& agentPath,
                                   const std::string& folder, const v1::JobSpec& spec) {
  std::vector<std::string> words = {"srun",
                                    "--overlap",
                                    "--nodes=" + nodes,
                                    "--ntasks=" + nodes,
                                    "--ntasks-per-node=1",
                                    "--kill-on-bad-exit=0",
                                    "/bin/sh",
                                    "-c",
                                    "agent=$0 folder=$1; shift; exec \"$agent\" --listen 0.0.0.0 --port 0 "
                                    "--token-file \"$folder/token\" --endpoint-file "
                                    "\"$folder/agents/$SLURMD_NODENAME\" --state-dir "
                                    "\"$folder/nodes/$SLURMD_NODENAME\" --keep-journals-days 0 \"$@\"",
                                    agentPath,
                                    folder};
  // The agents are the user's own, in the user's own job: they run the program the job names, in the folders
  // it names.
  if (spec.has_program() && spec.program().argv_size() > 0) {
    words.insert(words.end(), {"--allow-program", spec.program().argv(0)});
    if (!spec.program().working_dir().empty())
      words.insert(words.end(), {"--allow-folder", spec.program().working_dir()});
    for (const auto& entry : spec.program().environment()) {
      const std::string name = entry.substr(0, entry.find('='));
      if (agent::isGuardedVariable(name)) words.insert(words.end(), {"--allow-env", name});
    }
  }
  for (const std::string* dir : {&spec.data_dir(), &spec.checkpoint_dir()}) {
    if (!dir->empty()) words.insert(words.end(), {"--allow-folder", *dir});
  }
  if (!spec.model_path().empty()) {
    words.insert(words.end(), {"--allow-folder", fs::path(spec.model_path()).parent_path().string()});
  }
  return words;
}

std::string joinedArguments(const std::vector<std::string>& args) {
  std::string text;
  for (const auto& a : args) text += a + '\0';
  return text;
}

std::vector<std::string> splitArguments(const std::string& text) {
  std::vector<std::string> args;
  std::string word;
  for (char c : text) {
    if (c == '\0') {
      args.push_back(word);
      word.clear();
    } else {
      word += c;
    }
  }
  return args;
}

}  // namespace

std::string slurmCommand(const std::string& program, const std::vector<std::string>& args,
                         std::chrono::milliseconds timeout) {
  const QString path = QStandardPaths::findExecutable(QString::fromStdString(program));
  if (path.isEmpty()) {
    throw SlurmError(program +
                     " is not on PATH: run this on a machine with Slurm's client commands (the "
                     "slurm-client package), or add their folder to PATH");
  }
  std::vector<std::string> argv = {path.toStdString()};
  argv.insert(argv.end(), args.begin(), args.end());
  agent::CommandOutput result;
  try {
    result = agent::runCommand(argv, timeout);
  } catch (const std::runtime_error& e) {
    throw SlurmError(shellLine(std::vector<std::string>{program}) + ": " + e.what() +
                     "; is slurmctld reachable (scontrol ping)?");
  }
  if (result.exitCode != 0 || result.signal != 0) {
    std::vector<std::string> line = {program};
    line.insert(line.end(), args.begin(), args.end());
    std::string said = printable(trimmed(result.err.empty() ? result.out : result.err));
    throw SlurmError(shellLine(line) + " failed" + (said.empty() ? "" : ": " + said));
  }
  return result.out;
}

std::vector<std::string> expandNodeList(const std::string& list) {
  std::vector<std::string> nodes;
  std::istringstream lines(slurmCommand("scontrol", {"show", "hostnames", list}));
  for (std::string line; std::getline(lines, line);) {
    if (!trimmed(line).empty()) nodes.push_back(trimmed(line));
  }
  if (nodes.empty()) throw SlurmError("scontrol show hostnames " + printable(list) + " named no node");
  return nodes;
}

std::map<std::string, std::string> nodeAddresses(const std::vector<std::string>& nodes) {
  std::string list;
  for (const auto& n : nodes) list += (list.empty() ? "" : ",") + n;
  std::map<std::string, std::string> addresses;
  std::istringstream lines(slurmCommand("scontrol", {"show", "node", "-o", list}));
  for (std::string line; std::getline(lines, line);) {
    auto fields = parseSlurmRecord(line);
    if (fields.count("NodeName") == 0) continue;
    const std::string& address = fields.count("NodeAddr") ? fields["NodeAddr"] : fields["NodeName"];
    addresses[fields["NodeName"]] = address;
  }
  for (const auto& n : nodes) {
    if (addresses.count(n) == 0) {
      throw SlurmError("scontrol show node " + printable(n) + " did not give the node's address (NodeAddr)");
    }
  }
  return addresses;
}

SlurmJobState slurmJobState(const std::string& jobId) {
  try {
    const std::string line = trimmed(slurmCommand("squeue", {"-h", "-j", jobId, "-o", "%T|%r"}));
    const size_t bar = line.find('|');
    if (!line.empty() && bar != std::string::npos && line.find('\n') == std::string::npos) {
      return {line.substr(0, bar), line.substr(bar + 1)};
    }
  } catch (const SlurmError&) {
    // squeue refuses a job id that left the queue; scontrol remembers it a while longer (MinJobAge).
  }
  try {
    auto fields = parseSlurmRecord(slurmCommand("scontrol", {"show", "job", "-o", jobId}));
    return {fields["JobState"], fields["Reason"]};
  } catch (const SlurmError&) {
    return {};
  }
}

bool insideSlurmAllocation(const RunFlags& flags) {
  return !flags.slurm.submit && flags.hostList.empty() && flags.hostfile.empty() &&
         !environment("SLURM_JOB_ID").empty();
}

SlurmJob::~SlurmJob() {
  if (step_) cancel();
}

std::string slurmJobFolder(const RunFlags& flags, const std::string& jobId) {
  const fs::path root = flags.slurm.folder.empty() ? defaultSlurmFolder() : flags.slurm.folder;
  return fs::absolute(root / jobId).lexically_normal().string();
}

std::vector<std::string> sbatchCommand(const RunFlags& flags, const std::string& folder) {
  std::vector<std::string> line = {"sbatch"};
  for (std::string& word :
       sbatchArguments(flags.slurm, flags.ranks, "ringmaster", folder + "/slurm-%j.out", folder + "/job.sh"))
    line.push_back(std::move(word));
  return line;
}

std::vector<SlurmPartition> slurmPartitions(std::chrono::milliseconds timeout) {
  return parseSinfo(slurmCommand("sinfo", {"-h", "-o", kSinfoFormat}, timeout));
}

void SlurmJob::writeFolder(const std::string& agentPath, bool batch) {
  if (flags_.jobId.empty()) flags_.jobId = newJobId();
  const fs::path root = flags_.slurm.folder.empty() ? defaultSlurmFolder() : flags_.slurm.folder;
  std::error_code ec;
  fs::create_directories(root, ec);
  const fs::path folder = slurmJobFolder(flags_, flags_.jobId);
  if (!fs::create_directory(folder, ec)) {
    throw InputError("--slurm-dir " + root.string() + ": cannot create the job's folder " + folder.string() +
                     (ec ? ": " + ec.message() : ": it exists") +
                     "; name a folder the cluster's nodes share that you can write");
  }
  fs::permissions(folder, fs::perms::owner_all, ec);
  fs::create_directory(folder / "agents");
  fs::create_directory(folder / "nodes");
  folder_ = folder.string();
  writePrivateFile(folder / "token", newToken() + "\n");
  writePrivateFile(folder / "run-arguments", joinedArguments(runArguments(flags_)));
  if (batch) {
    std::string script = "#!/bin/sh\n# Ringmaster job " + flags_.jobId +
                         ": one ringmaster-agent per node as a job step; the console launches the ranks "
                         "through them.\nfolder=" +
                         shellQuoted(folder_) +
                         "\nprintf '%s\\n%s\\n' \"$SLURM_JOB_NODELIST\" \"$SLURM_TASKS_PER_NODE\" > "
                         "\"$folder/allocation.partial\"\nmv \"$folder/allocation.partial\" "
                         "\"$folder/allocation\"\n";
    // The node count is the allocation's, known only when the script runs; shellLine quotes every word, so
    // the variable replaces a marker after quoting.
    const std::string placeholder = "__NODES__";
    auto step = agentStep(placeholder, agentPath, folder_, flags_.spec);
    std::string line = "exec " + shellLine(step) + "\n";
    for (size_t at; (at = line.find(placeholder)) != std::string::npos;)
      line.replace(at, placeholder.size(), "\"$SLURM_JOB_NUM_NODES\"");
    writePrivateFile(folder / "job.sh", script + line, fs::perms::owner_all);
  }
}

std::unique_ptr<SlurmJob> SlurmJob::submit(const RunFlags& flags, const std::string& agentPath) {
  std::unique_ptr<SlurmJob> job(new SlurmJob);
  job->flags_ = flags;
  job->writeFolder(agentPath, true);
  const std::vector<std::string> line = sbatchCommand(flags, job->folder_);
  job->command_ = shellLine(line);
  const std::string answer = trimmed(slurmCommand("sbatch", {line.begin() + 1, line.end()}));
  // --parsable: "ID" or "ID;cluster".
  const std::string id = answer.substr(0, answer.find(';'));
  if (id.empty() || id.size() > 20 ||
      !std::all_of(id.begin(), id.end(), [](unsigned char c) { return std::isdigit(c); })) {
    throw SlurmError("sbatch answered \"" + printable(answer) + "\" instead of a job id; see " +
                     job->folder_);
  }
  job->slurmJobId_ = id;
  job->submitted_ = true;
  writePrivateFile(fs::path(job->folder_) / "slurm-job", id + "\n");
  std::error_code ec;
  fs::create_directory_symlink(job->flags_.jobId, fs::path(job->folder_).parent_path() / id, ec);
  return job;
}

std::unique_ptr<SlurmJob> SlurmJob::inAllocation(const RunFlags& flags, const std::string& agentPath) {
  std::unique_ptr<SlurmJob> job(new SlurmJob);
  job->flags_ = flags;
  job->slurmJobId_ = environment("SLURM_JOB_ID");
  job->writeFolder(agentPath, false);
  const std::string nodeList = environment("SLURM_JOB_NODELIST");
  const std::string tasks = environment("SLURM_TASKS_PER_NODE");
  if (nodeList.empty() || tasks.empty()) {
    throw SlurmError(
        "SLURM_JOB_ID is set but SLURM_JOB_NODELIST or SLURM_TASKS_PER_NODE is not: run inside "
        "salloc or sbatch, or unset SLURM_JOB_ID to run on this machine");
  }
  writePrivateFile(fs::path(job->folder_) / "allocation", nodeList + "\n" + tasks + "\n");
  const size_t nodes = expandNodeList(nodeList).size();
  auto step = agentStep(std::to_string(nodes), agentPath, job->folder_, flags.spec);
  const QString srun = QStandardPaths::findExecutable("srun");
  if (srun.isEmpty()) throw SlurmError("srun is not on PATH: run inside salloc on a machine with Slurm");
  step[0] = srun.toStdString();
  job->command_ = shellLine(step);
  // The step's output goes to a file: nobody reads a pipe from it, and it must never block on one.
  std::vector<std::string> argv = {"/bin/sh", "-c", "exec \"$@\" >> \"$0\" 2>&1",
                                   job->folder_ + "/agents.log"};
  argv.insert(argv.end(), step.begin(), step.end());
  try {
    job->step_ = std::make_unique<agent::ChildProcess>(
        agent::SpawnOptions{argv, agent::environmentWith({}), true, ""});
  } catch (const std::runtime_error& e) {
    throw SlurmError(std::string("cannot start the agents' step: ") + e.what());
  }
  return job;
}

std::unique_ptr<SlurmJob> SlurmJob::attach(const std::string& slurmJobId, const std::string& folder) {
  const fs::path root = folder.empty() ? defaultSlurmFolder() : folder;
  const fs::path link = root / slurmJobId;
  std::error_code ec;
  if (slurmJobId.empty() || slurmJobId.find('/') != std::string::npos || !fs::is_directory(link, ec)) {
    throw SlurmError("no Ringmaster job folder for Slurm job " + printable(slurmJobId) + " in " +
                     root.string() + ": give the id sbatch printed (ringmaster run --slurm says it), and " +
                     "--slurm-dir when the job was submitted with one");
  }
  std::unique_ptr<SlurmJob> job(new SlurmJob);
  job->folder_ = fs::canonical(link, ec).string();
  job->slurmJobId_ = slurmJobId;
  job->submitted_ = true;
  const auto args = splitArguments(
      readSmallFile(job->folder_ + "/run-arguments", "the job's run arguments (written at submission)"));
  try {
    job->flags_ = parseRunFlags(args);
  } catch (const InputError& e) {
    throw SlurmError(job->folder_ + "/run-arguments cannot be read back: " + e.what());
  }
  job->flags_.slurm.folder = root.string();
  return job;
}

SlurmJobState SlurmJob::state() const {
  return slurmJobState(slurmJobId_);
}

void SlurmJob::cancel() {
  if (step_) {
    step_->signalGroup(SIGTERM);
    for (int i = 0; i < 200 && !step_->poll(); ++i) std::this_thread::sleep_for(50ms);
    step_.reset();  // SIGKILL to what is left
    return;
  }
  if (submitted_) slurmCommand("scancel", {slurmJobId_});
}

void SlurmJob::release() {
  if (step_) {
    cancel();
    return;
  }
  // The batch script's only step is the agents' (step 0): when they end, the script and the job complete.
  if (submitted_) slurmCommand("scancel", {"--signal=TERM", slurmJobId_ + ".0"});
}

std::map<std::string, std::string> SlurmJob::facts() const {
  return {{"slurm job", slurmJobId_}};
}

LaunchPlan SlurmJob::waitForAgents(const std::function<void(const std::string&)>& say,
                                   const std::function<bool()>& keepWaiting,
                                   std::chrono::seconds agentLimit) {
  const fs::path folder = folder_;
  std::string lastSaid;
  std::optional<std::chrono::steady_clock::time_point> runningSince;
  if (step_) runningSince = std::chrono::steady_clock::now();
  const std::string output = folder_ + "/slurm-" + slurmJobId_ + ".out";
  while (true) {
    if (!keepWaiting()) throw SlurmError("gave up waiting for Slurm job " + slurmJobId_);
    if (submitted_) {
      const SlurmJobState now = state();
      const std::string said =
          now.state.empty()
              ? "not known to Slurm"
              : now.state + (now.reason.empty() || now.reason == "None" ? "" : " (" + now.reason + ")");
      if (said != lastSaid) say("Slurm job " + slurmJobId_ + ": " + said);
      lastSaid = said;
      if (slurmJobEnded(now.state)) {
        throw SlurmError("Slurm job " + slurmJobId_ + " ended before its agents started: " + said +
                         tailOf(output));
      }
      if (now.state == "RUNNING" && !runningSince) runningSince = std::chrono::steady_clock::now();
    } else if (step_ && step_->poll()) {
      throw SlurmError("the agents' step ended before every agent started (" + command_ + ")" +
                       tailOf(folder_ + "/agents.log"));
    }
    if (runningSince && fs::exists(folder / "allocation")) {
      std::istringstream allocation(readSmallFile((folder / "allocation").string(), "the job's allocation"));
      std::string nodeList, tasksText;
      std::getline(allocation, nodeList);
      std::getline(allocation, tasksText);
      const std::vector<std::string> nodes = expandNodeList(nodeList);
      const std::vector<int> tasks = parseTasksPerNode(tasksText);
      if (tasks.size() != nodes.size()) {
        throw SlurmError("the allocation names " + std::to_string(nodes.size()) + " nodes (" +
                         printable(nodeList) + ") but tasks for " + std::to_string(tasks.size()) + " (" +
                         printable(tasksText) + ")");
      }
      size_t ready = 0;
      for (const auto& node : nodes) ready += fs::exists(folder / "agents" / node) ? 1 : 0;
      if (ready == nodes.size()) {
        const auto addresses = nodeAddresses(nodes);
        const std::string token = agent::readTokenFile(folder_ + "/token");
        LaunchPlan plan = launchPlan(flags_);
        plan.jobId = flags_.jobId;
        plan.hosts.clear();
        for (size_t i = 0; i < nodes.size(); ++i) {
          const std::string text =
              readSmallFile((folder / "agents" / nodes[i]).string(), "an agent's endpoint");
          int port = 0;
          if (std::sscanf(text.c_str(), "port %d", &port) != 1 || port < 1 || port > 65535) {
            throw SlurmError("the agent on node " + nodes[i] + " wrote \"" + printable(trimmed(text)) +
                             "\" instead of its port into " + (folder / "agents" / nodes[i]).string());
          }
          plan.hosts.push_back({nodes[i], tasks[i]});
          plan.agents[nodes[i]] = AgentEndpoint{addresses.at(nodes[i]), port, token, "", {}};
        }
        plan.masterAddr = addresses.at(nodes.front());
        plan.facts = facts();
        return plan;
      }
    }
    if (runningSince && std::chrono::steady_clock::now() - *runningSince > agentLimit) {
      throw SlurmError("the agents of Slurm job " + slurmJobId_ + " did not all start within " +
                       std::to_string(agentLimit.count()) +
                       " s; is ringmaster-agent installed at the same path "
                       "on the nodes, and " +
                       folder_ + " shared with them?" + tailOf(step_ ? folder_ + "/agents.log" : output));
    }
    std::this_thread::sleep_for(250ms);
  }
}

}  // namespace ringmaster::console
