// SPDX-License-Identifier: GPL-3.0-or-later
#include "cli/history_commands.h"

#include <QGuiApplication>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>

#include "common/error.h"
#include "common/job_spec.h"
#include "common/printable.h"
#include "common/shell_words.h"
#include "console/hosts/host_facts.h"
#include "console/reports/report.h"
#include "console/session/record_import.h"
#include "console/session/store_location.h"
#include "diagnosis/advice.h"
#include "diagnosis/comparison.h"
#include "diagnosis/duration_text.h"
#include "diagnosis/evidence_text.h"
#include "diagnosis/finding.h"
#include "diagnosis/run_diagnosis.h"
#include "history/run_store.h"
#include "traces/horovod_timeline_reader.h"

namespace ringmaster::cli {
namespace {

using diagnosis::format;

struct StoreOption {
  std::string path;
  // The default one's folder is made only for a command that stores runs (import).
  std::string resolved(console::StoreFolder folder = console::StoreFolder::Leave) const {
    return path.empty() ? console::defaultStorePath(folder).toStdString() : path;
  }
};

void addStoreOption(CLI::App* command, StoreOption& store) {
  command->add_option("--store", store.path,
                      "Run store file (default: $XDG_DATA_HOME/ringmaster/runs.sqlite)");
}

// Runs a command body; user errors print one line naming the problem and give exit code 1.
template <typename Body>
void guarded(const char* name, CommandResult& result, Body&& body) {
  try {
    result.exitCode = body();
  } catch (const InputError& e) {
    std::cerr << "ringmaster " << name << ": " << printable(e.what(), true) << "\n";
    result.exitCode = 1;
  } catch (const std::exception& e) {
    std::cerr << "ringmaster " << name << ": " << printable(e.what(), true) << "\n";
    result.exitCode = 1;
  }
}

// Whether the store at `path` is there; an InputError naming it when it cannot be told (a loop of symbolic
// links, a folder this user may not enter).
bool storeExists(const std::string& path) {
  std::error_code ec;
  const auto type = std::filesystem::status(path, ec).type();
  if (type == std::filesystem::file_type::not_found) return false;
  if (ec) throw InputError("--store " + path + ": cannot be reached (" + ec.message() + ")");
  return true;
}

// Read-only, always: looking at the history never creates, upgrades or otherwise changes a store, this
// user's or a colleague's (on a read-only mount too).
std::unique_ptr<RunStore> openForReading(const StoreOption& option) {
  const std::string path = option.resolved();
  if (!storeExists(path)) {
    throw InputError("no run store at " + path +
                     " yet; run a job or import a timeline first (or pass --store)");
  }
  RunStore::Options options;
  options.readOnly = true;
  return std::make_unique<RunStore>(path, options);
}

std::string when(int64_t unixNs) {
  if (unixNs <= 0) return "-";
  std::time_t seconds = std::time_t(unixNs / 1'000'000'000);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%d %H:%M", std::localtime(&seconds));
  return buffer;
}

std::string elapsed(const RunInfo& run) {
  if (run.endedUnixNs <= run.startedUnixNs) return "-";
  return formatElapsed(double(run.endedUnixNs - run.startedUnixNs) / 1e9);
}

constexpr char kNotMeasured[] = "not measured";

// "4 ranks", or for traces of some ranks of a larger job "2 ranks of a 128-rank job".
std::string ranksText(const RunInfo& run) {
  std::string text = format("%d rank%s", run.worldSize, run.worldSize == 1 ? "" : "s");
  auto world = run.environment.find("world size");
  if (world != run.environment.end() && world->second != std::to_string(run.worldSize))
    text += " of a " + printable(world->second) + "-rank job";
  return text;
}

// `run`'s findings with advice for the terminal.
void printFindings(const std::vector<v1::Finding>& findings, const RunStore& store, int64_t runId) {
  const auto info = store.run(runId);
  const diagnosis::AdviceReader reader =
      diagnosis::adviceReaderOf(info ? info->source : "", info && isUserProgram(info->spec), runId, true);
  if (findings.empty()) {
    std::cout << "Findings: none (no stragglers, leaks, stalls or communication problems)\n";
    return;
  }
  std::cout << "Findings:\n";
  for (const auto& f : findings) {
    std::cout << format("  [%s] %s: %s\n", diagnosis::severityLabel(f.severity()),
                        diagnosis::kindLabel(f.kind()), printable(f.summary()).c_str());
    const std::string advice = diagnosis::adviceTextFor(f, reader);
    if (!advice.empty()) std::cout << "      what to do: " << printable(advice) << "\n";
    if (f.evidence_size() > 0) std::cout << "      evidence: " << printable(evidenceLine(f)) << "\n";
  }
}

int runsCommand(const StoreOption& option) {
  if (!storeExists(option.resolved())) {
    std::cout << "No runs yet: " << option.resolved() << " does not exist (run a job or import a timeline)\n";
    return 0;
  }
  auto store = openForReading(option);
  auto runs = store->runs();
  if (runs.empty()) {
    std::cout << "No runs in " << store->path() << "\n";
    return 0;
  }
  std::cout << format("%5s  %-24s %-9s %-8s %-7s %5s  %-16s %11s %6s %8s  %s\n", "ID", "NAME", "STATUS",
                      "ENGINE", "BACKEND", "RANKS", "STARTED", "DURATION", "STEPS", "FINDINGS", "TAGS");
  for (const auto& run : runs) {
    auto counts = store->counts(run.id);
    std::string tags;
    for (const auto& t : run.tags) tags += (tags.empty() ? "" : ",") + t;
    std::string name = printable(run.name.size() > 24 ? run.name.substr(0, 23) + "~" : run.name);
    std::cout << format("%5lld  %-24s %-9s %-8s %-7s %5d  %-16s %11s %6lld %8lld  %s\n", (long long)run.id,
                        name.c_str(), run.status.c_str(), run.engine.empty() ? "-" : run.engine.c_str(),
                        run.backend.empty() ? "-" : run.backend.c_str(), run.worldSize,
                        when(run.startedUnixNs).c_str(), elapsed(run).c_str(),
                        (long long)(run.worldSize > 0 ? counts.steps / run.worldSize : 0),
                        (long long)counts.findings, printable(tags).c_str());
  }
  return 0;
}

// What rank `rank` of the run printed, as the run history keeps it.
int showLogCommand(const RunStore& store, int64_t id, int rank) {
  const auto info = store.run(id);
  if (rank < 0 || (info && info->worldSize > 0 && rank >= info->worldSize)) {
    throw InputError(
        format("--log %d: run %lld has ranks 0 to %d", rank, (long long)id, info ? info->worldSize - 1 : 0));
  }
  const auto lines = store.logs(id, rank);
  if (lines.empty()) {
    std::cout << format("Rank %d of run %lld printed nothing that the run history kept\n", rank,
                        (long long)id);
    return 0;
  }
  for (const auto& line : lines) {
    const char* stream = line.stream() == v1::LogLine::STREAM_STDERR  ? "[stderr] "
                         : line.stream() == v1::LogLine::STREAM_AGENT ? "[agent] "
                                                                      : "";
    std::cout << stream << printable(line.text()) << "\n";
  }
  return 0;
}

int showCommand(const StoreOption& option, const std::string& runText, std::optional<int> logRank) {
  auto store = openForReading(option);
  int64_t id = store->resolveRun(runText);
  if (logRank) return showLogCommand(*store, id, *logRank);
  RunMetrics m = loadMetrics(*store, id);
  auto counts = store->counts(id);
  const RunInfo& run = m.info;
  std::cout << format("Run %lld  %s\n", (long long)run.id, printable(run.name).c_str());
  std::cout << format("  status %s, %s, engine %s, backend %s, started %s, took %s\n", run.status.c_str(),
                      ranksText(run).c_str(), run.engine.empty() ? "-" : run.engine.c_str(),
                      run.backend.empty() ? "-" : run.backend.c_str(), when(run.startedUnixNs).c_str(),
                      elapsed(run).c_str());
  if (run.source != "live") std::cout << "  source " << printable(run.source) << "\n";
  if (isInterruptedImport(run)) {
    std::cout
        << "  interrupted import: the import of " << printable(run.source.substr(run.source.find(':') + 1))
        << " did not finish (the process importing it ended first); the run holds the part of it stored "
           "until then: import it again for all of it\n";
  }
  if (isUserProgram(run.spec))
    std::cout << "  program "
              << printable(shellLine({run.spec.program().argv().begin(), run.spec.program().argv().end()}))
              << "\n";
  if (!run.tags.empty()) {
    std::string tags;
    for (const auto& t : run.tags) tags += (tags.empty() ? "" : ", ") + t;
    std::cout << "  tags " << printable(tags) << "\n";
  }
  if (!run.environment.empty()) {
    std::string environment;
    for (const auto& [key, value] : run.environment)
      environment += (environment.empty() ? "" : ", ") + key + " " + value;
    std::cout << "  environment: " << printable(environment) << "\n";
  }
  for (const auto& [host, facts] : store->hosts(id))
    std::cout << "  host " << printable(console::describeHost(host, facts)) << "\n";
  if (m.steps > 0) {
    const std::string throughput =
        m.throughput > 0 ? format("%.1f samples/s", m.throughput) : "not measured (no sample counts)";
    std::cout << format("  throughput %s over %llu steps; step time mean %.2f ms, p50 %.2f ms, p95 %.2f ms\n",
                        throughput.c_str(), (unsigned long long)m.steps, m.stepMeanMs, m.stepP50Ms,
                        m.stepP95Ms);
    std::cout << format(
        "  phases (ms/step): data %.2f, forward %.2f, backward %.2f, exposed comm %.2f, optimizer "
        "%.2f, total %.2f\n",
        m.phases.dataMs, m.phases.forwardMs, m.phases.backwardMs, m.phases.commWaitMs, m.phases.optimizerMs,
        m.phases.totalMs);
    // A figure the run did not measure (an imported trace has no memory samples, no loss, perhaps no
    // all-reduce sizes) is said to be missing, never printed as 0.
    const auto measured = [](double value, const char* pattern) {
      return value > 0 ? format(pattern, value) : std::string(kNotMeasured);
    };
    if (m.allreduceOps == 0) {
      std::cout << format("  all-reduce: no ops; exposed comm %.1f%%\n", m.exposedCommPct);
    } else {
      std::cout << format("  all-reduce: %llu ops, median %s, busbw %s, exposed comm %.1f%%, overlap %s\n",
                          (unsigned long long)m.allreduceOps,
                          measured(m.allreduceLatencyUs, "%.1f us").c_str(),
                          measured(m.busbwGbps, "%.2f GB/s").c_str(), m.exposedCommPct,
                          m.allreduceLatencyUs > 0 ? format("%.0f%%", m.overlapPct).c_str() : kNotMeasured);
    }
    std::cout << format("  memory: %s; final loss %s\n",
                        m.peakRssMiB > 0 ? format("peak %.0f MiB, steepest growth %.3f MiB/step",
                                                  m.peakRssMiB, m.rssSlopeMiBPerStep)
                                               .c_str()
                                         : "not measured",
                        m.finalLoss ? format("%.4f", *m.finalLoss).c_str() : kNotMeasured);
    std::cout << format("\n%5s  %-16s %7s %10s %8s %8s %8s %8s %8s %9s %9s\n", "RANK", "HOST", "STEPS",
                        "SAMPLES/S", "DATA", "FORWARD", "BACKWARD", "COMM", "OPTIM", "BUSBW", "PEAK MiB");
    const auto cell = [](double value, const char* pattern) {
      return value > 0 ? format(pattern, value) : std::string("-");
    };
    for (const auto& r : m.perRank) {
      std::cout << format("%5d  %-16s %7llu %10s %8.2f %8.2f %8.2f %8.2f %8.2f %9s %9s\n", r.rank,
                          r.host.empty() ? "-" : r.host.c_str(), (unsigned long long)r.steps,
                          cell(r.samplesPerS, "%.1f").c_str(), r.phases.dataMs, r.phases.forwardMs,
                          r.phases.backwardMs, r.phases.commWaitMs, r.phases.optimizerMs,
                          cell(r.busbwGbps, "%.2f").c_str(), cell(r.peakRssMiB, "%.0f").c_str());
    }
    if (std::any_of(m.perRank.begin(), m.perRank.end(), [](const RankMetrics& r) {
          return r.samplesPerS <= 0 || r.busbwGbps <= 0 || r.peakRssMiB <= 0;
        }))
      std::cout << "  (- : not measured)\n";
    std::cout << "\n";
  } else {
    std::cout << format("  %lld timeline events (no step samples)\n\n", (long long)counts.timelineEvents);
  }
  printFindings(m.findings, *store, id);
  return 0;
}

int compareCommand(const StoreOption& option, const std::vector<std::string>& runTexts) {
  auto store = openForReading(option);
  std::vector<RunMetrics> runs;
  for (const auto& text : runTexts) runs.push_back(loadMetrics(*store, store->resolveRun(text)));
  const RunMetrics& base = runs.front();
  for (size_t i = 1; i < runs.size(); ++i) {
    RunComparison c = compareRuns(base, runs[i]);
    std::cout << printable(toText(c.otherName)) << " against " << printable(toText(c.baseName)) << "\n";
    std::cout << format("  %-24s %-10s %14s %14s %10s  %s\n", "METRIC", "UNIT", "BASE", "OTHER", "CHANGE",
                        "95% CI");
    for (const auto& d : c.deltas) {
      if (!isEmpty(d.missing)) {
        std::cout << format("  %-24s %-10s %14s %14s %10s  %s\n", d.metric.c_str(), d.unit.c_str(), "-", "-",
                            "-", printable(toText(d.missing)).c_str());
        continue;
      }
      std::string ci =
          d.interval ? format("%+.1f%% .. %+.1f%%", 100 * d.interval->lower, 100 * d.interval->upper) : "";
      std::cout << format("  %-24s %-10s %14s %14s %10s  %s\n", d.metric.c_str(), d.unit.c_str(),
                          figureText(d.base).c_str(), figureText(d.other).c_str(), d.changeText().c_str(),
                          ci.c_str());
    }
    std::cout << "  " << printable(toText(c.verdict)) << "\n";
    if (runs[i].ranks != base.ranks && base.throughput > 0 && runs[i].throughput > 0) {
      std::cout << "  " << printable(scalingFinding(runs[i], base).summary()) << "\n";
    }
    std::cout << "\n";
  }
  return 0;
}

std::string inferFormat(const std::string& output) {
  std::string ext = std::filesystem::path(output).extension().string();
  if (ext == ".html" || ext == ".htm") return "html";
  if (ext == ".pdf") return "pdf";
  if (ext == ".csv") return "csv";
  if (ext == ".json") return "trace";
  throw InputError("--format is missing and the extension of '" + output +
                   "' does not say which (html, pdf, csv or trace)");
}

// The QGuiApplication a PDF's text layout needs (fonts). A terminal command shows no window: it runs on Qt's
// offscreen platform ("-platform" outranks QT_QPA_PLATFORM), with or without a display.
class PdfApplication {
 public:
  PdfApplication() : application_(argc_, argv_) {}

 private:
  char name_[11] = "ringmaster";
  char option_[10] = "-platform";
  char platform_[10] = "offscreen";
  char* argv_[4] = {name_, option_, platform_, nullptr};
  int argc_ = 3;
  QGuiApplication application_;
};

int reportCommand(const StoreOption& option, const std::string& runText,
                  const std::vector<std::string>& compare, std::string formatName, const std::string& output,
                  const std::string& paperName) {
  // CLI11 admits only the names parsePaperSize reads; none given, the locale's paper.
  const console::PaperSize paper =
      paperName.empty() ? console::defaultPaperSize() : console::parsePaperSize(paperName).value();
  auto store = openForReading(option);
  int64_t id = store->resolveRun(runText);
  if (formatName.empty()) formatName = inferFormat(output);
  auto started = std::chrono::steady_clock::now();
  std::string what;
  if (formatName == "csv") {
    what = format("%llu rows", (unsigned long long)console::writeCsv(*store, id, output));
  } else if (formatName == "trace") {
    what = format("%llu events", (unsigned long long)console::writeTrace(*store, id, output));
  } else {
    std::vector<int64_t> others;
    for (const auto& text : compare) others.push_back(store->resolveRun(text));
    auto report = console::buildReport(*store, id, others);
    if (formatName == "html") {
      console::writeHtmlReport(report, output, paper);
    } else {
      PdfApplication application;
      console::writePdfReport(report, output, paper);
    }
    what = format("%zu charts, %zu findings", report.charts.size(), report.metrics.findings.size());
    if (formatName == "pdf") what += paper == console::PaperSize::Letter ? ", Letter pages" : ", A4 pages";
  }
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::cout << format("wrote %s (%s report of run %lld: %s) in %s\n", output.c_str(), formatName.c_str(),
                      (long long)id, what.c_str(), formatDuration(seconds * 1e9).c_str());
  return 0;
}

// Runs `import` into `result`; a file that cannot be imported is refused input, as a bad flag is: false once
// that is said. A store that cannot be written is the command's failure (StoreError goes on).
template <typename Result, typename Import>
bool imported(Result& result, Import&& import) {
  try {
    result = import();
    return true;
  } catch (const StoreError&) {
    throw;
  } catch (const InputError& e) {
    std::cerr << "ringmaster import: " << printable(e.what(), true) << "\n";
    return false;
  }
}

// Record files that ranks wrote without an agent (RINGMASTER_RECORD_DIR), as one run diagnosed as a live one.
int importRecordsCommand(RunStore& store, const std::vector<std::string>& inputs, const std::string& name) {
  auto started = std::chrono::steady_clock::now();
  console::RecordImportResult result;
  if (!imported(result, [&] { return console::importRecordFiles(store, inputs, name); })) return 2;
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::string what = inputs.size() == 1 ? inputs.front() : format("%zu inputs", inputs.size());
  std::cout << format(
      "imported %s as run %lld: Ringmaster record files%s, %llu records on %zu ranks (%.1f MB in %s)\n",
      printable(what).c_str(), (long long)result.runId,
      result.jobId.empty() ? "" : (" of run \"" + printable(result.jobId) + "\"").c_str(),
      (unsigned long long)result.records, result.files.size(), double(result.bytes) / 1e6,
      formatDuration(seconds * 1e9).c_str());
  const auto noEnd = std::count_if(result.files.begin(), result.files.end(),
                                   [](const console::ImportedRecordFile& f) { return !f.ended; });
  std::cout << format(
      "  ranks from each file's hello; times: the ranks' job clock; status %s%s\n", result.status.c_str(),
      noEnd > 0
          ? format(" (%lld of %zu ranks recorded no end)", (long long)noEnd, result.files.size()).c_str()
          : "");
  for (const auto& file : result.files) {
    std::string notes;
    if (!file.ended) {
      notes += file.lastStep
                   ? format(" (no end: its records stop after step %llu)", (unsigned long long)*file.lastStep)
                   : std::string(" (no end: its records stop before its first step)");
    }
    if (file.cutShort) notes += " (cut short: kept every whole frame)";
    std::cout << format("  rank %d  %s (%s, pid %d): %llu records, %llu steps, %llu all-reduce ops%s\n",
                        file.rank, printable(file.path).c_str(), printable(file.host).c_str(), file.pid,
                        (unsigned long long)file.records, (unsigned long long)file.steps,
                        (unsigned long long)file.allreduceOps, notes.c_str());
    if (file.refused > 0) {
      std::cout << format(
          "  note: rank %d wrote %llu records that cannot be true, which were dropped (the first: "
          "%s)\n",
          file.rank, (unsigned long long)file.refused, printable(file.firstRefused).c_str());
    }
  }
  if (!result.missingRanks.empty()) {
    std::string ranks;
    for (int r : result.missingRanks) ranks += (ranks.empty() ? "" : ", ") + std::to_string(r);
    std::cout << format(
        "  note: no record file for rank%s %s of %d: gather the files from every host into the "
        "folder, then import it again\n",
        result.missingRanks.size() == 1 ? "" : "s", ranks.c_str(), result.worldSize);
  }
  printFindings(diagnosis::storedFindings(store, result.runId), store, result.runId);
  return 0;
}

int importCommand(const StoreOption& option, const std::vector<std::string>& inputs,
                  const std::string& name) {
  RunStore store(option.resolved(console::StoreFolder::Make));
  if (console::namesRecordFiles(inputs)) return importRecordsCommand(store, inputs, name);
  auto started = std::chrono::steady_clock::now();
  ImportResult result;
  if (!imported(result, [&] { return importTraces(store, inputs, name); })) return 2;
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  const auto& s = result.summary;
  std::string what = inputs.size() == 1 ? inputs.front() : format("%zu inputs", inputs.size());
  std::cout << format("imported %s as run %lld: %s, %llu events on %d ranks (%.1f MB in %s)\n", what.c_str(),
                      (long long)result.runId, formatName(s.format).c_str(),
                      (unsigned long long)s.timelineEvents, s.ranks, double(s.bytesRead) / 1e6,
                      formatDuration(seconds * 1e9).c_str());
  std::cout << "  " << result.rankRule << "; times: " << result.clock << "\n";
  if (result.worldSize > s.ranks) {
    std::cout << format(
        "  %d of the job's %d ranks (distributedInfo.world_size): bus bandwidth is measured against %d\n",
        s.ranks, result.worldSize, result.worldSize);
  }
  for (const auto& file : result.files) {
    if (file.rank < 0) continue;
    const std::string others = file.otherCollectives > 0 ? format(" and %llu other collectives",
                                                                  (unsigned long long)file.otherCollectives)
                                                         : "";
    std::cout << format("  rank %d  %s: %llu events, %llu steps, %llu all-reduce ops%s%s\n", file.rank,
                        printable(file.path).c_str(), (unsigned long long)file.summary.timelineEvents,
                        (unsigned long long)file.steps, (unsigned long long)file.allreduceOps, others.c_str(),
                        file.summary.complete ? "" : " (cut short: kept every whole event)");
  }
  if (s.skipped)
    std::cout << format("  skipped %llu events a timeline does not show (counters, flows)\n",
                        (unsigned long long)s.skipped);
  if (!s.complete) {
    std::cout << format(
        "  note: cut short after byte %llu; kept every whole event%s\n", (unsigned long long)s.bytesRead,
        s.unfinished ? format(" (%llu unfinished spans dropped)", (unsigned long long)s.unfinished).c_str()
                     : "");
  }
  if (result.steps > 0) printFindings(diagnosis::storedFindings(store, result.runId), store, result.runId);
  return 0;
}

}  // namespace

void addHistoryCommands(CLI::App& app, CommandResult& result) {
  // Options outlive parsing: the callbacks run after app.parse() fills them.
  static StoreOption store;
  static std::string runText, formatName, output, importName, paperName;
  static std::vector<std::string> compareRuns, compareWith, importInputs;
  static std::optional<int> logRank;

  auto* runs = app.add_subcommand("runs", "List the runs in the run store");
  addStoreOption(runs, store);
  runs->callback([&result] { guarded("runs", result, [] { return runsCommand(store); }); });

  auto* show = app.add_subcommand("show", "Print a run's summary, per-rank table and findings");
  show->add_option("RUN", runText, "Run id, name, or 'last'")->required();
  show->add_option("--log", logRank, "Print what rank RANK of the run printed (its log) instead");
  addStoreOption(show, store);
  show->callback([&result] { guarded("show", result, [] { return showCommand(store, runText, logRank); }); });

  auto* compare =
      app.add_subcommand("compare", "Compare runs against the first, with 95% confidence intervals");
  compare->add_option("RUNS", compareRuns, "Two or more runs (id, name or 'last'); the first is the baseline")
      ->required()
      ->expected(2, -1);
  addStoreOption(compare, store);
  compare->callback(
      [&result] { guarded("compare", result, [] { return compareCommand(store, compareRuns); }); });

  auto* report = app.add_subcommand("report", "Export a run as HTML, PDF, CSV or a Chrome trace");
  report->add_option("RUN", runText, "Run id, name, or 'last'")->required();
  report->add_option("--compare", compareWith, "Runs to compare with (HTML and PDF)");
  report->add_option("--format", formatName, "html, pdf, csv or trace (default: from the file's extension)")
      ->check(CLI::IsMember({"html", "pdf", "csv", "trace"}));
  report->add_option("-o,--output", output, "File to write")->required();
  report
      ->add_option("--page", paperName,
                   "Paper of the PDF's pages (and of the HTML when printed): a4 or letter (default: the "
                   "locale's, from LC_ALL, LC_PAPER or LANG; else a4)")
      ->check(CLI::IsMember({"a4", "letter"}, CLI::ignore_case));
  addStoreOption(report, store);
  report->callback([&result] {
    guarded("report", result,
            [] { return reportCommand(store, runText, compareWith, formatName, output, paperName); });
  });

  auto* importer = app.add_subcommand(
      "import",
      "Import per-rank PyTorch profiler traces, a Horovod timeline, a Chrome trace, or the record files of "
      "ranks run with RINGMASTER_RECORD_DIR, as one run");
  importer
      ->add_option("FILE", importInputs,
                   "Trace files (.json, .json.gz) or record files (.rmrecs), one per rank, or the folder "
                   "holding them")
      ->required();
  importer->add_option("--name", importName, "Name of the new run (default: the file's or folder's name)");
  addStoreOption(importer, store);
  importer->callback([&result] {
    guarded("import", result, [] { return importCommand(store, importInputs, importName); });
  });
}

}  // namespace ringmaster::cli
