// SPDX-License-Identifier: GPL-3.0-or-later
#include "tests/slurm/slurm_cluster.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "tests/support/files.h"
#include "tests/support/ports.h"

namespace ringmaster::test {
namespace {

using namespace std::chrono_literals;

constexpr const char* kSbin = "/usr/sbin/";
constexpr const char* kBin = "/usr/bin/";

std::string hostName() {
  char name[256] = {};
  ::gethostname(name, sizeof name - 1);
  return name;
}

std::string trimmed(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

struct ProcEntry {
  pid_t pid = 0;
  pid_t parent = 0;
  char state = '?';
  std::string command;
};

std::vector<ProcEntry> processTable() {
  std::vector<ProcEntry> table;
  DIR* proc = ::opendir("/proc");
  if (!proc) return table;
  while (dirent* entry = ::readdir(proc)) {
    const std::string name = entry->d_name;
    if (name.empty() || !std::all_of(name.begin(), name.end(), ::isdigit)) continue;
    std::ifstream stat("/proc/" + name + "/stat");
    std::string line;
    if (!std::getline(stat, line)) continue;
    // pid (comm) state ppid ...: comm may hold spaces and parentheses, so read after the last ')'.
    const size_t close = line.rfind(')');
    const size_t open = line.find('(');
    if (close == std::string::npos || open == std::string::npos) continue;
    ProcEntry e;
    e.pid = std::stoi(name);
    e.command = line.substr(open + 1, close - open - 1);
    std::istringstream rest(line.substr(close + 1));
    rest >> e.state >> e.parent;
    table.push_back(e);
  }
  ::closedir(proc);
  return table;
}

std::vector<ProcEntry> descendantsOf(pid_t root) {
  const auto table = processTable();
  std::set<pid_t> found{root};
  bool grew = true;
  while (grew) {
    grew = false;
    for (const auto& e : table) {
      if (found.count(e.parent) && !found.count(e.pid)) {
        found.insert(e.pid);
        grew = true;
      }
    }
  }
  std::vector<ProcEntry> result;
  for (const auto& e : table) {
    if (e.pid != root && found.count(e.pid)) result.push_back(e);
  }
  return result;
}

}  // namespace

std::vector<std::string> descendantProcesses() {
  std::vector<std::string> lines;
  for (const auto& e : descendantsOf(::getpid())) {
    if (e.state != 'Z') lines.push_back(std::to_string(e.pid) + " " + e.command);
  }
  return lines;
}

std::string joinedLines(const std::vector<std::string>& lines) {
  std::string text;
  for (const auto& l : lines) text += l + "\n";
  return text;
}

bool SlurmCluster::installed() {
  for (std::string path :
       {std::string(kSbin) + "munged", std::string(kSbin) + "mungekey", std::string(kSbin) + "slurmctld",
        std::string(kSbin) + "slurmd", std::string(kBin) + "sbatch", std::string(kBin) + "squeue"}) {
    if (::access(path.c_str(), X_OK) != 0) return false;
  }
  return true;
}

SlurmCluster::SlurmCluster() {
  // Job steps are forked by slurmd and outlive their parents; as a subreaper this process stays their
  // ancestor, so strayProcesses() sees them and stop() ends them.
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  for (const char* sub : {"state", "spool", "log"}) std::filesystem::create_directories(dir_.file(sub));
  writeConfig();
  const auto key = runProcess({std::string(kSbin) + "mungekey", "-c", "-k", dir_.file("munge.key")}, {}, 20s);
  if (key.exitCode != 0) throw std::runtime_error("mungekey failed: " + key.err);
  daemons_.push_back(std::make_unique<BackgroundProcess>(
      std::vector<std::string>{
          std::string(kSbin) + "munged", "-F", "--force", "-S", dir_.file("munge.socket"),
          "--key-file=" + dir_.file("munge.key"), "--pid-file=" + dir_.file("munged.pid"),
          "--log-file=" + dir_.file("log/munged.log"), "--seed-file=" + dir_.file("munged.seed")},
      std::map<std::string, std::string>{}, dir_.file("log/munged")));
  if (!eventually([this] { return std::filesystem::exists(dir_.file("munge.socket")); }, 10s, kSlurmPoll)) {
    throw std::runtime_error("munged did not open its socket in 10 s:\n" + logs());
  }
  daemons_.push_back(std::make_unique<BackgroundProcess>(
      std::vector<std::string>{std::string(kSbin) + "slurmctld", "-D", "-f", conf()}, env(),
      dir_.file("log/slurmctld")));
  for (const char* node : {"n1", "n2"}) {
    daemons_.push_back(std::make_unique<BackgroundProcess>(
        std::vector<std::string>{std::string(kSbin) + "slurmd", "-D", "-N", node, "-f", conf()}, env(),
        dir_.file(std::string("log/slurmd-") + node)));
  }
  const bool up = eventually(
      [this] {
        auto states = command({std::string(kBin) + "sinfo", "-h", "-N", "-p", "main", "-o", "%N %T"}, 5s);
        return states.exitCode == 0 && states.out.find("n1 idle") != std::string::npos &&
               states.out.find("n2 idle") != std::string::npos;
      },
      30s, kSlurmPoll);
  if (!up) {
    std::string why = "the test Slurm cluster did not come up in 30 s:\n" + logs();
    stop();
    throw std::runtime_error(why);
  }
}

SlurmCluster::~SlurmCluster() {
  stop();
}

void SlurmCluster::writeConfig() {
  const std::string d = dir_.path();
  const std::string host = hostName();
  std::ofstream out(conf());
  out << "ClusterName=ringmaster-test\n"
      << "SlurmctldHost=" << host << "(127.0.0.1)\n"
      << "SlurmctldPort=" << freePort() << "\n"
      << "SlurmUser=root\nSlurmdUser=root\n"
      << "AuthType=auth/munge\nCredType=cred/munge\n"
      << "AuthInfo=socket=" << d << "/munge.socket\n"
      << "ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\n"
      << "SelectType=select/cons_tres\nSelectTypeParameters=CR_Core\n"
      << "SchedulerParameters=batch_sched_delay=0\n"
      << "MpiDefault=none\nReturnToService=2\n"
      // Cancelled and timed-out steps get SIGKILL 2 s after SIGTERM, not 30 s; a lost node is noticed in 10
      // s.
      << "KillWait=2\nSlurmdTimeout=10\nOverTimeLimit=0\n"
      << "StateSaveLocation=" << d << "/state\n"
      << "SlurmdSpoolDir=" << d << "/spool/%n\n"
      << "SlurmctldPidFile=" << d << "/slurmctld.pid\n"
      << "SlurmdPidFile=" << d << "/slurmd-%n.pid\n"
      << "SlurmctldLogFile=" << d << "/log/slurmctld.log\n"
      << "SlurmdLogFile=" << d << "/log/slurmd-%n.log\n"
      << "NodeName=n1 NodeHostname=" << host << " NodeAddr=127.0.0.1 Port=" << freePort() << " CPUs=2\n"
      << "NodeName=n2 NodeHostname=" << host << " NodeAddr=127.0.0.1 Port=" << freePort()
      << " CPUs=2\n"
      // A job in a partition of a higher tier preempts those of lower tiers, cancelling them.
      << "PreemptType=preempt/partition_prio\nPreemptMode=CANCEL\n"
      << "PartitionName=main Nodes=n1,n2 Default=YES MaxTime=INFINITE State=UP PriorityTier=1\n"
      // A partition that is down: a job submitted there pends with Slurm's reason.
      << "PartitionName=closed Nodes=n1,n2 MaxTime=INFINITE State=DOWN PriorityTier=1\n"
      << "PartitionName=urgent Nodes=n1,n2 MaxTime=INFINITE State=UP PriorityTier=2\n";
}

std::map<std::string, std::string> SlurmCluster::env(std::map<std::string, std::string> extra) const {
  extra["SLURM_CONF"] = conf();
  return extra;
}

ProcessResult SlurmCluster::command(std::vector<std::string> argv, std::chrono::milliseconds timeout) const {
  if (!argv.empty() && argv[0].find('/') == std::string::npos) argv[0] = kBin + argv[0];
  return runProcess(argv, env(), timeout);
}

std::string SlurmCluster::jobState(const std::string& jobId) const {
  auto queued = command({"squeue", "-h", "-j", jobId, "-o", "%T"}, 10s);
  if (queued.exitCode == 0 && !trimmed(queued.out).empty()) return trimmed(queued.out);
  auto shown = command({"scontrol", "show", "job", "-o", jobId}, 10s);
  const size_t at = shown.out.find("JobState=");
  if (at == std::string::npos) return "UNKNOWN";
  const size_t from = at + 9;
  return shown.out.substr(from, shown.out.find(' ', from) - from);
}

std::vector<std::string> SlurmCluster::jobs() const {
  auto queued = command({"squeue", "-h", "-o", "%i"}, 10s);
  std::vector<std::string> ids;
  std::istringstream lines(queued.out);
  for (std::string line; std::getline(lines, line);) {
    if (!trimmed(line).empty()) ids.push_back(trimmed(line));
  }
  return ids;
}

std::vector<std::string> SlurmCluster::strayProcesses(const std::vector<pid_t>& besides) const {
  std::set<pid_t> known(besides.begin(), besides.end());
  for (const auto& d : daemons_) known.insert(d->pid());
  // slurmctld's own helper (slurmscriptd) lives as long as slurmctld; job steps come from slurmd instead.
  const pid_t controller = daemons_.size() > 1 ? daemons_[1]->pid() : -1;
  std::vector<std::string> stray;
  for (const auto& e : descendantsOf(::getpid())) {
    if (known.count(e.pid) || e.parent == controller || e.state == 'Z') continue;
    stray.push_back(std::to_string(e.pid) + " " + e.command);
  }
  return stray;
}

void SlurmCluster::signalController(int sig) const {
  if (daemons_.size() > 1) daemons_[1]->signal(sig);
}

std::string SlurmCluster::logs() const {
  std::string text;
  for (const char* name : {"munged.log", "slurmctld.log", "slurmd-n1.log", "slurmd-n2.log", "slurmctld.err",
                           "slurmd-n1.err", "slurmd-n2.err"}) {
    const std::string content = readFile(dir_.file(std::string("log/") + name));
    if (content.empty()) continue;
    const size_t keep = 3000;
    text += "--- " + std::string(name) + " ---\n" +
            (content.size() > keep ? content.substr(content.size() - keep) : content) + "\n";
  }
  return text;
}

void SlurmCluster::stop() {
  if (daemons_.size() >= 2 && daemons_[1]->running()) {
    for (const auto& id : jobs()) command({"scancel", id}, 10s);
    eventually([this] { return jobs().empty(); }, 15s, kSlurmPoll);
  }
  // slurmd before slurmctld before munged, each given 10 s after SIGTERM, then SIGKILL.
  for (auto it = daemons_.rbegin(); it != daemons_.rend(); ++it) (*it).reset();
  // Whatever a job step left (it would be reparented here) is ended, and every zombie child reaped.
  for (const auto& e : descendantsOf(::getpid())) {
    if (e.state != 'Z') ::kill(e.pid, SIGKILL);
  }
  eventually(
      [] {
        bool any = false;
        for (const auto& e : descendantsOf(::getpid())) {
          if (e.parent == ::getpid() && e.state == 'Z') ::waitpid(e.pid, nullptr, WNOHANG);
          any = true;
        }
        return !any;
      },
      10s, kSlurmPoll);
  daemons_.clear();
}

}  // namespace ringmaster::test
