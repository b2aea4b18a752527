// SPDX-License-Identifier: GPL-3.0-or-later
#include "console/run_session.h"

#include <algorithm>
#include <set>
#include <thread>
#include <utility>

#include "common/error.h"
#include "common/job_spec.h"
#include "console/host_facts.h"
#include "console/ingest.h"
#include "console/run_summary.h"
#include "console/slurm_job.h"
#include "console/timeline_sink.h"
#include "ringmaster/version.h"

namespace ringmaster::console {
namespace {

using namespace std::chrono_literals;

// How often a Slurm job's state is asked for while its ranks run, and how long its agents' last records are
// waited for once Slurm has ended it.
constexpr auto kSlurmCheckEvery = 2s;
constexpr auto kSlurmEndGrace = 5s;

v1::JobSpec withDefaults(v1::JobSpec spec) {
  applyDefaults(spec);
  return spec;
}

}  // namespace

std::string runName(const LaunchPlan& plan) {
  if (!plan.spec.name().empty()) return plan.spec.name();
  if (!plan.jobId.empty()) return plan.jobId;
  if (isUserProgram(plan.spec))
    return programName(plan.spec.program()) + " x" + std::to_string(plan.spec.world_size());
  return modelLabel(plan.spec) + " " + std::string(engineName(plan.spec.engine())) + " x" +
         std::to_string(plan.spec.world_size());
}

RunSession::RunSession(LaunchPlan plan, RunSessionOptions options)
    : plan_(std::move(plan)), options_(std::move(options)), progress_(withDefaults(plan_.spec)) {
  if (plan_.jobId.empty()) plan_.jobId = newJobId();
}

RunSession::~RunSession() {
  {
    std::lock_guard lock(mutex_);
    if (launched_ && !finished_ && !detached_) launcher_->stop(2);
  }
  // The launcher's threads call the sinks, which use the store and the diagnosis: end them first.
  launcher_.reset();
}

void RunSession::addSink(RecordSink* sink) {
  extraSinks_.push_back(sink);
}

void RunSession::followSlurmJob(SlurmJob* job) {
  slurm_ = job;
}

void RunSession::start() {
  try {
    startLaunch();
  } catch (...) {
    if (slurm_) {
      try {
        slurm_->cancel();
      } catch (const SlurmError&) {
        // The launch's own error says more; the job ends at its time limit in any case.
      }
    }
    throw;
  }
  nextSlurmCheck_ = std::chrono::steady_clock::now() + kSlurmCheckEvery;
}

void RunSession::startLaunch() {
  const v1::JobSpec spec = withDefaults(plan_.spec);
  NewRun run;
  run.name = runName(plan_);
  run.spec = plan_.spec;
  run.worldSize = static_cast<int>(plan_.spec.world_size());
  run.environment["ringmaster (console)"] = RINGMASTER_VERSION;
  try {
    ingest_ = std::make_unique<RunIngest>(options_.storePath, run);
  } catch (const std::exception& e) {
    throw InputError("the run history " + options_.storePath + ": " + e.what());
  }
  runId_ = ingest_->runId();
  try {
    summary_ = std::make_unique<RunSummaryBuilder>(spec);
    if (!options_.timeline.empty()) timeline_ = std::make_unique<TimelineSink>(options_.timeline);
    auto launcher = std::make_unique<Launcher>(plan_);
    launcher->addSink(ingest_.get());
    launcher->addSink(&progress_);
    launcher->addSink(summary_.get());
    if (timeline_) launcher->addSink(timeline_.get());
    for (RecordSink* sink : extraSinks_) launcher->addSink(sink);
    std::lock_guard lock(mutex_);
    launcher_ = std::move(launcher);
    launcher_->start();
    launched_ = true;
  } catch (...) {
    ingest_->finish(std::string(statusName(JobStatus::Failed)));
    throw;
  }
  recordEnvironment();
}

void RunSession::recordEnvironment() {
  HostFacts environment{{"ringmaster (console)", RINGMASTER_VERSION}};
  std::set<std::string> torch, versions;
  std::map<std::string, HostFacts> hosts;
  for (const HostPlacement& p : launcher_->placements()) {
    hosts[p.host] = hostFacts(p.info);
    if (!p.info.torch_version().empty()) torch.insert(p.info.torch_version());
    if (!p.info.ringmaster_version().empty()) versions.insert(p.info.ringmaster_version());
  }
  auto joined = [](const std::set<std::string>& values) {
    std::string text;
    for (const auto& v : values) text += (text.empty() ? "" : ", ") + v;
    return text;
  };
  if (!torch.empty()) environment["libtorch"] = joined(torch);
  if (!versions.empty()) environment["ringmaster (hosts)"] = joined(versions);
  environment["hosts"] = std::to_string(hosts.size());
  for (const auto& [key, value] : plan_.facts) environment[key] = value;
  ingest_->recordEnvironment(environment, hosts);
}

std::optional<JobOutcome> RunSession::waitFor(std::chrono::milliseconds timeout) {
  auto outcome = launcher_->waitFor(timeout);
  if (!outcome) {
    ingest_->tick();
    stopWhenStalledTooLong();
    return slurm_ ? followSlurm() : outcome;
  }
  bool stopRequested = false;
  {
    std::lock_guard lock(mutex_);
    stopRequested = stopRequested_;
  }
  // Ranks that failed may have been ended by Slurm (a time limit signals every process of the job): a job
  // Slurm is ending is waited for, so that the finding says so.
  if (slurm_ && !slurmEndedAt_ && outcome->status == JobStatus::Failed && !stopRequested) {
    const auto until = std::chrono::steady_clock::now() + 3 * kSlurmEndGrace;
    for (std::string state = checkSlurm();
         !slurmEndedAt_ && state != "RUNNING" && !state.empty() && std::chrono::steady_clock::now() < until;
         state = checkSlurm()) {
      std::this_thread::sleep_for(500ms);
    }
  }
  std::lock_guard lock(mutex_);
  if (!stalledStop_.empty() && outcome->status == JobStatus::Stopped) {
    outcome->status = JobStatus::Failed;
    outcome->message = stalledStop_;
  }
  return outcome;
}

std::string RunSession::checkSlurm() {
  const SlurmJobState state = slurm_->state();
  if (state.state.empty() || !slurmJobEnded(state.state)) return state.state;
  slurmEndedAt_ = std::chrono::steady_clock::now();
  slurmEnd_ = state.state + (state.reason.empty() || state.reason == "None" ? "" : " (" + state.reason + ")");
  if (const std::string cause = slurmEndCause(state.state); !cause.empty()) {
    v1::Finding finding;
    finding.set_kind(v1::Finding::KIND_CRASH);
    finding.set_severity(v1::Finding::SEVERITY_CRITICAL);
    finding.set_rank(-1);
    finding.set_cause("slurm");
    finding.set_summary(cause + " (Slurm job " + slurm_->slurmJobId() + ": " + state.state + ")");
    addFinding(finding);
  }
  return state.state;
}

std::optional<JobOutcome> RunSession::followSlurm() {
  const auto now = std::chrono::steady_clock::now();
  if (now < nextSlurmCheck_) return std::nullopt;
  nextSlurmCheck_ = now + kSlurmCheckEvery;
  if (!slurmEndedAt_) {
    checkSlurm();
    return std::nullopt;
  }
  if (now - *slurmEndedAt_ < kSlurmEndGrace) return std::nullopt;
  // Slurm ended the job and its agents with it: what they had to say has arrived.
  detach();
  return JobOutcome{JobStatus::Failed, "Slurm ended job " + slurm_->slurmJobId() + ": " + slurmEnd_,
                    std::nullopt};
}

void RunSession::stopWhenStalledTooLong() {
  const double limitS = plan_.spec.stall_timeout_s();
  if (!(limitS > 0)) return;
  // How long the job has stalled: the critical stall findings measured from progress and heartbeats
  // (quiet_s, while not resumed) and the Horovod engine's stall reports (waited_s: how long the ready ranks
  // have waited for the missing ones; the session looks every fraction of a second, so a report's wait is
  // seen while it grows). Why: the finding that names a rank (which rank holds the others up, which tensors
  // it lacks), else the job-wide one.
  double stalledS = 0;
  const v1::Finding* why = nullptr;
  const std::vector<v1::Finding> findings = ingest_->findings();
  for (const auto& f : findings) {
    if (f.kind() != v1::Finding::KIND_STALL || f.severity() != v1::Finding::SEVERITY_CRITICAL) continue;
    if (auto quiet = f.evidence().find("quiet_s");
        quiet != f.evidence().end() && !f.evidence().count("resumed"))
      stalledS = std::max(stalledS, quiet->second);
    if (auto waited = f.evidence().find("waited_s"); waited != f.evidence().end())
      stalledS = std::max(stalledS, waited->second);
    if (!why || (f.rank() >= 0 && why->rank() < 0)) why = &f;
  }
  if (!why || stalledS < limitS) return;
  std::lock_guard lock(mutex_);
  if (!stalledStop_.empty() || finished_ || detached_) return;
  const std::string seconds = formatNumber(limitS);
  stalledStop_ =
      "stopped after a stall of " + seconds + " s (--stall-timeout-s " + seconds + "): " + why->summary();
  launcher_->stop(5);
}

RunResult RunSession::finish(const JobOutcome& outcome) {
  RunResult result;
  result.outcome = outcome;
  result.status = std::string(statusName(outcome.status));
  {
    std::lock_guard lock(mutex_);
    finished_ = true;
  }
  try {
    ingest_->finish(result.status);
  } catch (const std::exception& e) {
    result.problems.push_back(std::string("the run history: ") + e.what());
  }
  if (const std::string problem = ingest_->storeProblem(); !problem.empty()) {
    result.problems.push_back("the run history: " + problem);
  }
  result.findings = ingest_->findings();
  if (slurm_ && outcome.status != JobStatus::Detached && !slurmEndedAt_) {
    bool stopRequested = false;
    {
      std::lock_guard lock(mutex_);
      stopRequested = stopRequested_;
    }
    try {
      if (stopRequested) {
        slurm_->cancel();
        result.notes.push_back("cancelled Slurm job " + slurm_->slurmJobId());
      } else {
        slurm_->release();
      }
    } catch (const SlurmError& e) {
      result.problems.push_back(e.what());
    }
  }
  if (!options_.summaryJson.empty()) {
    try {
      summary_->writeJson(options_.summaryJson, plan_.jobId, outcome, result.findings);
    } catch (const std::exception& e) {
      result.problems.push_back(e.what());
    }
  }
  return result;
}

void RunSession::stop(double graceS) {
  std::lock_guard lock(mutex_);
  // A detached job trains on: it is no longer this console's to stop.
  if (detached_) return;
  stopRequested_ = true;
  if (launched_) launcher_->stop(graceS);
}

bool RunSession::detach() {
  std::lock_guard lock(mutex_);
  if (!launched_ || finished_ || !launcher_->detach()) return false;
  detached_ = true;
  return true;
}

std::string RunSession::control(v1::ControlRequest::Action action) {
  if (!started()) return "the run is not running";
  return launcher_->control(action);
}

void RunSession::dropConnections() {
  if (!started()) return;
  for (size_t host = 0; host < launcher_->placements().size(); ++host)
    launcher_->follower(host).dropConnection();
}

void RunSession::addFinding(const v1::Finding& finding) {
  v1::Record record;
  *record.mutable_finding() = finding;
  ingest_->add({record}, finding.host());
}

std::vector<v1::Finding> RunSession::findings() const {
  return ingest_ ? ingest_->findings() : std::vector<v1::Finding>{};
}

bool RunSession::started() const {
  std::lock_guard lock(mutex_);
  return launched_;
}

const std::string& RunSession::jobId() const {
  return plan_.jobId;
}

const std::vector<HostPlacement>& RunSession::placements() const {
  static const std::vector<HostPlacement> none;
  return started() ? launcher_->placements() : none;
}

std::vector<std::string> RunSession::placementLines() const {
  std::vector<std::string> lines;
  for (const auto& p : placements()) {
    lines.push_back(p.host + " (ranks " + std::to_string(p.firstRank) + "-" +
                    std::to_string(p.firstRank + p.localRanks - 1) + ")");
  }
  return lines;
}

}  // namespace ringmaster::console
