// SPDX-License-Identifier: GPL-3.0-or-later
#include "cli/run_command.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <deque>
#include <iomanip>
#include <iostream>
#include <memory>
#include <mutex>
#include <sstream>

#include "common/error.h"
#include "console/ingest.h"
#include "console/launcher.h"
#include "console/run_flags.h"
#include "console/run_progress.h"
#include "console/run_summary.h"
#include "console/store_location.h"
#include "console/timeline_sink.h"

namespace ringmaster::cli {
namespace {

using namespace std::chrono_literals;

std::atomic<int> interrupts{0};
void onInterrupt(int) { interrupts.fetch_add(1); }

std::string duration(double seconds) {
  if (seconds < 0) return "?";
  long s = static_cast<long>(seconds + 0.5);
  char text[32];
  if (s >= 3600) {
    std::snprintf(text, sizeof text, "%ld:%02ld:%02ld", s / 3600, (s / 60) % 60, s % 60);
  } else {
    std::snprintf(text, sizeof text, "%ld:%02ld", s / 60, s % 60);
  }
  return text;
}

// What ranks and agents say that a person should see: errors, warnings, the agent's own notes.
class LinePrinter : public console::RecordSink {
 public:
  void onRecords(const std::string&, const std::string&, const std::vector<v1::Record>& records) override {
    std::lock_guard lock(mutex_);
    for (const auto& r : records) {
      if (!r.has_log() || r.log().stream() == v1::LogLine::STREAM_STDOUT) continue;
      std::string who = r.log().rank() >= 0 ? "[rank " + std::to_string(r.log().rank()) + "] " : "[agent] ";
      lines_.push_back(who + r.log().text());
    }
  }
  std::deque<std::string> take() {
    std::lock_guard lock(mutex_);
    return std::exchange(lines_, {});
  }

 private:
  std::mutex mutex_;
  std::deque<std::string> lines_;
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
    } else if (std::chrono::steady_clock::now() >= nextPlain_ && snap.step > 0 && snap.step != lastPlainStep_) {
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
    line << "step " << snap.step << "/" << (snap.totalSteps ? std::to_string(snap.totalSteps) : "?") << "  "
         << std::fixed << std::setprecision(0) << snap.samplesPerS << " samples/s  loss " << std::setprecision(4)
         << snap.loss << "  ETA " << duration(snap.etaS);
    return line.str();
  }

  static int draw(std::ostringstream& out, const console::ProgressSnapshot& snap) {
    const int width = 24;
    double fraction = snap.totalSteps ? std::min(1.0, static_cast<double>(snap.step) / snap.totalSteps) : 0;
    int filled = static_cast<int>(fraction * width);
    out << "[" << std::string(filled, '#') << std::string(width - filled, '-') << "] " << headline(snap) << "\n";
    out << "  rank  host              step  samples/s  compute ms  comm ms   rss MB  state\n";
    int lines = 2;
    const size_t shown = 16;
    for (size_t i = 0; i < snap.ranks.size() && i < shown; ++i) {
      const auto& r = snap.ranks[i];
      char row[160];
      std::snprintf(row, sizeof row, "  %4d  %-16.16s %5llu  %9.0f  %10.1f  %7.1f  %7.0f  %s\n", r.rank, r.host.c_str(),
                    static_cast<unsigned long long>(r.step), r.samplesPerS, r.computeMs, r.commWaitMs, r.rssMb,
                    r.state.c_str());
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

int runJob(console::RunFlags o) {
  console::finishRunFlags(o);
  const console::LaunchPlan plan = console::launchPlan(o);
  v1::JobSpec spec = plan.spec;

  std::unique_ptr<console::TimelineSink> timeline;
  if (!o.timeline.empty()) timeline = std::make_unique<console::TimelineSink>(o.timeline);

  console::Launcher launcher(plan);
  applyDefaults(spec);
  console::LiveProgress progress(spec);
  console::RunSummaryBuilder summary(spec);
  LinePrinter printer;
  launcher.addSink(&progress);
  launcher.addSink(&summary);
  launcher.addSink(&printer);
  if (timeline) launcher.addSink(timeline.get());
  // Every run is kept in the history (and diagnosed as it arrives) unless the user says --no-store.
  std::unique_ptr<console::RunIngest> ingest;
  if (!o.noStore) {
    std::string storePath = o.store.empty() ? console::defaultStorePath().toStdString() : o.store;
    NewRun run;
    run.name = console::runName(o);
    run.spec = spec;
    try {
      ingest = std::make_unique<console::RunIngest>(storePath, run);
    } catch (const std::exception& e) {
      throw InputError("--store " + storePath + ": " + e.what());
    }
    launcher.addSink(ingest.get());
  }

  struct sigaction action {};
  action.sa_handler = onInterrupt;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);

  try {
    launcher.start();
  } catch (const console::LaunchError& e) {
    std::cerr << "ringmaster run: " << e.what() << "\n";
    return 1;
  }
  std::cerr << "ringmaster run: job " << launcher.jobId() << ": " << o.ranks << " rank" << (o.ranks == 1 ? "" : "s")
            << " on";
  for (const auto& p : launcher.placements()) {
    std::cerr << " " << p.host << " (ranks " << p.firstRank << "-" << p.firstRank + p.localRanks - 1 << ")";
  }
  std::cerr << std::endl;

  ProgressDisplay display(::isatty(STDOUT_FILENO));
  int handledInterrupts = 0;
  std::optional<console::JobOutcome> outcome;
  while (!(outcome = launcher.waitFor(250ms))) {
    int seen = interrupts.load();
    if (seen > handledInterrupts) {
      handledInterrupts = seen;
      // First Ctrl-C: SIGTERM with a grace period; another one: no more grace.
      std::cerr << (seen == 1 ? "\nringmaster run: stopping the job (Ctrl-C again to kill it now)\n"
                              : "\nringmaster run: killing the job\n");
      launcher.stop(seen == 1 ? 5 : 0.1);
    }
    display.show(progress.snapshot(), printer.take());
    if (ingest) ingest->tick();
  }
  display.finish(progress.snapshot(), printer.take());

  std::vector<v1::Finding> findings;
  if (ingest) {
    ingest->finish(outcome->status == console::JobStatus::Succeeded ? "finished"
                   : outcome->status == console::JobStatus::Stopped ? "stopped"
                                                                    : "failed");
    findings = ingest->findings();
    for (const auto& f : findings) std::cerr << "ringmaster run: finding: " << f.summary() << "\n";
    std::cerr << "ringmaster run: stored as run " << ingest->runId() << " in " << ingest->storePath() << "\n";
  }
  if (!o.summaryJson.empty()) summary.writeJson(o.summaryJson, launcher.jobId(), *outcome, findings);
  if (timeline) std::cerr << "ringmaster run: timeline written to " << o.timeline << "\n";
  switch (outcome->status) {
    case console::JobStatus::Succeeded:
      std::cerr << "ringmaster run: job " << launcher.jobId() << " succeeded\n";
      return 0;
    case console::JobStatus::Stopped:
      std::cerr << "ringmaster run: job " << launcher.jobId() << " stopped\n";
      return 130;
    default: break;
  }
  std::cerr << "ringmaster run: job " << launcher.jobId() << " FAILED: " << outcome->message << "\n";
  if (outcome->failedRank && !outcome->failedRank->lastLines.empty()) {
    std::cerr << "last lines of rank " << outcome->failedRank->rank << ":\n";
    for (const auto& line : outcome->failedRank->lastLines) std::cerr << "  | " << line << "\n";
  }
  return 1;
}

}  // namespace

void addRunCommand(CLI::App& app, CommandResult& result) {
  auto* run = app.add_subcommand("run", "Launch a training job on this machine or across hosts and watch it");
  auto flags = std::make_shared<console::RunFlags>();
  console::addRunFlags(*run, *flags);
  run->callback([flags, &result] {
    try {
      result.exitCode = runJob(*flags);
    } catch (const InputError& e) {
      std::cerr << "ringmaster run: " << e.what() << "\n";
      result.exitCode = 2;
    } catch (const console::LaunchError& e) {
      std::cerr << "ringmaster run: " << e.what() << "\n";
      result.exitCode = 1;
    }
  });
}

}  // namespace ringmaster::cli
