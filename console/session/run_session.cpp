// SPDX-License-Identifier: GPL-3.0-or-later
#include "console/session/run_session.h"

#include <algorithm>
#include <set>
#include <thread>
#include <utility>

#include "common/clock.h"
#include "common/error.h"
#include "common/job_spec.h"
#include "common/sentence.h"
#include "console/hosts/host_facts.h"
#include "console/session/ingest.h"
#include "console/session/outcome_text.h"
#include "console/session/run_summary.h"
#include "console/session/timeline_sink.h"
#include "console/slurm/slurm_job.h"
#include "diagnosis/advice.h"
#include "diagnosis/evidence_keys.h"
#include "diagnosis/summary_text.h"
#include "ringmaster/version.h"

namespace ringmaster::console {
namespace {

using namespace std::chrono_literals;

// How often a Slurm job's state is asked for while its ranks run, and how long its agents' last records are
// waited for once Slurm has ended it.
constexpr auto kSlurmCheckEvery = 2s;
constexpr auto kSlurmEndGrace = 5s;
// Steps between checkpoints when restarts are allowed and --checkpoint-every does not say: a restart then
// redoes at most this many steps (seconds for the small models, a few minutes for resnet50 on a CPU), while a
// checkpoint (one file written by rank 0) costs a small fraction of the steps between two.
constexpr uint64_t kRestartCheckpointEvery = 100;
// How long a restart waits for each host's agent to answer before --min-ranks leaves the host out.
constexpr auto kHostProbeTimeout = 5s;

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
  if (plan_.spec.max_restarts() > 0 && !isUserProgram(plan_.spec) && plan_.spec.checkpoint_every() == 0)
    plan_.spec.set_checkpoint_every(kRestartCheckpointEvery);
}

RunSession::~RunSession() {
  {
    std::lock_guard lock(mutex_);
    if (launched_ && !finished_ && !detached_) launcher_->stop(2);
  }
  // The launcher's threads call the sinks, which use the store and the diagnosis: end them first.
  launcher_.reset();
  retired_.clear();
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
  Launcher::check(plan_);  // a plan refused as it stands leaves nothing in the history
  NewRun run;
  run.name = runName(plan_);
  run.spec = withSecretsMasked(plan_.spec);
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
    auto launcher = makeLauncher(plan_);
    attemptPlan_ = plan_;
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

std::unique_ptr<Launcher> RunSession::makeLauncher(LaunchPlan plan) {
  auto launcher = std::make_unique<Launcher>(std::move(plan));
  launcher->addSink(ingest_.get());
  launcher->addSink(&progress_);
  launcher->addSink(summary_.get());
  if (timeline_) launcher->addSink(timeline_.get());
  for (RecordSink* sink : extraSinks_) launcher->addSink(sink);
  return launcher;
}

Launcher* RunSession::launcher() const {
  std::lock_guard lock(mutex_);
  return launcher_.get();
}

void RunSession::recordEnvironment() {
  HostFacts environment{{"ringmaster (console)", RINGMASTER_VERSION}};
  std::set<std::string> torch, versions;
  std::map<std::string, HostFacts> hosts;
  for (const HostPlacement& p : launcher()->placements()) {
    hosts[p.host] = hostFacts(p.info);
    if (!p.info.torch_version().empty()) torch.insert(p.info.torch_version());
    if (!p.info.ringmaster_version().empty()) versions.insert(p.info.ringmaster_version());
  }
  auto joined = [](const std::set<std::string>& values) {
    std::string text;
    for (const auto& v : values) text += (text.empty() ? "" : ", ") + v;
    return text;
  };
  // A user's program brings its own torch, which its ranks report (RankRuntime); the hosts' LibTorch is the
  // worker's.
  if (!torch.empty() && !isUserProgram(plan_.spec)) environment["libtorch"] = joined(torch);
  if (!versions.empty()) environment["ringmaster (hosts)"] = joined(versions);
  environment["hosts"] = std::to_string(hosts.size());
  for (const auto& [key, value] : plan_.facts) environment[key] = value;
  ingest_->recordEnvironment(environment, hosts);
}

std::optional<JobOutcome> RunSession::waitFor(std::chrono::milliseconds timeout) {
  auto outcome = launcher()->waitFor(timeout);
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
  bool restart = false;
  {
    std::lock_guard lock(mutex_);
    if (!isEmpty(stalledStop_) && outcome->status == JobStatus::Stopped) {
      outcome->status = JobStatus::Failed;
      outcome->message = stalledStop_;
    }
    restart = outcome->status == JobStatus::Failed && !stopRequested_ && !detached_ && !finished_ &&
              !slurmEndedAt_ && restarts_ < static_cast<int>(plan_.spec.max_restarts());
    if (outcome->status == JobStatus::Failed && !restart && restarts_ > 0) {
      const uint32_t max = plan_.spec.max_restarts();
      outcome->message = restarts_ == 1
                             ? outcomeSentence(text::kAfterOneRestart, {outcome->message, max})
                             : outcomeSentence(text::kAfterRestarts, {outcome->message, restarts_, max});
    }
  }
  if (restart) return restartAfter(*outcome);
  return outcome;
}

std::optional<JobOutcome> RunSession::restartAfter(const JobOutcome& failed) {
  const int number = restarts_ + 1;
  const uint32_t max = plan_.spec.max_restarts();
  const std::string ofMax = std::to_string(number) + " of " + std::to_string(max);
  v1::Finding finding;
  finding.set_kind(v1::Finding::KIND_RESTART);
  finding.set_severity(v1::Finding::SEVERITY_WARNING);
  finding.set_rank(-1);
  auto& evidence = *finding.mutable_evidence();
  evidence[diagnosis::evidence::kRestart] = number;
  {
    std::lock_guard lock(mutex_);
    if (failed.failedRank) {
      const RankExit& e = *failed.failedRank;
      finding.set_rank(e.rank);
      finding.set_host(e.host);
      finding.set_cause(e.signal != 0 ? "signal" : "exit");
      if (e.signal != 0) evidence[diagnosis::evidence::kSignal] = e.signal;
      if (e.exitCode != 0) evidence[diagnosis::evidence::kExitCode] = e.exitCode;
    } else if (stalledWhy_) {
      finding.set_rank(stalledWhy_->rank());
      finding.set_host(stalledWhy_->host());
      finding.set_cause("stall");
    } else {
      finding.set_cause("lost host");
    }
  }
  LaunchPlan next = attemptPlan_;
  next.runId = plan_.jobId;
  next.jobId = restartJobId(plan_.jobId, static_cast<unsigned>(number));
  next.attach = false;
  v1::JobSpec& spec = next.spec;
  // --min-ranks: the hosts whose agents are gone are left out, and the job goes on with fewer ranks when
  // enough remain. Without it a gone host makes the restart fail to start, which ends the job.
  std::string shrunk;
  std::string goneHosts;
  if (plan_.spec.min_ranks() > 0 && !next.hosts.empty()) {
    const std::vector<std::string> gone = launcher()->unreachableHosts(kHostProbeTimeout);
    if (!gone.empty()) {
      std::vector<HostSlots> remaining;
      int slots = 0;
      for (const HostSlots& h : next.hosts) {
        if (std::find(gone.begin(), gone.end(), h.host) != gone.end()) continue;
        remaining.push_back(h);
        slots += h.slots;
      }
      const int ranks = std::min(slots, static_cast<int>(next.spec.world_size()));
      std::string names;
      for (const auto& host : gone) names += (names.empty() ? "" : ", ") + host;
      if (ranks < static_cast<int>(plan_.spec.min_ranks())) {
        return JobOutcome{
            JobStatus::Failed,
            outcomeSentence(text::kFewerThanMinRanks, {failed.message, names, ranks, plan_.spec.min_ranks()}),
            failed.failedRank};
      }
      next.hosts = remaining;
      spec.set_world_size(static_cast<uint32_t>(ranks));
      shrunk = " on " + std::to_string(ranks) + " ranks (host " + names + " gone)";
      evidence[diagnosis::evidence::kWorldSize] = ranks;
      goneHosts = names;
      if (finding.host().empty()) finding.set_host(names);
    }
  }
  // The summary and, once the new attempt's first step says where it resumed, the same with that step: both
  // sentences of how runs end, the failure's own sentence inside.
  std::vector<Figure> args{number, max, failed.message};
  if (!shrunk.empty()) {
    args.emplace_back(spec.world_size());
    args.emplace_back(goneHosts);
  }
  diagnosis::setSummary(
      finding, outcomeSentence(shrunk.empty() ? text::kRestartAfter : text::kRestartAfterOnRanks, args));
  diagnosis::addAdvice(finding);
  ingest_->restarted(finding, static_cast<int>(spec.world_size()), [args, shrunk](uint64_t step) {
    std::vector<Figure> withStep = args;
    withStep.emplace_back(step);
    return outcomeSentence(shrunk.empty() ? text::kRestartAfterResumed : text::kRestartAfterOnRanksResumed,
                           withStep);
  });
  spec.set_restart_count(static_cast<uint32_t>(number));
  // Without a folder of the user's, the agents resume from their default one (see the agent's Launch).
  if (!spec.checkpoint_dir().empty()) spec.set_resume(true);
  // An injected crash or hang happens in the first attempt only: a restart that met it again would loop.
  spec.mutable_faults()->clear_crashes();
  spec.mutable_faults()->clear_hangs();
  std::unique_ptr<Launcher> launcher = makeLauncher(next);
  attemptPlan_ = std::move(next);
  std::lock_guard lock(mutex_);
  restarts_ = number;
  restartLines_.push_back("restart " + ofMax + ": " + toText(failed.message) + "; starting every rank again" +
                          shrunk + " from the last checkpoint");
  if (stopRequested_)
    return JobOutcome{JobStatus::Stopped, outcomeSentence(text::kStoppedOnRequest), std::nullopt};
  stalledStop_.Clear();
  stalledWhy_.reset();
  retired_.push_back(std::move(launcher_));
  launcher_ = std::move(launcher);
  try {
    launcher_->start();
  } catch (const std::exception& e) {
    return JobOutcome{JobStatus::Failed,
                      outcomeSentence(text::kRestartCouldNotStart, {number, max, e.what()}),
                      failed.failedRank};
  }
  return std::nullopt;
}

std::string RunSession::checkSlurm() {
  const SlurmJobState state = slurm_->state();
  if (state.state.empty() || !slurmJobEnded(state.state)) return state.state;
  slurmEndedAt_ = std::chrono::steady_clock::now();
  slurmEnd_ = state.state + (state.reason.empty() || state.reason == "None" ? "" : " (" + state.reason + ")");
  if (const Sentence cause = slurmEndCause(state.state); !isEmpty(cause)) {
    v1::Finding finding;
    finding.set_kind(v1::Finding::KIND_CRASH);
    finding.set_severity(v1::Finding::SEVERITY_CRITICAL);
    finding.set_rank(-1);
    finding.set_cause("slurm");
    diagnosis::setSummary(
        finding, diagnosis::say(diagnosis::text::kSlurmEndedJob, {cause, slurm_->slurmJobId(), state.state}));
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
  return JobOutcome{JobStatus::Failed,
                    outcomeSentence(text::kSlurmEndedJob, {slurm_->slurmJobId(), slurmEnd_}), std::nullopt};
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
    if (auto quiet = f.evidence().find(diagnosis::evidence::kQuietS);
        quiet != f.evidence().end() && !f.evidence().count(diagnosis::evidence::kResumed))
      stalledS = std::max(stalledS, quiet->second);
    if (auto waited = f.evidence().find(diagnosis::evidence::kWaitedS); waited != f.evidence().end())
      stalledS = std::max(stalledS, waited->second);
    if (!why || (f.rank() >= 0 && why->rank() < 0)) why = &f;
  }
  if (!why || stalledS < limitS) return;
  std::lock_guard lock(mutex_);
  if (!isEmpty(stalledStop_) || finished_ || detached_) return;
  // A finding stored by an older console has no sentence: its English goes in as it is.
  const Figure stall = why->has_sentence() ? Figure(why->sentence()) : Figure(why->summary());
  stalledStop_ = outcomeSentence(text::kStoppedAfterStall, {formatNumber(limitS), stall});
  stalledWhy_ = *why;
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
  result.recordsNotStored = ingest_->recordsLost();
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
  return launcher()->control(action);
}

void RunSession::dropConnections() {
  if (!started()) return;
  Launcher* current = launcher();
  for (size_t host = 0; host < current->placements().size(); ++host) current->follower(host).dropConnection();
}

void RunSession::addFinding(const v1::Finding& finding) {
  v1::Record record;
  *record.mutable_finding() = finding;
  ingest_->add({record}, finding.host());
}

std::vector<v1::Finding> RunSession::findings() const {
  return findingsAsOf(monotonicNs());
}

std::vector<v1::Finding> RunSession::findingsAsOf(int64_t nowNs) const {
  return ingest_ ? ingest_->findingsAsOf(nowNs) : std::vector<v1::Finding>{};
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
  return started() ? launcher()->placements() : none;
}

int RunSession::restarts() const {
  std::lock_guard lock(mutex_);
  return restarts_;
}

std::vector<std::string> RunSession::restartLines() const {
  std::lock_guard lock(mutex_);
  return restartLines_;
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
