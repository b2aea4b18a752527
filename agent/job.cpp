// SPDX-License-Identifier: GPL-3.0-or-later
#include "agent/job.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <iterator>
#include <random>
#include <thread>

#include "agent/child_process.h"
#include "agent/launch_environment.h"
#include "agent/program_path.h"
#include "common/clock.h"
#include "common/job_spec.h"
#include "common/printable.h"
#include "jobflags/job_flags.h"

namespace ringmaster::agent {
namespace {

using Clock = std::chrono::steady_clock;
constexpr size_t kMaxLineBytes = 16 * 1024;  // longer lines are cut into pieces of at most this size
constexpr size_t kMaxReadPerTurn = 1 << 20;  // one chatty rank cannot starve the others
constexpr int kPollIntervalMs = 20;

// 128 random bits as hex: what a rank presents when it reports.
std::string newSecret() {
  std::random_device random;
  std::string secret;
  char hex[9];
  for (int i = 0; i < 4; ++i) {
    std::snprintf(hex, sizeof hex, "%08x", static_cast<unsigned>(random()));
    secret += hex;
  }
  return secret;
}

}  // namespace

struct Job::Rank {
  int rank = 0;
  int localRank = 0;
  std::string secret;  // RINGMASTER_JOB_SECRET
  std::unique_ptr<ChildProcess> process;
  std::string partial[2];  // stdout, stderr: text after the last newline
  bool exitReported = false;
  bool stoppedByAgent = false;  // it was sent SIGTERM/SIGKILL by us
};

Job::Job(JobSetup setup) : setup_(std::move(setup)) {
  journal_ = Journal::create(setup_.directory + "/journal");
  const auto& r = setup_.request;
  for (int i = 0; i < r.local_ranks(); ++i) {
    auto rank = std::make_unique<Rank>();
    rank->rank = r.first_rank() + i;
    rank->localRank = i;
    rank->secret = newSecret();
    ranks_.push_back(std::move(rank));
  }
  wakeFd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
}

Job::~Job() {
  stop(0.5, "the agent is shutting down");
  if (supervisor_.joinable()) supervisor_.join();
  journal_->close();
  ::close(wakeFd_);
}

void Job::start(std::function<void(const StartResult&)> started) {
  supervisor_ =
      std::thread([this, started = std::move(started)]() mutable { supervise(std::move(started)); });
}

const std::string& Job::secretOf(int rank) const {
  static const std::string none;
  return hasRank(rank) ? ranks_[static_cast<size_t>(rank - setup_.request.first_rank())]->secret : none;
}

bool Job::hasRank(int rank) const {
  const auto& r = setup_.request;
  return rank >= r.first_rank() && rank < r.first_rank() + r.local_ranks();
}

std::string Job::adoptRank(int launchedRank, int rank, int worldSize, int pid, const std::string& host) {
  constexpr int kMaxAdoptedWorld = 4096;
  const auto& spec = setup_.request.spec();
  const std::string who = "a process started by rank " + std::to_string(launchedRank) + "'s program";
  if (!isUserProgram(spec) || spec.world_size() != 1) {
    return who + " reports as rank " + std::to_string(rank) +
           ": only a program launched as one process may start its own ranks (mp.spawn); launch each rank "
           "with -np instead (ringmaster run -np N -- python3 train.py, calling init_process_group without "
           "rank and world_size)";
  }
  if (rank <= 0 || rank >= worldSize || worldSize > kMaxAdoptedWorld) {
    return who + " reports as rank " + std::to_string(rank) + " of " + std::to_string(worldSize) +
           ", which is not a rank it can be (1 to " +
           std::to_string(std::min(worldSize, kMaxAdoptedWorld) - 1) + ")";
  }
  {
    std::lock_guard lock(mutex_);
    if (!adopted_.insert(rank).second)
      return "rank " + std::to_string(rank) + " of job " + id() + " already reports from another process";
    adoptedWorldSize_.store(std::max(adoptedWorldSize_.load(), worldSize));
  }
  v1::Record record;
  auto* s = record.mutable_rank_state();
  s->set_rank(rank);
  s->set_state(v1::RankState::STATE_RUNNING);
  s->set_pid(pid);
  s->set_time_unix_ns(unixNs());
  s->set_host(host.empty() ? setup_.hostname : validUtf8(host));
  s->set_message("started by rank " + std::to_string(launchedRank) + "'s process (the program's own launch)");
  s->set_world_size(worldSize);
  journal_->append(std::vector<v1::Record>{record});
  return "";
}

void Job::stop(double graceS, const std::string& why) {
  {
    std::lock_guard lock(mutex_);
    double grace = graceS > 0 ? graceS : setup_.defaultGraceS;
    if (!stopRequested_) {
      stopRequested_ = true;
      stopGraceS_ = grace;
      stopWhy_ = why;
    }
    stopGraceS_ = std::min(stopGraceS_, grace);
  }
  uint64_t one = 1;
  ssize_t ignored = ::write(wakeFd_, &one, sizeof one);
  (void)ignored;
}

void Job::control(int rank, v1::ControlRequest::Action action) {
  std::lock_guard lock(mutex_);
  std::vector<int> targets;
  for (const auto& r : ranks_) targets.push_back(r->rank);
  targets.insert(targets.end(), adopted_.begin(), adopted_.end());
  for (int target : targets) {
    if (rank != -1 && target != rank) continue;
    auto& pending = pendingControl_[target];
    switch (action) {
      case v1::ControlRequest::ACTION_STOP:
        pending.set_stop(true);
        break;
      case v1::ControlRequest::ACTION_TIMELINE_ON:
        pending.set_timeline_on(true);
        pending.set_timeline_off(false);
        break;
      case v1::ControlRequest::ACTION_TIMELINE_OFF:
        pending.set_timeline_off(true);
        pending.set_timeline_on(false);
        break;
      case v1::ControlRequest::ACTION_CHECKPOINT_NOW:
        pending.set_checkpoint_now(true);
        break;
      default:
        break;
    }
  }
}

v1::ControlPollReply Job::takeControl(int rank) {
  std::lock_guard lock(mutex_);
  auto it = pendingControl_.find(rank);
  if (it == pendingControl_.end()) return {};
  v1::ControlPollReply reply = std::move(it->second);
  pendingControl_.erase(it);
  return reply;
}

std::vector<std::string> Job::rankEnvironment(int index) const {
  const auto& r = setup_.request;
  const Rank& rank = *ranks_[index];
  std::vector<std::string> env = {
      "RANK=" + std::to_string(rank.rank),
      "LOCAL_RANK=" + std::to_string(rank.localRank),
      "WORLD_SIZE=" + std::to_string(r.world_size()),
      "LOCAL_WORLD_SIZE=" + std::to_string(r.local_ranks()),
      "MASTER_ADDR=" + r.master_addr(),
      "MASTER_PORT=" + std::to_string(r.master_port()),
      "RINGMASTER_AGENT=" + setup_.telemetryAddress,
      "RINGMASTER_JOB_ID=" + r.job_id(),
      "RINGMASTER_JOB_SECRET=" + rank.secret,
      // torchrun's restart count, for built-in ranks too: a restart resumes only from a checkpoint it finds.
      "TORCHELASTIC_RESTART_COUNT=" + std::to_string(r.spec().restart_count()),
      "TORCHELASTIC_MAX_RESTARTS=" + std::to_string(r.spec().max_restarts()),
      "RINGMASTER_CHECK_REPLICAS_EVERY=" + std::to_string(checkReplicasEvery(r.spec())),
  };
  if (!isUserProgram(r.spec())) {
    // Ranks sharing a host share its cores instead of each starting one thread per core.
    if (!::getenv("OMP_NUM_THREADS")) {
      unsigned cores = std::max(1u, std::thread::hardware_concurrency());
      env.push_back("OMP_NUM_THREADS=" + std::to_string(std::max(1u, cores / std::max(1, r.local_ranks()))));
    }
    return environmentWith(env);
  }
  // A user's program gets the rest of torchrun's environment, and torchrun's one thread per rank when ranks
  // share the host and the user set nothing.
  const auto& program = r.spec().program();
  // Checked again where it takes effect, not only where the launch arrived.
  for (const auto& entry : program.environment()) {
    if (std::string refusal =
            setup_.anyEnvironment ? "" : environmentRefusal(entry, setup_.allowedEnvironment);
        !refusal.empty())
      throw std::runtime_error(refusal);
  }
  env.insert(env.end(),
             {"GROUP_RANK=" + std::to_string(r.group_rank()),
              "GROUP_WORLD_SIZE=" + std::to_string(std::max(1, r.group_world_size())),
              "ROLE_RANK=" + std::to_string(rank.rank), "ROLE_WORLD_SIZE=" + std::to_string(r.world_size()),
              "TORCHELASTIC_RUN_ID=" + (r.run_id().empty() ? r.job_id() : r.run_id())});
  // The ringmaster Python package reports there (Ringmaster's own ranks use RINGMASTER_AGENT's gRPC).
  if (!setup_.rankSocket.empty()) env.push_back("RINGMASTER_TELEMETRY_SOCKET=" + setup_.rankSocket);
  bool userThreads = ::getenv("OMP_NUM_THREADS") != nullptr;
  for (const auto& entry : program.environment())
    userThreads = userThreads || entry.rfind("OMP_NUM_THREADS=", 0) == 0;
  if (!userThreads && r.local_ranks() > 1) env.push_back("OMP_NUM_THREADS=1");
  // The user's entries first; Ringmaster's (validated to be other names) after them.
  std::vector<std::string> overrides;
  const char* inherited = ::getenv("PYTHONPATH");
  std::string theirPythonPath = inherited ? inherited : "";
  for (const auto& entry : program.environment()) {
    if (!program.uninstrumented() && entry.rfind("PYTHONPATH=", 0) == 0) {
      theirPythonPath = entry.substr(std::string("PYTHONPATH=").size());
    } else {
      overrides.push_back(entry);
    }
  }
  if (!program.uninstrumented()) {
    env.push_back("RINGMASTER_INSTRUMENT=1");
    // The bootstrap then makes `import horovod` Ringmaster's layer, unless a real Horovod is installed.
    if (program.horovod()) env.push_back("RINGMASTER_HOROVOD=1");
    if (r.spec().timeline()) env.push_back("RINGMASTER_TIMELINE=1");
    // The bootstrap's sitecustomize runs first and chains any other on the user's path.
    std::string pythonPath = instrumentedPythonPath(setup_.pythonRoot);
    if (!theirPythonPath.empty()) pythonPath += ":" + theirPythonPath;
    env.push_back("PYTHONPATH=" + pythonPath);
  }
  overrides.insert(overrides.end(), env.begin(), env.end());
  return environmentWith(overrides);
}

std::vector<std::string> Job::rankArguments() const {
  const auto& spec = setup_.request.spec();
  if (isUserProgram(spec)) {
    std::vector<std::string> argv(spec.program().argv().begin(), spec.program().argv().end());
    argv[0] = setup_.workerPath;
    return argv;
  }
  std::vector<std::string> argv = {setup_.workerPath};
  for (auto& a : workerArguments(setup_.request.spec())) argv.push_back(std::move(a));
  if (setup_.allowedFolders) {
    for (const auto& folder : setup_.allowedFolders->paths()) {
      argv.push_back("--allowed-folder");
      argv.push_back(folder);
    }
  }
  if (setup_.request.spec().timeline()) {
    argv.push_back("--timeline");
    // The worker puts its rank where "%r" stands: <job folder>/rank<N>.trace.json.
    argv.push_back(setup_.directory + "/rank%r.trace.json");
  }
  return argv;
}

v1::Record Job::rankState(const Rank& rank, v1::RankState::State state, const std::string& message) const {
  v1::Record record;
  auto* s = record.mutable_rank_state();
  s->set_rank(rank.rank);
  s->set_state(state);
  if (rank.process) {
    s->set_pid(rank.process->pid());
    s->set_exit_code(rank.process->exitCode());
    s->set_signal(rank.process->signal());
  }
  s->set_time_unix_ns(unixNs());
  s->set_host(setup_.hostname);
  s->set_message(validUtf8(message));
  s->set_stopped_by_agent(rank.stoppedByAgent);
  return record;
}

v1::Record Job::agentLine(int rank, const std::string& text) const {
  v1::Record record;
  auto* line = record.mutable_log();
  line->set_rank(rank);
  line->set_stream(v1::LogLine::STREAM_AGENT);
  line->set_time_unix_ns(unixNs());
  line->set_text(validUtf8(text));  // it may quote a file name or a system's message
  return record;
}

FileDescriptor Job::openWorkingFolder() const {
  const std::string& dir = setup_.request.spec().program().working_dir();
  if (dir.empty() || !setup_.allowedFolders) return {};
  FileDescriptor folder = setup_.allowedFolders->open(dir, O_PATH | O_DIRECTORY);
  if (!folder) throw std::runtime_error("the working folder " + dir + ": " + std::strerror(errno));
  return folder;
}

StartResult Job::spawnRanks() {
  StartResult result;
  std::vector<v1::Record> records;
  // Opened once beneath the allowed folders; every rank starts in it, whatever its path names by then.
  FileDescriptor workingFolder;
  std::string workingFolderProblem;
  try {
    workingFolder = openWorkingFolder();
  } catch (const std::exception& e) {
    workingFolderProblem = e.what();
  }
  for (size_t i = 0; i < ranks_.size(); ++i) {
    Rank& rank = *ranks_[i];
    try {
      if (!workingFolderProblem.empty()) throw std::runtime_error(workingFolderProblem);
      SpawnOptions options{rankArguments(), rankEnvironment(static_cast<int>(i)), true,
                           setup_.request.spec().program().working_dir()};
      options.executable = setup_.executable;
      options.workingDirFd = workingFolder.get();
      rank.process = std::make_unique<ChildProcess>(options);
      result.pids.push_back(rank.process->pid());
      records.push_back(rankState(rank, v1::RankState::STATE_RUNNING, "started"));
    } catch (const std::exception& e) {
      result.error = "rank " + std::to_string(rank.rank) + " could not start: " + e.what();
      rank.exitReported = true;
      records.push_back(rankState(rank, v1::RankState::STATE_FAILED_TO_START, e.what()));
      break;
    }
  }
  journal_->append(std::move(records));
  result.ok = result.error.empty();
  return result;
}

void Job::readOutput(Rank& rank, int fd, bool toEnd, std::vector<v1::Record>& out) {
  int stream = fd == rank.process->stdoutFd() ? 0 : 1;
  std::string& partial = rank.partial[stream];
  auto emit = [&](std::string text) {
    v1::Record record;
    auto* line = record.mutable_log();
    line->set_rank(rank.rank);
    line->set_stream(stream == 0 ? v1::LogLine::STREAM_STDOUT : v1::LogLine::STREAM_STDERR);
    line->set_time_unix_ns(unixNs());
    line->set_text(isUtf8(text) ? std::move(text) : validUtf8(text));  // a program may print any bytes
    out.push_back(std::move(record));
  };
  // A line longer than kMaxLineBytes goes in pieces of at most that, cut between characters, not inside one.
  auto emitLine = [&](std::string_view line) {
    while (line.size() > kMaxLineBytes) {
      const size_t cut = utf8Cut(line, kMaxLineBytes);
      emit(std::string(line.substr(0, cut)));
      line.remove_prefix(cut);
    }
    emit(std::string(line));
  };
  char buffer[65536];
  size_t total = 0;
  while (toEnd || total < kMaxReadPerTurn) {
    ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0 || errno != EAGAIN) {  // end of output: the last line may lack its newline
        if (!partial.empty()) emit(std::move(partial));
        partial.clear();
        rank.process->closeOutput(fd);
      }
      break;
    }
    total += static_cast<size_t>(n);
    partial.append(buffer, static_cast<size_t>(n));
    size_t start = 0;
    for (size_t nl; (nl = partial.find('\n', start)) != std::string::npos; start = nl + 1) {
      emitLine(std::string_view(partial).substr(start, nl - start));
    }
    partial.erase(0, start);
    while (partial.size() >= kMaxLineBytes) {
      const size_t cut = utf8Cut(partial, kMaxLineBytes);
      emit(partial.substr(0, cut));
      partial.erase(0, cut);
    }
  }
}

void Job::beginStop(const std::string& why, std::vector<v1::Record>& out) {
  std::string who;
  for (auto& rank : ranks_) {
    if (!rank->process || rank->process->exited()) continue;
    rank->stoppedByAgent = true;
    rank->process->signalGroup(SIGTERM);
    who += (who.empty() ? "" : ", ") + std::to_string(rank->rank);
  }
  if (!who.empty()) {
    out.push_back(agentLine(
        -1,
        "stopping rank" + std::string(who.find(',') == std::string::npos ? " " : "s ") + who + ": " + why));
  }
}

int Job::followStrays(bool endThem) {
  std::set<pid_t> killed;
  for (int round = 0; round < 500; ++round) {
    std::set<pid_t> ranks;
    for (const auto& rank : ranks_) {
      if (rank->process && !rank->process->exited()) ranks.insert(rank->process->pid());
    }
    for (pid_t pid : childrenWithEnvironment("RINGMASTER_JOB_ID=" + setup_.request.job_id())) {
      if (!ranks.count(pid)) strays_.insert(pid);
    }
    for (auto it = strays_.begin(); it != strays_.end();) {
      int status = 0;
      const pid_t reaped = ::waitpid(*it, &status, WNOHANG);
      if (reaped == *it || (reaped < 0 && errno == ECHILD)) {
        it = strays_.erase(it);
        continue;
      }
      if (endThem && !killed.count(*it) && ::kill(*it, SIGKILL) == 0) killed.insert(*it);
      ++it;
    }
    if (!endThem || strays_.empty()) break;
    // A killed process's own children come to this process as it dies: look again.
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return static_cast<int>(killed.size());
}

void Job::supervise(std::function<void(const StartResult&)> started) {
  StartResult result = spawnRanks();
  started(result);

  bool stopping = false;
  Clock::time_point killAt = Clock::time_point::max();
  Clock::time_point nextStrayCheck = Clock::now();
  std::string stopWhy;
  if (!result.ok) {
    // Take down what did start: a job with a missing rank cannot train.
    std::vector<v1::Record> records;
    stopping = true;
    stopWhy = result.error;
    beginStop(stopWhy, records);
    killAt = Clock::now() + std::chrono::milliseconds(static_cast<int>(setup_.defaultGraceS * 1000));
    journal_->append(std::move(records));
  }

  while (true) {
    std::vector<v1::Record> records;
    std::vector<pollfd> fds = {{wakeFd_, POLLIN, 0}};
    std::vector<Rank*> owners = {nullptr};
    for (auto& rank : ranks_) {
      if (!rank->process) continue;
      for (int fd : {rank->process->stdoutFd(), rank->process->stderrFd()}) {
        if (fd < 0) continue;
        fds.push_back({fd, POLLIN, 0});
        owners.push_back(rank.get());
      }
    }
    ::poll(fds.data(), fds.size(), kPollIntervalMs);
    if (fds[0].revents & POLLIN) {
      uint64_t count;
      ssize_t ignored = ::read(wakeFd_, &count, sizeof count);
      (void)ignored;
    }
    for (size_t i = 1; i < fds.size(); ++i) {
      if (fds[i].revents) readOutput(*owners[i], fds[i].fd, false, records);
    }

    bool allExited = true;
    for (auto& rank : ranks_) {
      if (!rank->process || rank->exitReported) continue;
      if (!rank->process->poll()) {
        allExited = false;
        continue;
      }
      // Read what it wrote before it died, so its last lines come before its exit.
      for (int fd : {rank->process->stdoutFd(), rank->process->stderrFd()}) {
        if (fd >= 0) readOutput(*rank, fd, true, records);
      }
      rank->exitReported = true;
      const ChildProcess& p = *rank->process;
      bool failed = p.signal() != 0 || p.exitCode() != 0;
      std::string how = p.signal() != 0 ? "killed by " + signalName(p.signal())
                                        : "exited with code " + std::to_string(p.exitCode());
      std::string message = how;
      if (rank->stoppedByAgent) message += " (stopped by the agent: " + stopWhy + ")";
      records.push_back(rankState(
          *rank, p.signal() != 0 ? v1::RankState::STATE_SIGNALED : v1::RankState::STATE_EXITED, message));
      if (failed && !stopping) {
        // One rank down means the collective is broken: stop the others, as torchrun does.
        stopping = true;
        stopWhy = "rank " + std::to_string(rank->rank) + " " + how;
        beginStop(stopWhy, records);
        killAt = Clock::now() + std::chrono::milliseconds(static_cast<int>(setup_.defaultGraceS * 1000));
      }
    }

    {
      std::lock_guard lock(mutex_);
      if (stopRequested_ && !stopping) {
        stopping = true;
        stopWhy = stopWhy_;
        beginStop(stopWhy, records);
        killAt = Clock::now() + std::chrono::milliseconds(static_cast<int>(stopGraceS_ * 1000));
      } else if (stopRequested_ && stopGraceS_ < setup_.defaultGraceS) {
        killAt =
            std::min(killAt, Clock::now() + std::chrono::milliseconds(static_cast<int>(stopGraceS_ * 1000)));
      }
    }
    if (std::string journalError = journal_->error(); !journalError.empty() && !stopping) {
      // Nothing the ranks do can be recorded any more, and a console watching would wait for exits it can
      // never see: stop them, and say so where the agent's owner looks.
      stopping = true;
      stopWhy = "the agent cannot write the job's journal (" + journalError + ")";
      std::cerr << "ringmaster-agent: job " << setup_.request.job_id() << ": " << stopWhy
                << "; stopping its ranks" << std::endl;
      beginStop(stopWhy, records);
      killAt = Clock::now() + std::chrono::milliseconds(static_cast<int>(setup_.defaultGraceS * 1000));
    }
    if (stopping && Clock::now() >= killAt) {
      for (auto& rank : ranks_) {
        if (rank->process && !rank->process->exited()) {
          rank->stoppedByAgent = true;
          rank->process->signalGroup(SIGKILL);
        }
      }
    }
    if (Clock::now() >= nextStrayCheck) {
      followStrays(false);
      nextStrayCheck = Clock::now() + std::chrono::seconds(1);
    }
    if (allExited) {
      if (int ended = followStrays(true); ended > 0) {
        records.push_back(agentLine(-1, "ended " + std::to_string(ended) + " process" +
                                            (ended == 1 ? "" : "es") +
                                            " the job's ranks had started and left running"));
      }
    }
    journal_->append(std::move(records));
    if (allExited) break;
  }
  journal_->close();
  supervised_ = true;
}

}  // namespace ringmaster::agent
