// SPDX-License-Identifier: GPL-3.0-or-later
// The HTML report: one self-contained file (inline SVG charts, inline style, nothing fetched), and the body
// of headings and tables that the PDF report shares, in the language of the program's installed translation.
#include <QCoreApplication>
#include <QStringList>
#include <algorithm>
#include <cmath>
#include <ctime>
#include <fstream>
#include <map>
#include <sstream>
#include <utility>

#include "common/error.h"
#include "common/job_spec.h"
#include "common/shell_words.h"
#include "console/models/axis_scale.h"
#include "console/models/findings_model.h"
#include "console/models/palette.h"
#include "console/models/runs_model.h"
#include "console/models/translated.h"
#include "console/reports/report.h"
#include "diagnosis/advice.h"
#include "diagnosis/finding.h"
#include "ringmaster/version.h"

namespace ringmaster::console {

namespace {

using diagnosis::format;

std::string number(double v, int decimals = 1) {
  if (!std::isfinite(v)) return "–";
  return format("%.*f", decimals, v);
}

std::string timeText(int64_t unixNs) {
  if (unixNs <= 0) return "–";
  std::time_t seconds = std::time_t(unixNs / 1'000'000'000);
  char buffer[64];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%d %H:%M:%S UTC", std::gmtime(&seconds));
  return buffer;
}

// Latencies read in milliseconds, with three significant digits ("27.5 ms", "0.0512 ms").
std::string latencyText(double us) {
  return siNumber(us / 1000.0) + " ms";
}

void row(std::ostringstream& out, const std::vector<std::string>& cells) {
  out << "<tr>";
  for (const auto& c : cells) out << "<td>" << escapeXml(c) << "</td>";
  out << "</tr>\n";
}

// A table's column header: its name and the unit under it, so that headers break between words only.
struct Column {
  Column(std::string name, std::string unit = {}) : name(std::move(name)), unit(std::move(unit)) {}
  std::string name;
  std::string unit;
};

// Opens a table with its header row, which the PDF repeats on every page the table runs onto. Columns take
// the width of their content, the longest text the rest: no widths are set, so that neither a browser nor
// the PDF's layout squeezes a short column to make room for a share of the width.
void tableHead(std::ostringstream& out, const std::string& cssClass, const std::vector<Column>& columns,
               int cellPadding = 4) {
  out << "<table class=\"" << cssClass << "\" border=\"1\" cellspacing=\"0\" cellpadding=\"" << cellPadding
      << "\">\n<thead><tr>";
  for (const auto& c : columns) {
    out << "<th>" << escapeXml(c.name);
    if (!c.unit.empty()) {
      // A unit is one word: a word joiner after each slash keeps "MiB/step" whole.
      std::string unit;
      for (char ch : c.unit) unit += ch == '/' ? std::string("/\u2060") : std::string(1, ch);
      out << "<br/><span class=\"unit\">" << escapeXml(unit) << "</span>";
    }
    out << "</th>";
  }
  out << "</tr></thead>\n";
}

// A comparison row as people read it: latencies in ms, whatever unit the comparison measured them in.
MetricDelta shown(MetricDelta d) {
  if (d.unit == "us") {
    d.unit = "ms";
    d.base /= 1000.0;
    d.other /= 1000.0;
  }
  return d;
}

std::string utf8(const QString& s) {
  return s.toStdString();
}

}  // namespace

// The report's headings, tables and sentences, in the language of the program's installed translation: the
// window's language for a report exported from the console, English from the CLI (which installs none).
class ReportBody {
  Q_DECLARE_TR_FUNCTIONS(ringmaster::console::ReportBody)

 public:
  static std::string render(const Report& report, const std::function<std::string(size_t)>& chartMarkup) {
    const RunMetrics& m = report.metrics;
    std::ostringstream out;
    writeTitle(out, m.info);
    writeSummary(out, report);
    writeFindings(out, m.findings);
    writeRecommendations(out, m.info, m.findings);
    writeComparisons(out, report.comparisons);
    writeCharts(out, report, chartMarkup);
    writeRanks(out, m.perRank);
    writeJobConfiguration(out, m.info);
    writeEnvironment(out, report);
    return out.str();
  }

  // The report's language as HTML names it ("en", "zh-CN"): that of its words' translation.
  static QString language() {
    //: The language of this catalogue as HTML's lang attribute names it.
    return tr("en");
  }

  // The HTML document's title.
  static QString documentTitle(int64_t runId) { return tr("Ringmaster report: run %1").arg(runId); }

 private:
  static QString notMeasuredText() { return tr("not measured"); }
  static std::string notMeasured() { return utf8(notMeasuredText()); }

  // The heading, and the run's status, times and source under it.
  static void writeTitle(std::ostringstream& out, const RunInfo& info) {
    out << "<h1>"
        << escapeXml(utf8(tr("Ringmaster run report: run %1 %2")
                              .arg(info.id)
                              .arg(QString::fromStdString(info.name))
                              .trimmed()))
        << "</h1>\n";
    out << "<p class=\"meta\">"
        << escapeXml(utf8(tr("Status %1 · started %2 · ended %3 · source %4 · written by Ringmaster %5")
                              .arg(RunsModel::statusText(QString::fromStdString(info.status)),
                                   QString::fromStdString(timeText(info.startedUnixNs)),
                                   QString::fromStdString(timeText(info.endedUnixNs)),
                                   QString::fromStdString(info.source), QStringLiteral(RINGMASTER_VERSION))))
        << "</p>\n";
    if (isInterruptedImport(info)) {
      out << "<p class=\"meta\"><b>" << escapeXml(utf8(tr("Interrupted import:"))) << "</b> "
          << escapeXml(
                 utf8(tr("the import did not finish (the process importing it ended first); this report "
                         "covers only the part of the trace stored until then.")))
          << "</p>\n";
    }
  }

  static void writeSummary(std::ostringstream& out, const Report& report) {
    const RunMetrics& m = report.metrics;
    out << "<h2>" << escapeXml(utf8(tr("Summary")))
        << "</h2>\n<table class=\"summary\" border=\"1\" cellspacing=\"0\" cellpadding=\"4\">\n";
    // What the run did not measure (an imported timeline has no step samples) is said, never shown as zeros.
    const std::string noSteps = utf8(tr("not measured (no step samples)"));
    const bool steps = m.steps > 0;
    row(out, {utf8(tr("ranks")), std::to_string(std::max(m.ranks, m.info.worldSize))});
    row(out, {utf8(tr("steps (every rank)")), std::to_string(m.steps)});
    row(out, {utf8(tr("throughput")), !steps             ? noSteps
                                      : m.throughput > 0 ? number(m.throughput) + " samples/s"
                                                         : utf8(tr("not measured (no sample counts)"))});
    row(out, {utf8(tr("step time mean / p50 / p95")), steps ? number(m.stepMeanMs, 2) + " / " +
                                                                  number(m.stepP50Ms, 2) + " / " +
                                                                  number(m.stepP95Ms, 2) + " ms"
                                                            : noSteps});
    const double total = m.phases.totalMs > 0 ? m.phases.totalMs : 1;
    auto share = [total](double ms) { return QString::number(std::lround(100 * ms / total)); };
    row(out,
        {utf8(tr("phase shares")),
         steps ? utf8(tr("data %1%, forward %2%, backward %3%, exposed comm %4%, optimizer %5%, other %6%")
                          .arg(share(m.phases.dataMs), share(m.phases.forwardMs), share(m.phases.backwardMs),
                               share(m.phases.commWaitMs), share(m.phases.optimizerMs),
                               share(m.phases.otherMs())))
               : noSteps});
    const bool latency = m.allreduceLatencyUs > 0;
    row(out, {utf8(tr("all-reduce")),
              m.allreduceOps > 0
                  ? utf8(tr("%1 ops, median %2, bus bandwidth %3, overlap %4")
                             .arg(QString::number(m.allreduceOps),
                                  QString::fromStdString(latency ? latencyText(m.allreduceLatencyUs)
                                                                 : notMeasured()),
                                  QString::fromStdString(m.busbwGbps > 0 ? format("%.2f GB/s", m.busbwGbps)
                                                                         : notMeasured()),
                                  QString::fromStdString(latency ? format("%.0f%%", m.overlapPct)
                                                                 : notMeasured())))
                  : utf8(tr("not measured (no all-reduce ops)"))});
    row(out, {utf8(tr("memory")),
              m.peakRssMiB > 0 ? utf8(tr("peak %1 MiB, steepest growth %2 MiB/step")
                                          .arg(QString::fromStdString(number(m.peakRssMiB, 0)),
                                               QString::fromStdString(number(m.rssSlopeMiBPerStep, 3))))
                               : utf8(tr("not measured (no memory samples)"))});
    row(out, {utf8(tr("final loss")), !steps        ? noSteps
                                      : m.finalLoss ? number(*m.finalLoss, 4)
                                                    : utf8(tr("not measured (no loss reported)"))});
    row(out, {utf8(tr("findings")), std::to_string(m.findings.size())});
    const RunCounts& c = report.counts;
    row(out, {utf8(tr("stored rows")),
              utf8(tr("%1 steps, %2 all-reduce ops, %3 memory samples, %4 timeline events, %5 log lines")
                       .arg(c.steps)
                       .arg(c.allreduceOps)
                       .arg(c.memorySamples)
                       .arg(c.timelineEvents)
                       .arg(c.logLines))});
    out << "</table>\n";
  }

  static void writeFindings(std::ostringstream& out, const std::vector<v1::Finding>& findings) {
    out << "<h2>" << escapeXml(utf8(tr("Findings"))) << "</h2>\n";
    if (findings.empty()) {
      out << "<p>"
          << escapeXml(utf8(tr("No stragglers, leaks, stalls or communication problems were found.")))
          << "</p>\n";
      return;
    }
    tableHead(out, "findings",
              {{utf8(tr("severity"))},
               {utf8(tr("kind"))},
               {utf8(tr("rank"))},
               {utf8(tr("host"))},
               {utf8(tr("since step"))},
               {utf8(tr("cause"))},
               {utf8(tr("what"))}});
    for (const auto& f : findings) {
      // The severity in the colour the Findings page marks it with, in the page's words.
      out << "<tr><td><b style=\"color: " << severityColor(f.severity()).hex() << "\">"
          << escapeXml(utf8(FindingsModel::severityText(f.severity()))) << "</b></td>";
      for (const std::string& cell : {utf8(FindingsModel::kindText(f.kind())),
                                      f.rank() < 0 ? utf8(tr("job")) : std::to_string(f.rank()), f.host(),
                                      std::to_string(f.since_step()), utf8(FindingsModel::causeText(f))})
        out << "<td>" << escapeXml(cell) << "</td>";
      // What happened, and under it the figures behind it: in the widest column, where they wrap least (a
      // row of their own, spanning the table, would make every column as wide as they are long).
      out << "<td>" << escapeXml(utf8(FindingsModel::summaryText(f))) << "<br/><i>"
          << escapeXml(utf8(tr("evidence:"))) << "</i> "
          << escapeXml(utf8(FindingsModel::evidenceTexts(f).join(tr(", ")))) << "</td></tr>\n";
    }
    out << "</table>\n";
  }

  // What to do, most severe first, each naming the finding it answers.
  // A report is read away from the window: its advice names commands, and fits the run's source.
  static void writeRecommendations(std::ostringstream& out, const RunInfo& run,
                                   const std::vector<v1::Finding>& findings) {
    out << "<h2>" << escapeXml(utf8(tr("Recommendations"))) << "</h2>\n";
    const diagnosis::AdviceReader reader =
        diagnosis::adviceReaderOf(run.source, isUserProgram(run.spec), run.id, true);
    std::ostringstream advice;
    for (const auto& f : findings) {
      const QString what = FindingsModel::adviceText(f, reader);
      if (what.isEmpty()) continue;
      const QString who = f.rank() < 0 ? tr("job") : tr("rank %1").arg(f.rank());
      advice << "<li><b>"
             << escapeXml(utf8(tr("%1, %2 (%3):")
                                   .arg(FindingsModel::kindText(f.kind()), who,
                                        FindingsModel::severityText(f.severity()))))
             << "</b> " << escapeXml(utf8(what)) << "</li>\n";
    }
    if (advice.str().empty()) {
      out << "<p>" << escapeXml(utf8(tr("Nothing to do: no finding calls for a change."))) << "</p>\n";
    } else {
      out << "<ol class=\"recommendations\">\n" << advice.str() << "</ol>\n";
    }
  }

  // One table per compared run; a report of one run alone has no Comparison section.
  static void writeComparisons(std::ostringstream& out, const std::vector<RunComparison>& comparisons) {
    if (comparisons.empty()) return;
    out << "<h2>" << escapeXml(utf8(tr("Comparison"))) << "</h2>\n";
    for (const auto& c : comparisons) {
      const QString base = translated(c.baseName), other = translated(c.otherName);
      out << "<h3>" << escapeXml(utf8(tr("%1 against %2").arg(other, base))) << "</h3>\n<p><b>"
          << escapeXml(utf8(translated(c.verdict))) << "</b></p>\n";
      tableHead(out, "comparison",
                {{utf8(tr("metric"))},
                 {utf8(tr("unit"))},
                 {utf8(base)},
                 {utf8(other)},
                 {utf8(tr("difference"))},
                 {utf8(tr("95% CI"))}});
      for (const auto& measured : c.deltas) {
        const MetricDelta d = shown(measured);
        if (!isEmpty(d.missing)) {
          row(out, {d.metric, d.unit, "–", "–", notMeasured(), utf8(translated(d.missing))});
          continue;
        }
        const std::string ci =
            d.interval ? utf8(tr("%1 to %2")
                                  .arg(QString::fromStdString(format("%+.1f%%", 100 * d.interval->lower)),
                                       QString::fromStdString(format("%+.1f%%", 100 * d.interval->upper))))
                       : "";
        row(out, {d.metric, d.unit, figureText(d.base), figureText(d.other), d.changeText(), ci});
      }
      out << "</table>\n";
    }
  }

  // The charts drawn, then the titles of those left out for having nothing to draw.
  static void writeCharts(std::ostringstream& out, const Report& report,
                          const std::function<std::string(size_t)>& chartMarkup) {
    out << "<h2>" << escapeXml(utf8(tr("Charts"))) << "</h2>\n";
    for (size_t i = 0; i < report.charts.size(); ++i)
      out << "<div class=\"figure\">" << chartMarkup(i) << "</div>\n";
    if (report.emptyCharts.empty()) return;
    QStringList titles;
    for (const auto& title : report.emptyCharts) titles << QString::fromStdString(title);
    const QString list = titles.join(tr(", "));
    QString said = report.charts.empty()
                       ? tr("No charts: this run holds nothing to draw them from (%1).").arg(list)
                       : tr("Left out (%1).").arg(list);
    if (report.counts.timelineEvents > 0) {
      said += QLatin1Char(' ') + tr("Its %1 timeline events are in the Chrome trace export (--format trace).")
                                     .arg(report.counts.timelineEvents);
    }
    out << "<p>" << escapeXml(utf8(said)) << "</p>\n";
  }

  static void writeRanks(std::ostringstream& out, const std::vector<RankMetrics>& perRank) {
    out << "<h2>" << escapeXml(utf8(tr("Ranks"))) << "</h2>\n";
    if (perRank.empty()) {
      out << "<p>" << escapeXml(utf8(tr("No per-rank measurements."))) << "</p>\n";
      return;
    }
    tableHead(out, "ranks",
              {{utf8(tr("rank"))},
               {utf8(tr("host"))},
               {utf8(tr("steps"))},
               {utf8(tr("throughput")), "samples/s"},
               {utf8(tr("data")), "ms"},
               {utf8(tr("forward")), "ms"},
               {utf8(tr("backward")), "ms"},
               {utf8(tr("comm wait")), "ms"},
               {utf8(tr("optimizer")), "ms"},
               {utf8(tr("busbw")), "GB/s"},
               {utf8(tr("peak RSS")), "MiB"},
               {utf8(tr("RSS slope")), "MiB/step"}},
              3);  // twelve columns: narrower padding, so that they fit a page
    for (const auto& r : perRank) {
      row(out, {std::to_string(r.rank), r.host, std::to_string(r.steps), number(r.samplesPerS),
                number(r.phases.dataMs, 2), number(r.phases.forwardMs, 2), number(r.phases.backwardMs, 2),
                number(r.phases.commWaitMs, 2), number(r.phases.optimizerMs, 2), number(r.busbwGbps, 2),
                number(r.peakRssMiB, 0), number(r.rssSlopeMiBPerStep, 3)});
    }
    out << "</table>\n";
  }

  // What was run: a user's program and its command line, or the built-in model and its settings.
  static void writeJobConfiguration(std::ostringstream& out, const RunInfo& info) {
    out << "<h2>" << escapeXml(utf8(tr("Job configuration")))
        << "</h2>\n<table class=\"config\" border=\"1\" cellspacing=\"0\" cellpadding=\"4\">\n";
    row(out, {utf8(tr("world size")), std::to_string(info.worldSize)});
    const v1::JobSpec& spec = info.spec;
    if (isUserProgram(spec)) {
      row(out,
          {utf8(tr("program")), shellLine({spec.program().argv().begin(), spec.program().argv().end()})});
      if (!spec.program().working_dir().empty())
        row(out, {utf8(tr("working folder")), spec.program().working_dir()});
      row(out,
          {utf8(tr("instrumented")),
           spec.program().uninstrumented() ? utf8(tr("no")) : utf8(tr("yes (ringmaster Python package)"))});
      if (spec.program().horovod())
        row(out, {utf8(tr("horovod layer")), utf8(tr("yes (Ringmaster's horovod.torch)"))});
    } else if (spec.engine() != v1::ENGINE_UNSPECIFIED || spec.model() != v1::MODEL_UNSPECIFIED) {
      const auto& h = spec.hyper();
      row(out, {utf8(tr("engine")), std::string(engineName(spec.engine()))});
      row(out, {utf8(tr("backend")), std::string(backendName(spec.backend()))});
      row(out, {utf8(tr("model")), std::string(modelName(spec.model()))});
      row(out, {utf8(tr("dataset")), std::string(datasetName(spec.dataset()))});
      row(out, {utf8(tr("batch size")), std::to_string(h.batch_size())});
      row(out,
          {utf8(tr("optimizer")), std::string(optimizerName(h.optimizer())) + format(", lr %g", h.lr())});
      row(out, {utf8(tr("steps / epochs")), format("%llu / %u", (unsigned long long)h.steps(), h.epochs())});
      row(out, {utf8(tr("bucket cap")), format("%g MiB", h.bucket_cap_mb())});
      row(out, {utf8(tr("fusion threshold")),
                utf8(tr("%1 MiB, cycle %2 ms")
                         .arg(QString::fromStdString(format("%g", h.fusion_threshold_mb())),
                              QString::fromStdString(format("%g", h.cycle_time_ms()))))});
      row(out, {utf8(tr("compression")), std::string(compressionName(h.compression()))});
    }
    if (!info.tags.empty()) {
      QStringList tags;
      for (const auto& t : info.tags) tags << QString::fromStdString(t);
      row(out, {utf8(tr("tags")), utf8(tags.join(tr(", ")))});
    }
    if (!info.notes.empty()) row(out, {utf8(tr("notes")), info.notes});
    out << "</table>\n";
  }

  // The run's environment, then each host's facts on one line.
  static void writeEnvironment(std::ostringstream& out, const Report& report) {
    const RunInfo& info = report.metrics.info;
    out << "<h2>" << escapeXml(utf8(tr("Environment")))
        << "</h2>\n<table class=\"environment\" border=\"1\" cellspacing=\"0\" cellpadding=\"4\">\n";
    for (const auto& [key, value] : info.environment) row(out, {key, value});
    for (const auto& [host, facts] : report.hosts) {
      std::string line;
      for (const auto& [key, value] : facts) line += (line.empty() ? "" : "; ") + key + " " + value;
      row(out, {utf8(tr("host %1").arg(QString::fromStdString(host))), line});
    }
    if (info.environment.empty() && report.hosts.empty()) row(out, {utf8(tr("(not recorded)")), ""});
    out << "</table>\n";
  }
};

std::string renderReportBody(const Report& report, const std::function<std::string(size_t)>& chartMarkup) {
  return ReportBody::render(report, chartMarkup);
}

namespace {

constexpr const char* kStyle = R"css(
body { font-family: sans-serif; margin: 24px auto; max-width: 1100px; color: #222; }
h1 { font-size: 22px; } h2 { font-size: 18px; margin-top: 28px; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; font-size: 13px; margin: 8px 0; }
th, td { border: 1px solid #ccc; padding: 3px 8px; text-align: left; vertical-align: top; }
th { background: #f3f3f3; } th .unit { font-weight: normal; color: #555; }
.meta { color: #666; font-size: 13px; } .figure { margin: 12px 0; }
svg.chart { max-width: 100%; height: auto; }
@media print {
  body { margin: 0; max-width: none; }
  h2, h3 { break-after: avoid; }
  tr, .figure { break-inside: avoid; }
}
)css";

void writeFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw InputError("cannot write " + path + ": check that the folder exists and is writable");
  out << text;
  if (!out.flush()) throw InputError("writing " + path + " failed (disk full?)");
}

}  // namespace

std::string renderHtml(const Report& report, PaperSize paper) {
  std::ostringstream out;
  out << "<!DOCTYPE html>\n<html lang=\"" << escapeXml(utf8(ReportBody::language())) << "\">\n<head>\n"
      << "<meta charset=\"utf-8\"/>\n<title>"
      << escapeXml(utf8(ReportBody::documentTitle(report.metrics.info.id))) << "</title>\n<style>" << kStyle
      << "@page { size: " << (paper == PaperSize::Letter ? "letter" : "A4")
      << "; margin: 15mm; }\n</style>\n</head>\n<body>\n"
      << renderReportBody(report, [&](size_t i) { return chartSvg(report.charts[i], 1000, 320); })
      << "</body>\n</html>\n";
  return out.str();
}

void writeHtmlReport(const Report& report, const std::string& path, PaperSize paper) {
  writeFile(path, renderHtml(report, paper));
}

}  // namespace ringmaster::console
