// SPDX-License-Identifier: GPL-3.0-or-later
#include "cli/run_command.h"

#include <unistd.h>

#include <cstdio>
#include <deque>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <thread>

#include "cli/interrupts.h"
#include "common/error.h"
#include "common/job_spec.h"
#include "common/printable.h"
#include "console/session/outcome_text.h"
#include "console/session/run_flags.h"
#include "console/session/run_progress.h"
#include "console/session/run_session.h"
#include "console/session/store_location.h"
#include "console/slurm/slurm_job.h"
#include "diagnosis/advice.h"
#include "diagnosis/duration_text.h"
#include "diagnosis/finding.h"

namespace ringmaster::cli {
namespace {

using namespace std::chrono_literals;

// What ranks and agents say that a person should see: errors, warnings, the agent's own notes, and a
// program's own output (a built-in rank's stdout is the progress the display already shows).
class LinePrinter : public console::RecordSink {
 public:
  explicit LinePrinter(bool withStdout) : withStdout_(withStdout) {}
  void onRecords(const std::string&, const std::string&, const std::vector<v1::Record>& records) override {
    std::lock_guard lock(mutex_);
    for (const auto& r : records) {
      if (!r.has_log() || (r.log().stream() == v1::LogLine::STREAM_STDOUT && !withStdout_)) continue;
      std::string who = r.log().rank() >= 0 ? "[rank " + std::to_string(r.log().rank()) + "] " : "[agent] ";
      lines_.push_back(who + printable(r.log().text()));
    }
  }
  std::deque<std::string> take() {
    std::lock_guard lock(mutex_);
    return std::exchange(lines_, {});
  }

 private:
  const bool withStdout_;
  std::mutex mutex_;
  std::deque<std::string> lines_;
};

// Each finding when it is found, and again when it becomes more severe, so that a person at the terminal
// hears of a stall while it lasts; the run's final diagnosis is printed at its end.
class FindingAnnouncer {
 public:
  void add(const std::vector<v1::Finding>& findings, std::deque<std::string>& lines) {
    for (const auto& f : findings) {
      auto [told, added] = told_.try_emplace({f.kind(), f.rank()}, f.severity());
      if (!added && f.severity() <= told->second) continue;
      told->second = f.severity();
      lines.push_back("found (" + std::string(diagnosis::severityLabel(f.severity())) +
                      "): " + printable(f.summary()));
    }
  }

 private:
  std::map<std::pair<int, int>, int> told_;  // (kind, rank) -> the severity last printed
};

// The live display: a redrawn block on a terminal, a plain line every few seconds otherwise.
class ProgressDisplay {
 public:
  explicit ProgressDisplay(bool terminal) : terminal_(terminal) {}

  void show(const console::ProgressSnapshot& snap, std::deque<std::string> lines) {
    std::ostringstream out;
    if (terminal_) erase(out);
    for (const auto& line : lines) out << line << "\n";
    if (terminal_) {
      drawn_ = draw(out, snap);
    } else if (std::chrono::steady_clock::now() >= nextPlain_ && snap.step > 0 &&
               snap.step != lastPlainStep_) {
      out << headline(snap) << "\n";
      lastPlainStep_ = snap.step;
      nextPlain_ = std::chrono::steady_clock::now() + 5s;
    }
    std::cout << out.str() << std::flush;
  }

  void finish(const console::ProgressSnapshot& snap, std::deque<std::string> lines) {
    std::ostringstream out;
    if (terminal_) erase(out);
    for (const auto& line : lines) out << line << "\n";
    if (terminal_) {
      draw(out, snap);
    } else {
      out << headline(snap) << "\n";
    }
    drawn_ = 0;
    std::cout << out.str() << std::flush;
  }

 private:
  void erase(std::ostringstream& out) {
    for (int i = 0; i < drawn_; ++i) out << "\x1b[1A\r\x1b[2K";
    drawn_ = 0;
  }

  static std::string headline(const console::ProgressSnapshot& snap) {
    std::ostringstream line;
    line << "step " << snap.step << (snap.totalSteps ? "/" + std::to_string(snap.totalSteps) : "") << "  "
         << std::fixed << std::setprecision(0) << snap.samplesPerS << " samples/s  loss "
         << std::setprecision(4) << snap.loss;
    if (snap.totalSteps) line << "  ETA " << (snap.etaS < 0 ? "?" : formatElapsed(snap.etaS));
    return line.str();
  }

  static int draw(std::ostringstream& out, const console::ProgressSnapshot& snap) {
    const int width = 24;
    double fraction = snap.totalSteps ? std::min(1.0, static_cast<double>(snap.step) / snap.totalSteps) : 0;
    int filled = static_cast<int>(fraction * width);
    out << "[" << std::string(filled, '#') << std::string(width - filled, '-') << "] " << headline(snap)
        << "\n";
    out << "  rank  host              step  samples/s  compute ms  comm ms   rss MB  state\n";
    int lines = 2;
    const size_t shown = 16;
    for (size_t i = 0; i < snap.ranks.size() && i < shown; ++i) {
      const auto& r = snap.ranks[i];
      char row[160];
      std::snprintf(row, sizeof row, "  %4d  %-16.16s %5llu  %9.0f  %10.1f  %7.1f  %7.0f  %s\n", r.rank,
                    printable(r.host).c_str(), static_cast<unsigned long long>(r.step), r.samplesPerS,
                    r.computeMs, r.commWaitMs, r.rssMb, r.state.c_str());
      out << row;
      ++lines;
    }
    if (snap.ranks.size() > shown) {
      out << "  ... and " << snap.ranks.size() - shown << " more ranks\n";
      ++lines;
    }
    return lines;
  }

  const bool terminal_;
  int drawn_ = 0;
  uint64_t lastPlainStep_ = 0;
  std::chrono::steady_clock::time_point nextPlain_{};
};

// ringmaster-agent beside this program: the nodes of a Slurm job run it from the same (shared) install.
std::string agentBesideThisProgram() {
  char self[4096] = {};
  const ssize_t n = ::readlink("/proc/self/exe", self, sizeof self - 1);
  const std::string path = n > 0 ? std::string(self, static_cast<size_t>(n)) : std::string("ringmaster");
  return path.substr(0, path.rfind('/') + 1) + "ringmaster-agent";
}

// Waits for a Slurm job's agents, saying its queue state; Ctrl-C gives up and cancels the job.
std::optional<console::LaunchPlan> agentsOf(console::SlurmJob& slurm, const std::string& command) {
  try {
    return slurm.waitForAgents(
        [&command](const std::string& line) { std::cerr << command << ": " << line << std::endl; },
        [] { return interruptCount() == 0; });
  } catch (const console::SlurmError& e) {
    if (interruptCount() > 0) {
      std::cerr << "\n" << command << ": cancelling Slurm job " << slurm.slurmJobId() << "\n";
    } else {
      std::cerr << command << ": " << e.what() << "\n";
    }
    try {
      slurm.cancel();
    } catch (const console::SlurmError& cancelError) {
      std::cerr << command << ": " << cancelError.what() << "\n";
    }
    return std::nullopt;
  }
}

// Runs `plan` to its end with the live display; `slurm` (may be null) is the Slurm job its agents run in.
int watchRun(console::LaunchPlan plan, const console::RunSessionOptions& options, const std::string& timeline,
             console::SlurmJob* slurm, const std::string& command) {
  const bool userProgram = isUserProgram(plan.spec);
  const int ranks = static_cast<int>(plan.spec.world_size());
  console::RunSession session(std::move(plan), options);
  LinePrinter printer(userProgram);
  session.addSink(&printer);
  if (slurm) session.followSlurmJob(slurm);

  try {
    session.start();
  } catch (const console::LaunchError& e) {
    std::cerr << command << ": " << e.what() << "\n";
    return 1;
  }
  std::cerr << command << ": job " << session.jobId() << ": " << ranks << " rank" << (ranks == 1 ? "" : "s")
            << " on";
  for (const auto& line : session.placementLines()) std::cerr << " " << line;
  std::cerr << std::endl;

  ProgressDisplay display(::isatty(STDOUT_FILENO));
  FindingAnnouncer announcer;
  auto nextFindings = std::chrono::steady_clock::now();
  int handledInterrupts = 0;
  size_t restartsTold = 0;
  std::optional<console::JobOutcome> outcome;
  while (!(outcome = session.waitFor(250ms))) {
    int seen = interruptCount();
    if (seen > handledInterrupts) {
      handledInterrupts = seen;
      // First Ctrl-C: SIGTERM with a grace period; another one: no more grace.
      std::cerr << (seen == 1 ? "\n" + command + ": stopping the job (Ctrl-C again to kill it now)\n"
                              : "\n" + command + ": killing the job\n");
      session.stop(seen == 1 ? 5 : 0.1);
    }
    std::deque<std::string> lines = printer.take();
    for (const std::vector<std::string> restarts = session.restartLines(); restartsTold < restarts.size();)
      lines.push_back(command + ": " + printable(restarts[restartsTold++]));
    if (const auto now = std::chrono::steady_clock::now(); now >= nextFindings) {
      announcer.add(session.findings(), lines);
      nextFindings = now + 1s;
    }
    display.show(session.progress(), std::move(lines));
  }
  display.finish(session.progress(), printer.take());

  const console::RunResult result = session.finish(*outcome);
  for (const auto& note : result.notes) std::cerr << command << ": " << printable(note) << "\n";
  const diagnosis::AdviceReader reader =
      diagnosis::adviceReaderOf("live", isUserProgram(session.plan().spec), session.runId(), true);
  for (const auto& f : result.findings) {
    std::cerr << command << ": finding: " << printable(f.summary()) << "\n";
    const std::string advice = diagnosis::adviceTextFor(f, reader);
    if (!advice.empty()) std::cerr << "  what to do: " << printable(advice) << "\n";
  }
  if (session.runId() > 0) {
    std::cerr << command << ": stored as run " << session.runId() << " in " << session.storePath() << "\n";
  }
  for (const auto& problem : result.problems) std::cerr << command << ": " << printable(problem) << "\n";
  if (!timeline.empty()) std::cerr << command << ": timeline written to " << timeline << "\n";
  std::cerr << command << ": job " << session.jobId() << " " << result.status;
  switch (outcome->status) {
    case console::JobStatus::Succeeded:
      // The job did its work, but what the history keeps of it is not the whole run.
      if (result.recordsNotStored > 0) {
        std::cerr << ", but " << result.recordsNotStored << " of its records are not in the run history\n";
        return 1;
      }
      std::cerr << "\n";
      return 0;
    case console::JobStatus::Stopped:
      // A stop some host did not confirm says which.
      if (outcome->message.pattern() != console::text::kStoppedOnRequest)
        std::cerr << ": " << printable(toText(outcome->message));
      std::cerr << "\n";
      return 130;
    default:
      break;
  }
  std::cerr << ": " << printable(toText(outcome->message)) << "\n";
  if (outcome->failedRank && !outcome->failedRank->lastLines.empty()) {
    std::cerr << "last lines of rank " << outcome->failedRank->rank << ":\n";
    for (const auto& line : outcome->failedRank->lastLines) std::cerr << "  | " << printable(line) << "\n";
  }
  return 1;
}

console::RunSessionOptions sessionOptions(const console::RunFlags& o) {
  console::RunSessionOptions options;
  if (!o.noStore) {
    options.storePath =
        o.store.empty() ? console::defaultStorePath(console::StoreFolder::Make).toStdString() : o.store;
  }
  options.summaryJson = o.summaryJson;
  options.timeline = o.timeline;
  return options;
}

int runJob(console::RunFlags o, const CLI::App& app) {
  console::finishRunFlags(o, &app);
  const std::string command = "ringmaster run";
  catchInterrupts();
  if (!o.slurm.submit && !console::insideSlurmAllocation(o)) {
    return watchRun(console::launchPlan(o), sessionOptions(o), o.timeline, nullptr, command);
  }
  console::Launcher::check(console::launchPlan(o));  // refused before Slurm is asked for anything
  std::unique_ptr<console::SlurmJob> slurm;
  if (o.slurm.submit) {
    slurm = console::SlurmJob::submit(o, agentBesideThisProgram());
    std::cerr << command << ": submitted Slurm job " << slurm->slurmJobId() << ": " << slurm->command()
              << std::endl;
  } else {
    slurm = console::SlurmJob::inAllocation(o, agentBesideThisProgram());
    std::cerr << command << ": in Slurm job " << slurm->slurmJobId()
              << ", agents started: " << slurm->command() << std::endl;
  }
  auto plan = agentsOf(*slurm, command);
  if (!plan) return interruptCount() > 0 ? 130 : 1;
  return watchRun(std::move(*plan), sessionOptions(slurm->flags()), o.timeline, slurm.get(), command);
}

struct AttachFlags {
  std::string slurmJobId;
  std::string folder;
  std::string store;
  bool noStore = false;
};

int attachJob(const AttachFlags& a) {
  const std::string command = "ringmaster attach";
  catchInterrupts();
  auto slurm = console::SlurmJob::attach(a.slurmJobId, a.folder);
  std::cerr << command << ": Slurm job " << slurm->slurmJobId() << " is Ringmaster job "
            << slurm->flags().jobId << std::endl;
  auto plan = agentsOf(*slurm, command);
  if (!plan) return interruptCount() > 0 ? 130 : 1;
  plan->attach = true;
  console::RunFlags flags = slurm->flags();
  flags.store = a.store;
  flags.noStore = a.noStore;
  flags.summaryJson.clear();
  flags.timeline.clear();
  return watchRun(std::move(*plan), sessionOptions(flags), "", slurm.get(), command);
}

}  // namespace

void addAttachCommand(CLI::App& app, CommandResult& result) {
  auto* attach = app.add_subcommand(
      "attach", "Watch a Slurm job that `ringmaster run --slurm` submitted (from this or another console)");
  auto flags = std::make_shared<AttachFlags>();
  attach->add_option("JOBID", flags->slurmJobId, "Slurm's job id, as sbatch printed it")->required();
  attach->add_option("--slurm-dir", flags->folder, "The --slurm-dir the job was submitted with")
      ->type_name("DIR");
  attach->add_option("--store", flags->store, "Run history file (default: the user's, in the XDG data dir)")
      ->type_name("FILE");
  attach->add_flag("--no-store", flags->noStore, "Do not keep this run in the history");
  attach->callback(
      [flags, &result] { result.exitCode = launchingCommand("attach", [&] { return attachJob(*flags); }); });
}

void addRunCommand(CLI::App& app, CommandResult& result) {
  auto* run = app.add_subcommand("run", "Launch a training job on this machine or across hosts and watch it");
  auto flags = std::make_shared<console::RunFlags>();
  console::addRunFlags(*run, *flags);
  run->callback([run, flags, &result] {
    result.exitCode = launchingCommand("run", [&] { return runJob(*flags, *run); });
  });
}

int launchingCommand(const char* name, const std::function<int()>& body) {
  auto say = [name](const std::exception& e) {
    std::cerr << "ringmaster " << name << ": " << printable(e.what(), true) << "\n";
  };
  try {
    return body();
  } catch (const InputError& e) {
    say(e);
    return 2;
  } catch (const console::LaunchError& e) {
    say(e);
    return 1;
  } catch (const console::SlurmError& e) {
    say(e);
    return 1;
  }
}

}  // namespace ringmaster::cli
