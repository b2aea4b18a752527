// SPDX-License-Identifier: GPL-3.0-or-later
#include "agent/agent.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <thread>

#include "agent/child_process.h"
#include "agent/launch_environment.h"
#include "agent/program_path.h"
#include "common/job_spec.h"

namespace ringmaster::agent {
namespace fs = std::filesystem;

bool sameSecret(const std::string& presented, const std::string& expected) {
  unsigned char diff = presented.size() == expected.size() ? 0 : 1;
  for (size_t i = 0; i < presented.size(); ++i) {
    diff |= static_cast<unsigned char>(presented[i] ^ expected[i % (expected.empty() ? 1 : expected.size())]);
  }
  return diff == 0 && !expected.empty();
}

Agent::Agent(AgentConfig config) : config_(std::move(config)) {
  // What a job's ranks leave running comes back to this process, which ends it with the job.
  becomeSubreaper();
  fs::create_directories(fs::path(config_.stateDir) / "jobs");
  if (!config_.anyFolder) allowedFolders_ = std::make_shared<const AllowedFolders>(config_.allowedFolders);
  pruneOldJournals();
}

int Agent::pruneOldJournals() {
  // Ages are compared in seconds as doubles: a retention or a file time beyond the clock's range of about 292
  // years cannot wrap around and make every journal look old. Not a positive number (0, NaN): keep them all.
  const double keepS = config_.keepJournalsDays * 86400.0;
  if (!(keepS > 0)) return 0;
  const auto secondsOf = [](fs::file_time_type time) {
    return std::chrono::duration<double>(time.time_since_epoch()).count();
  };
  const double now = secondsOf(fs::file_time_type::clock::now());
  int removed = 0;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(fs::path(config_.stateDir) / "jobs", ec)) {
    const std::string jobId = entry.path().filename().string();
    // A folder's age is its journal's last write; a folder without one (a launch that failed) goes by its
    // own.
    std::error_code timeError;
    auto written = fs::last_write_time(entry.path() / "journal", timeError);
    if (timeError) written = fs::last_write_time(entry.path(), timeError);
    if (timeError || now - secondsOf(written) <= keepS) continue;
    {
      std::lock_guard lock(mutex_);
      if (jobs_.count(jobId)) continue;  // launched by this agent: kept while it runs
      pastJournals_.erase(jobId);        // a watcher still streaming it keeps its open file
    }
    std::error_code removeError;
    if (fs::remove_all(entry.path(), removeError) > 0 && !removeError) ++removed;
  }
  return removed;
}

Agent::~Agent() {
  stopAll(1);
}

void Agent::setTelemetryAddress(const std::string& address) {
  std::lock_guard lock(mutex_);
  config_.telemetryAddress = address;
}

void Agent::setRankSocket(const std::string& path) {
  std::lock_guard lock(mutex_);
  config_.rankSocket = path;
}

v1::HostInfo Agent::hostInfo() {
  {
    std::lock_guard lock(mutex_);
    if (hostInfo_) return *hostInfo_;
  }
  v1::HostInfo info = collectHostInfo(config_.workerPath, config_.stateDir);
  info.set_runs_programs(true);
  info.set_any_program(config_.anyProgram);
  for (const auto& program : config_.allowedPrograms) info.add_allowed_programs(program);
  std::lock_guard lock(mutex_);
  hostInfo_ = info;
  return info;
}

grpc::Status Agent::checkFolders(const v1::JobSpec& spec, const std::string& hostname) const {
  const std::pair<const char*, const std::string*> named[] = {
      {"spec.data_dir", &spec.data_dir()},
      {"spec.checkpoint_dir", &spec.checkpoint_dir()},
      {"spec.program.working_dir", &spec.program().working_dir()},
      {"spec.model_path", &spec.model_path()}};
  if (config_.anyFolder) return grpc::Status::OK;  // the user's own agent: their folders are theirs
  const std::string where = "host " + hostname + ": ";
  for (const auto& [field, value] : named) {
    if (value->empty()) continue;
    const fs::path path(*value);
    if (!path.is_absolute()) {
      return grpc::Status(grpc::INVALID_ARGUMENT, where + field + " " + *value + " must be an absolute path");
    }
    for (const auto& part : path) {
      if (part == "..") {
        return grpc::Status(grpc::INVALID_ARGUMENT, where + field + " " + *value + ": '..' is not allowed");
      }
    }
    std::error_code ec;
    const fs::path resolved = fs::weakly_canonical(path, ec);
    const bool inside = !ec && std::any_of(config_.allowedFolders.begin(), config_.allowedFolders.end(),
                                           [&](const std::string& folder) {
                                             auto rel = resolved.lexically_relative(folder);
                                             return !rel.empty() && *rel.begin() != "..";
                                           });
    if (!inside) {
      std::string allowed;
      for (const auto& folder : config_.allowedFolders) allowed += " " + folder;
      return grpc::Status(grpc::PERMISSION_DENIED,
                          where + field + " " + *value +
                              " is outside the folders this agent lets jobs use (" + allowed.substr(1) +
                              "): its owner allows a folder by starting the agent with " +
                              "--allow-folder DIR, or choose a folder inside one of those");
    }
  }
  return grpc::Status::OK;
}

grpc::Status Agent::checkEnvironment(const v1::UserProgram& program, const std::string& hostname) const {
  if (config_.anyProgram) return grpc::Status::OK;  // the user's own agent runs their programs as they like
  for (int i = 0; i < program.environment_size(); ++i) {
    if (std::string refusal = environmentRefusal(program.environment(i), config_.allowedEnvironment);
        !refusal.empty()) {
      return grpc::Status(grpc::PERMISSION_DENIED, "host " + hostname + ": spec.program.environment[" +
                                                       std::to_string(i) + "] " + program.environment(i) +
                                                       ": " + refusal);
    }
  }
  return grpc::Status::OK;
}

grpc::Status Agent::checkProgram(const v1::UserProgram& program, const std::string& hostname,
                                 ProgramPath& checked) {
  const std::string where = "host " + hostname + ": ";
  const std::string& dir = program.working_dir();
  std::error_code ec;
  if (!dir.empty() && !fs::is_directory(dir, ec)) {
    return grpc::Status(grpc::FAILED_PRECONDITION, where + "the working folder " + dir +
                                                       " does not exist here: create it or choose another");
  }
  ProgramPath found;
  try {
    const char* searchPath = std::getenv("PATH");
    found = findProgram(program.argv(0), dir, searchPath ? searchPath : "");
  } catch (const std::exception& e) {
    return grpc::Status(grpc::FAILED_PRECONDITION, where + e.what());
  }
  const auto& allowed = config_.allowedPrograms;
  if (!config_.anyProgram && std::find(allowed.begin(), allowed.end(), found.resolved) == allowed.end()) {
    std::string message = where + "the agent does not run " + program.argv(0);
    if (found.resolved != program.argv(0)) message += " (" + found.resolved + ")";
    message += ": its owner allows a program by starting the agent with --allow-program " + found.path;
    if (!allowed.empty()) {
      message += " (it allows:";
      for (const auto& a : allowed) message += " " + a;
      message += ")";
    }
    return grpc::Status(grpc::PERMISSION_DENIED, message);
  }
  if (!program.uninstrumented() && config_.pythonRoot.empty()) {
    return grpc::Status(grpc::FAILED_PRECONDITION,
                        where +
                            "the ringmaster Python package is not installed beside this agent: reinstall "
                            "Ringmaster, or run the program without instrumentation (--no-instrument)");
  }
  checked = found;
  return grpc::Status::OK;
}

std::shared_ptr<Job> Agent::findJob(const std::string& jobId) {
  std::lock_guard lock(mutex_);
  auto it = jobs_.find(jobId);
  return it == jobs_.end() ? nullptr : it->second;
}

void Agent::launch(const v1::LaunchRequest& request,
                   std::function<void(const grpc::Status&, const v1::LaunchReply&)> done) {
  auto fail = [&](grpc::StatusCode code, const std::string& message) {
    done(grpc::Status(code, message), {});
  };
  if (auto problem = jobIdProblem(request.job_id()); !problem.empty()) {
    return fail(grpc::INVALID_ARGUMENT, "job_id " + problem);
  }
  if (auto problem = runIdProblem(request.run_id(), request.job_id()); !problem.empty()) {
    return fail(grpc::INVALID_ARGUMENT, "run_id " + request.run_id() + " " + problem);
  }
  if (!request.has_spec()) return fail(grpc::INVALID_ARGUMENT, "spec: a launch needs a job spec");
  if (auto errors = validateJobSpec(request.spec()); !errors.empty()) {
    std::string text;
    for (const auto& e : errors) text += (text.empty() ? "" : "; ") + ("spec." + e.field + ": " + e.message);
    return fail(grpc::INVALID_ARGUMENT, "invalid job spec: " + text);
  }
  const auto& r = request;
  if (r.world_size() != static_cast<int>(r.spec().world_size())) {
    return fail(grpc::INVALID_ARGUMENT, "world_size " + std::to_string(r.world_size()) +
                                            " differs from spec.world_size " +
                                            std::to_string(r.spec().world_size()));
  }
  if (r.local_ranks() < 1) return fail(grpc::INVALID_ARGUMENT, "local_ranks must be at least 1");
  if (r.first_rank() < 0 || r.first_rank() + r.local_ranks() > r.world_size()) {
    return fail(grpc::INVALID_ARGUMENT, "first_rank " + std::to_string(r.first_rank()) + " + local_ranks " +
                                            std::to_string(r.local_ranks()) + " exceeds world_size " +
                                            std::to_string(r.world_size()));
  }
  if (r.master_addr().empty()) return fail(grpc::INVALID_ARGUMENT, "master_addr must name rank 0's host");
  if (r.master_port() < 1 || r.master_port() > 65535) {
    return fail(grpc::INVALID_ARGUMENT, "master_port must be from 1 to 65535");
  }
  pruneOldJournals();
  v1::HostInfo host = hostInfo();
  if (grpc::Status status = checkFolders(r.spec(), host.hostname()); !status.ok()) return done(status, {});
  ProgramPath program;
  if (isUserProgram(r.spec())) {
    grpc::Status status = checkProgram(r.spec().program(), host.hostname(), program);
    if (status.ok()) status = checkEnvironment(r.spec().program(), host.hostname());
    if (!status.ok()) return done(status, {});
  }
  if (auto problem = checkHostCanRun(host, r.spec()); !problem.empty()) {
    return fail(grpc::FAILED_PRECONDITION, "host " + host.hostname() + " cannot run this job: " + problem);
  }

  fs::path directory = fs::path(config_.stateDir) / "jobs" / r.job_id();
  // A job that may restart checkpoints by default into its first attempt's folder, which every restart of
  // it on this host finds again.
  v1::LaunchRequest withCheckpoints;
  if (r.spec().max_restarts() > 0 && r.spec().checkpoint_dir().empty() && !isUserProgram(r.spec())) {
    withCheckpoints = r;
    const std::string runId = r.run_id().empty() ? r.job_id() : r.run_id();  // checked above
    withCheckpoints.mutable_spec()->set_checkpoint_dir(
        (fs::path(config_.stateDir) / "jobs" / runId / "checkpoints").string());
    // A restart resumes from there (from step 0 while there is no checkpoint yet).
    if (r.spec().restart_count() > 0) withCheckpoints.mutable_spec()->set_resume(true);
  }
  const v1::LaunchRequest& launched = withCheckpoints.has_spec() ? withCheckpoints : r;
  std::shared_ptr<Job> job;
  {
    std::lock_guard lock(mutex_);
    std::error_code ec;
    if (jobs_.count(r.job_id()) || fs::exists(directory, ec)) {
      return fail(grpc::ALREADY_EXISTS,
                  "job " + r.job_id() + " already exists on this host: choose a new job id");
    }
    if (!fs::create_directories(directory, ec)) {
      return fail(grpc::FAILED_PRECONDITION, "cannot create " + directory.string() + ": " + ec.message());
    }
    JobSetup setup{launched,
                   isUserProgram(r.spec()) ? program.path : config_.workerPath,
                   config_.telemetryAddress,
                   directory.string(),
                   host.hostname(),
                   config_.stopGraceS,
                   config_.pythonRoot};
    // The file that was allowed, whatever a link in the path the user gave points to by now.
    setup.executable = program.resolved;
    setup.allowedFolders = allowedFolders_;
    setup.allowedEnvironment = config_.allowedEnvironment;
    setup.anyEnvironment = config_.anyProgram;
    setup.rankSocket = config_.rankSocket;
    try {
      job = std::make_shared<Job>(std::move(setup));
    } catch (const std::exception& e) {
      return fail(grpc::FAILED_PRECONDITION, e.what());
    }
    jobs_[r.job_id()] = job;
  }
  job->start([done = std::move(done), hostname = host.hostname()](const StartResult& result) {
    if (!result.ok) {
      done(grpc::Status(grpc::FAILED_PRECONDITION, "host " + hostname + ": " + result.error), {});
      return;
    }
    v1::LaunchReply reply;
    for (int pid : result.pids) reply.add_pids(pid);
    done(grpc::Status::OK, reply);
  });
}

grpc::Status Agent::stop(const v1::StopRequest& request) {
  auto job = findJob(request.job_id());
  if (!job) return grpc::Status(grpc::NOT_FOUND, "no job " + request.job_id() + " runs on this host");
  if (request.grace_s() < 0) return grpc::Status(grpc::INVALID_ARGUMENT, "grace_s cannot be negative");
  job->stop(request.grace_s(), "stop requested");
  return grpc::Status::OK;
}

grpc::Status Agent::control(const v1::ControlRequest& request) {
  auto job = findJob(request.job_id());
  if (!job) return grpc::Status(grpc::NOT_FOUND, "no job " + request.job_id() + " runs on this host");
  if (request.rank() != -1 && !job->hasRank(request.rank())) {
    return grpc::Status(grpc::INVALID_ARGUMENT, "rank " + std::to_string(request.rank()) + " of job " +
                                                    request.job_id() + " is not on this host");
  }
  if (request.action() == v1::ControlRequest::ACTION_UNSPECIFIED ||
      !v1::ControlRequest::Action_IsValid(request.action())) {
    return grpc::Status(grpc::INVALID_ARGUMENT, "action " + std::to_string(request.action()) +
                                                    ": choose stop, timeline on/off or checkpoint now");
  }
  if (job->finished())
    return grpc::Status(grpc::FAILED_PRECONDITION, "job " + request.job_id() + " has finished");
  job->control(request.rank(), request.action());
  return grpc::Status::OK;
}

grpc::Status Agent::journalFor(const std::string& jobId, std::shared_ptr<Journal>& journal) {
  if (auto problem = jobIdProblem(jobId); !problem.empty()) {
    return grpc::Status(grpc::INVALID_ARGUMENT, "job_id " + problem);
  }
  if (auto job = findJob(jobId)) {
    journal = job->sharedJournal();
    return grpc::Status::OK;
  }
  std::lock_guard lock(mutex_);
  if (auto it = pastJournals_.find(jobId); it != pastJournals_.end()) {
    journal = it->second;
    return grpc::Status::OK;
  }
  fs::path path = fs::path(config_.stateDir) / "jobs" / jobId / "journal";
  std::error_code ec;
  if (!fs::exists(path, ec)) return grpc::Status(grpc::NOT_FOUND, "no job " + jobId + " ran on this host");
  try {
    journal = Journal::openFinished(path.string());
  } catch (const std::exception& e) {
    return grpc::Status(grpc::DATA_LOSS, e.what());
  }
  pastJournals_[jobId] = journal;
  return grpc::Status::OK;
}

grpc::Status Agent::reportTarget(const std::string& jobId, int rank, const std::string& secret, Job*& job) {
  auto found = findJob(jobId);
  if (!found)
    return grpc::Status(grpc::NOT_FOUND, "no job " + jobId + " runs on this host (RINGMASTER_JOB_ID)");
  if (!found->hasRank(rank)) {
    return grpc::Status(grpc::INVALID_ARGUMENT,
                        "rank " + std::to_string(rank) + " is not part of job " + jobId + " here");
  }
  if (!sameSecret(secret, found->secretOf(rank))) {
    return grpc::Status(grpc::PERMISSION_DENIED,
                        "the secret presented is not rank " + std::to_string(rank) + "'s of job " + jobId +
                            ": each rank reports as itself only (RINGMASTER_JOB_SECRET)");
  }
  if (found->finished()) return grpc::Status(grpc::FAILED_PRECONDITION, "job " + jobId + " has finished");
  job = found.get();
  return grpc::Status::OK;
}

void Agent::stopAll(double graceS) {
  std::vector<std::shared_ptr<Job>> jobs;
  {
    std::lock_guard lock(mutex_);
    for (auto& [id, job] : jobs_) jobs.push_back(job);
  }
  for (auto& job : jobs) job->stop(graceS, "the agent is shutting down");
  for (auto& job : jobs) {
    while (!job->finished()) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

}  // namespace ringmaster::agent
