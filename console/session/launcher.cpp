// SPDX-License-Identifier: GPL-3.0-or-later
#include "console/session/launcher.h"

#include <arpa/inet.h>
#include <unistd.h>

#include <algorithm>
#include <ctime>
#include <random>

#include "agent/agent_options.h"
#include "agent/agent_server.h"
#include "agent/child_process.h"
#include "agent/host_info.h"
#include "common/error.h"
#include "common/job_spec.h"
#include "common/loopback_port.h"
#include "console/session/outcome_text.h"

namespace ringmaster::console {
namespace {

using Clock = std::chrono::steady_clock;
constexpr size_t kLastLinesKept = 20;
constexpr double kStopAfterFailureGraceS = 3;

bool isLoopbackHost(const std::string& host) {
  return host == "localhost" || agent::isLoopbackAddress(host);
}

// A TCP port free on this machine right now (the embedded case: rank 0 runs here).
int freeLocalPort() {
  const int port = freeLoopbackPort();
  if (port == 0) throw LaunchError("cannot find a free TCP port on this machine for MASTER_PORT");
  return port;
}

bool isFailure(const v1::RankState& s) {
  return s.state() == v1::RankState::STATE_FAILED_TO_START ||
         (s.state() == v1::RankState::STATE_EXITED && s.exit_code() != 0) ||
         s.state() == v1::RankState::STATE_SIGNALED;
}

Sentence describeExit(const RankExit& e) {
  // An exit without a failure may come with the agent's own words for it, which are shown as they are.
  const Figure how = e.signal != 0        ? outcomeSentence(text::kWasKilledBy, {agent::signalName(e.signal)})
                     : e.exitCode != 0    ? outcomeSentence(text::kExitedWithCode, {e.exitCode})
                     : !e.message.empty() ? Figure(e.message)
                                          : outcomeSentence(text::kExitedNormally);
  return outcomeSentence(text::kRankOnHostEnded, {e.rank, e.host, how});
}

// Fills in the spec the hosts get (its defaults, the hosts with their agents' ports), checks it and places
// the ranks on the hosts, this machine's embedded agent when the plan names none. Throws InputError where the
// plan itself cannot run, before any host is asked.
std::vector<RankRange> placeRanks(LaunchPlan& plan) {
  applyDefaults(plan.spec);
  plan.spec.clear_hosts();
  for (const auto& h : plan.hosts) {
    const auto agent = plan.agents.find(h.host);
    auto* slots = plan.spec.add_hosts();
    slots->set_host(h.host);
    slots->set_slots(static_cast<uint32_t>(h.slots));
    slots->set_agent_port(
        static_cast<uint32_t>(agent == plan.agents.end() ? plan.agentPort : agent->second.port));
  }
  if (auto errors = validateJobSpec(plan.spec); !errors.empty())
    throw InputError("invalid job: " + describe(errors));

  std::vector<HostSlots> hosts = plan.hosts;
  if (hosts.empty()) hosts.push_back({"127.0.0.1", static_cast<int>(plan.spec.world_size())});
  std::vector<RankRange> ranges = assignRanks(hosts, static_cast<int>(plan.spec.world_size()));
  // Agents on loopback addresses of this one machine (127.0.0.2, 127.0.0.3, ...) all reach each other; a
  // loopback rank 0 with a host elsewhere does not.
  const bool elsewhere =
      std::any_of(ranges.begin(), ranges.end(), [](const RankRange& r) { return !isLoopbackHost(r.host); });
  if (ranges.size() > 1 && isLoopbackHost(ranges[0].host) && elsewhere) {
    throw InputError("-H: rank 0's host is " + ranges[0].host +
                     ", which the other hosts cannot reach; name this "
                     "machine by an address they can reach");
  }
  return ranges;
}

}  // namespace

void Launcher::check(LaunchPlan plan) {
  placeRanks(plan);
}

namespace {

// What the agent adds to the message of a rank it stopped, before the reason and a closing parenthesis.
constexpr std::string_view kStoppedByAgent = "(stopped by the agent";

}  // namespace

bool stoppedByAgent(const v1::RankState& s) {
  return s.stopped_by_agent() || s.message().find(kStoppedByAgent) != std::string::npos;
}

std::string stopReason(const v1::RankState& s) {
  const std::string& message = s.message();
  const size_t at = message.find(kStoppedByAgent);
  if (at == std::string::npos || message.compare(at + kStoppedByAgent.size(), 2, ": ") != 0) return {};
  const size_t from = at + kStoppedByAgent.size() + 2;
  const size_t end = message.rfind(')');
  return end != std::string::npos && end >= from ? message.substr(from, end - from) : std::string();
}

std::string_view statusName(JobStatus status) {
  switch (status) {
    case JobStatus::Running:
      return "running";
    case JobStatus::Succeeded:
      return "finished";
    case JobStatus::Failed:
      return "failed";
    case JobStatus::Stopped:
      return "stopped";
    case JobStatus::Detached:
      return "detached";
  }
  return "unknown";
}

std::string newJobId() {
  std::time_t now = std::time(nullptr);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", std::localtime(&now));
  std::random_device random;
  char suffix[16];
  std::snprintf(suffix, sizeof suffix, "%06x", random() & 0xffffff);
  return std::string(stamp) + "-" + suffix;
}

struct Launcher::Host {
  size_t index = 0;
  std::unique_ptr<AgentClient> client;
  std::unique_ptr<JournalFollower> follower;
  bool launched = false;
  bool finished = false;
};

Launcher::Launcher(LaunchPlan plan) : plan_(std::move(plan)) {
  if (plan_.jobId.empty()) plan_.jobId = newJobId();
}

Launcher::~Launcher() {
  bool running;
  {
    std::lock_guard lock(mutex_);
    running = started_ && outcomeLocked().status == JobStatus::Running;
  }
  if (running) stop(2);
  for (auto& host : hosts_) {
    if (host->follower) host->follower->stop();
  }
  // Followers first (they call back into this object), then the embedded agent.
  for (auto& host : hosts_) host->follower.reset();
  embedded_.reset();
}

JournalFollower& Launcher::follower(size_t host) {
  return *hosts_.at(host)->follower;
}

void Launcher::addSink(RecordSink* sink) {
  sinks_.push_back(sink);
}

void Launcher::start() {
  const std::vector<RankRange> ranges = placeRanks(plan_);
  if (plan_.hosts.empty()) {
    agent::AgentOptions options;
    options.listen = "127.0.0.1";
    options.port = 0;
    options.workerPath = plan_.workerPath;
    options.stateDir = plan_.stateDir;
    options.anyProgram = true;  // the user's own agent, in the user's own process: their programs are theirs
    options.anyFolder = true;   // and so are their folders
    embedded_ = std::make_unique<agent::AgentServer>(options);
    plan_.agentPort = embedded_->port();
  }
  for (const auto& range : ranges) {
    auto host = std::make_unique<Host>();
    host->index = hosts_.size();
    host->client = std::make_unique<AgentClient>(endpointFor(range.host));
    hosts_.push_back(std::move(host));
    placements_.push_back({range.host, range.firstRank, range.localRanks, {}});
  }
  checkHosts();
  if (plan_.attach) {
    for (auto& host : hosts_) host->launched = true;
  } else {
    launchAll();
  }
  {
    std::lock_guard lock(mutex_);
    started_ = true;
  }
  for (auto& host : hosts_) {
    Host* h = host.get();
    h->follower = std::make_unique<JournalFollower>(
        *h->client, plan_.jobId, 1,
        [this, h](const std::vector<v1::Record>& records) { onRecords(*h, records); },
        [this, h](const grpc::Status& status) { onEnd(*h, status); },
        [this, h](const JournalFollower::ConnectionChange& change) { onConnection(*h, change); });
  }
}

AgentEndpoint Launcher::endpointFor(const std::string& host) const {
  if (embedded_) return AgentEndpoint{host, plan_.agentPort, {}, {}, embedded_->socketPath()};
  auto it = plan_.agents.find(host);
  if (it == plan_.agents.end()) return AgentEndpoint{host, plan_.agentPort, plan_.token, plan_.tlsCaPem, {}};
  AgentEndpoint endpoint = it->second;
  if (endpoint.host.empty()) endpoint.host = host;
  return endpoint;
}

void Launcher::checkHosts() {
  std::string problems;
  for (auto& host : hosts_) {
    auto& placement = placements_[host->index];
    grpc::Status status = host->client->hostInfo(placement.info);
    std::string problem;
    if (!status.ok()) {
      problem = describeStatus(status, host->client->endpoint());
    } else {
      problem = agent::checkHostCanRun(placement.info, plan_.spec);
    }
    if (!problem.empty()) problems += "\n  host " + placement.host + ": " + problem;
  }
  if (!problems.empty()) throw LaunchError("cannot launch job " + plan_.jobId + ":" + problems);
  if (embedded_) placements_[0].host = placements_[0].info.hostname();
}

void Launcher::launchAll() {
  const std::string masterAddr = embedded_                   ? "127.0.0.1"
                                 : !plan_.masterAddr.empty() ? plan_.masterAddr
                                                             : placements_[0].host;
  int masterPort = 0;
  if (embedded_ || isLoopbackHost(masterAddr)) {
    masterPort = freeLocalPort();
  } else {
    // Rank 0's host is elsewhere: pick from a range torchrun users keep free (29500 and up).
    std::random_device random;
    masterPort = 29500 + static_cast<int>(random() % 20000);
  }
  for (auto& host : hosts_) {
    const auto& placement = placements_[host->index];
    v1::LaunchRequest request;
    request.set_job_id(plan_.jobId);
    *request.mutable_spec() = plan_.spec;
    request.set_first_rank(placement.firstRank);
    request.set_local_ranks(placement.localRanks);
    request.set_world_size(static_cast<int>(plan_.spec.world_size()));
    request.set_master_addr(masterAddr);
    request.set_master_port(static_cast<uint32_t>(masterPort));
    request.set_group_rank(static_cast<int>(host->index));
    request.set_group_world_size(static_cast<int>(hosts_.size()));
    request.set_run_id(plan_.runId.empty() ? plan_.jobId : plan_.runId);
    v1::LaunchReply reply;
    grpc::Status status = host->client->launch(request, reply);
    if (status.ok()) {
      host->launched = true;
      continue;
    }
    std::string why = "host " + placement.host +
                      " could not start its ranks: " + describeStatus(status, host->client->endpoint());
    std::string stopped;
    for (auto& other : hosts_) {
      // A host that failed part-way may have started some ranks too.
      if (!other->launched && other.get() != host.get()) continue;
      other->client->stop(plan_.jobId, 1);
      if (other->launched) stopped += (stopped.empty() ? "" : ", ") + placements_[other->index].host;
    }
    if (!stopped.empty()) why += "; stopped the ranks already started on " + stopped;
    throw LaunchError(why);
  }
}

void Launcher::onRecords(Host& host, const std::vector<v1::Record>& records) {
  bool failedNow = false;
  {
    std::lock_guard lock(mutex_);
    const std::string& hostName = placements_[host.index].host;
    for (const auto& record : records) {
      if (record.has_log() && record.log().rank() >= 0) {
        auto& lines = lastLines_[record.log().rank()];
        lines.push_back(record.log().text());
        if (lines.size() > kLastLinesKept) lines.erase(lines.begin());
      }
      if (!record.has_rank_state()) continue;
      const auto& s = record.rank_state();
      if (s.state() != v1::RankState::STATE_EXITED && s.state() != v1::RankState::STATE_SIGNALED &&
          s.state() != v1::RankState::STATE_FAILED_TO_START) {
        continue;
      }
      RankExit exit{s.rank(),        hostName, s.exit_code(), s.signal(), s.message(), lastLines_[s.rank()],
                    s.time_unix_ns()};
      exits_[s.rank()] = exit;
      if (isFailure(s) && !stoppedByAgent(s) && !stopRequested_) {
        if (!firstFailure_ || exit.timeUnixNs < firstFailure_->timeUnixNs) firstFailure_ = exit;
        if (!stoppingAfterFailure_) {
          stoppingAfterFailure_ = true;
          failedNow = true;
        }
      }
    }
  }
  {
    std::lock_guard lock(sinkMutex_);
    for (auto* sink : sinks_) sink->onRecords(plan_.jobId, placements_[host.index].host, records);
  }
  if (failedNow) stopAllAfterFailure();
  changed_.notify_all();
}

void Launcher::onEnd(Host& host, const grpc::Status& status) {
  {
    std::lock_guard lock(mutex_);
    host.finished = true;
    if (!status.ok() && status.error_code() != grpc::CANCELLED && isEmpty(lostHost_)) {
      lostHost_ = outcomeSentence(
          text::kLostHost, {placements_[host.index].host, describeStatus(status, host.client->endpoint())});
    }
  }
  changed_.notify_all();
}

void Launcher::onConnection(Host& host, const JournalFollower::ConnectionChange& change) {
  std::lock_guard lock(sinkMutex_);
  const std::string& name = placements_[host.index].host;
  for (auto* sink : sinks_) {
    if (change.connected) {
      sink->onConnectionRestored(plan_.jobId, name, change.backfilled);
    } else {
      sink->onConnectionLost(plan_.jobId, name, change.why);
    }
  }
}

std::string Launcher::control(v1::ControlRequest::Action action) {
  std::string problems;
  for (auto& host : hosts_) {
    if (!host->launched) continue;
    grpc::Status status = host->client->control(plan_.jobId, -1, action);
    if (!status.ok()) {
      problems += (problems.empty() ? "" : "; ") + std::string("host ") + placements_[host->index].host +
                  ": " + describeStatus(status, host->client->endpoint());
    }
  }
  return problems;
}

void Launcher::stopAllAfterFailure() {
  // The agent that saw the failure stops its own ranks; the other hosts' ranks are stopped from here.
  for (auto& host : hosts_) host->client->stop(plan_.jobId, kStopAfterFailureGraceS);
}

void Launcher::stop(double graceS) {
  {
    std::lock_guard lock(mutex_);
    stopRequested_ = true;
    const auto wait = std::chrono::duration_cast<Clock::duration>(
        std::chrono::duration<double>(std::max(0.0, graceS) + kStopConfirmS));
    stopConfirmBy_ = std::min(stopConfirmBy_, Clock::now() + wait);
  }
  for (auto& host : hosts_) {
    if (host->launched) host->client->stop(plan_.jobId, graceS);
  }
}

std::vector<std::string> Launcher::unreachableHosts(std::chrono::milliseconds timeout) const {
  std::vector<std::string> gone;
  for (const auto& host : hosts_) {
    v1::HostInfo info;
    if (!host->client->hostInfo(info, timeout).ok()) gone.push_back(placements_[host->index].host);
  }
  return gone;
}

std::optional<RankExit> Launcher::firstFailure() const {
  std::lock_guard lock(mutex_);
  return firstFailure_;
}

bool Launcher::detach() {
  {
    std::lock_guard lock(mutex_);
    if (embedded_ || !started_ || detached_ || outcomeLocked().status != JobStatus::Running) return false;
    detached_ = true;
  }
  changed_.notify_all();
  for (auto& host : hosts_) {
    if (host->follower) host->follower->stop();
  }
  return true;
}

JobOutcome Launcher::outcomeLocked() const {
  JobOutcome outcome;
  if (detached_) {
    outcome.status = JobStatus::Detached;
    outcome.message = outcomeSentence(text::kLeftRunning);
    return outcome;
  }
  for (const auto& host : hosts_) {
    if (!host->finished) return outcome;
  }
  if (firstFailure_) {
    outcome.status = JobStatus::Failed;
    outcome.failedRank = firstFailure_;
    outcome.message = describeExit(*firstFailure_);
    return outcome;
  }
  if (!isEmpty(lostHost_)) {
    outcome.status = JobStatus::Failed;
    outcome.message = lostHost_;
    return outcome;
  }
  if (stopRequested_) {
    outcome.status = JobStatus::Stopped;
    outcome.message = unconfirmedHosts_.empty()
                          ? outcomeSentence(text::kStoppedOnRequest)
                          : outcomeSentence(text::kStopNotConfirmed, {unconfirmedHosts_, kStopConfirmS});
    return outcome;
  }
  for (int rank = 0; rank < static_cast<int>(plan_.spec.world_size()); ++rank) {
    auto it = exits_.find(rank);
    if (it == exits_.end()) {
      outcome.status = JobStatus::Failed;
      outcome.message = outcomeSentence(text::kNeverReportedExit, {rank});
      return outcome;
    }
    if (it->second.exitCode != 0 || it->second.signal != 0) {
      outcome.status = JobStatus::Failed;
      outcome.failedRank = it->second;
      outcome.message = describeExit(it->second);
      return outcome;
    }
  }
  outcome.status = JobStatus::Succeeded;
  outcome.message = outcomeSentence(text::kEveryRankFinished);
  return outcome;
}

std::optional<JobOutcome> Launcher::waitFor(std::chrono::milliseconds timeout) {
  auto deadline = Clock::now() + timeout;
  std::unique_lock lock(mutex_);
  while (true) {
    JobOutcome outcome = outcomeLocked();
    if (outcome.status != JobStatus::Running) return outcome;
    auto now = Clock::now();
    if (now >= deadline) return std::nullopt;
    // A host that stays unreachable is given up on, and the rest of the job stopped.
    for (auto& host : hosts_) {
      auto since = host->follower ? host->follower->unreachableSince() : Clock::time_point{};
      if (!host->finished && since != Clock::time_point{} &&
          now - since > std::chrono::seconds(kHostLostAfterS)) {
        host->finished = true;
        if (isEmpty(lostHost_)) {
          lostHost_ =
              outcomeSentence(text::kLostHostSilent, {placements_[host->index].host, kHostLostAfterS});
        }
        lock.unlock();
        stopAllAfterFailure();
        lock.lock();
      }
    }
    if (stopRequested_ && now >= stopConfirmBy_) {
      std::vector<JournalFollower*> letGo;
      for (auto& host : hosts_) {
        if (host->finished) continue;
        host->finished = true;
        unconfirmedHosts_ += (unconfirmedHosts_.empty() ? "" : ", ") + placements_[host->index].host;
        if (host->follower) letGo.push_back(host->follower.get());
      }
      lock.unlock();
      for (auto* follower : letGo) follower->stop();
      lock.lock();
      continue;
    }
    changed_.wait_until(lock, std::min(deadline, now + std::chrono::milliseconds(250)));
  }
}

JobOutcome Launcher::wait() {
  while (true) {
    if (auto outcome = waitFor(std::chrono::hours(1))) return *outcome;
  }
}

}  // namespace ringmaster::console
