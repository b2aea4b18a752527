// SPDX-License-Identifier: GPL-3.0-or-later
// The HTML report: one self-contained file (inline SVG charts, inline style, nothing fetched), and the body
// of headings and tables that the PDF report shares.
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
#include "console/models/palette.h"
#include "console/reports/report.h"
#include "diagnosis/advice.h"
#include "diagnosis/evidence_text.h"
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

std::string specValue(const v1::JobSpec& spec, const std::string& field) {
  const auto& h = spec.hyper();
  if (field == "engine") return std::string(engineName(spec.engine()));
  if (field == "backend") return std::string(backendName(spec.backend()));
  if (field == "model") return std::string(modelName(spec.model()));
  if (field == "dataset") return std::string(datasetName(spec.dataset()));
  if (field == "batch size") return std::to_string(h.batch_size());
  if (field == "optimizer") return std::string(optimizerName(h.optimizer())) + format(", lr %g", h.lr());
  if (field == "steps / epochs") return format("%llu / %u", (unsigned long long)h.steps(), h.epochs());
  if (field == "bucket cap") return format("%g MiB", h.bucket_cap_mb());
  if (field == "fusion threshold")
    return format("%g MiB, cycle %g ms", h.fusion_threshold_mb(), h.cycle_time_ms());
  if (field == "compression") return std::string(compressionName(h.compression()));
  return "";
}

// The heading, and the run's status, times and source under it.
void writeTitle(std::ostringstream& out, const RunInfo& info) {
  out << "<h1>Ringmaster run report: run " << info.id << " " << escapeXml(info.name) << "</h1>\n";
  out << "<p class=\"meta\">Status " << escapeXml(info.status) << " · started "
      << timeText(info.startedUnixNs) << " · ended " << timeText(info.endedUnixNs) << " · source "
      << escapeXml(info.source) << " · written by Ringmaster " << RINGMASTER_VERSION << "</p>\n";
  if (isInterruptedImport(info)) {
    out << "<p class=\"meta\"><b>Interrupted import:</b> the import did not finish (the process importing "
           "it ended first); this report covers only the part of the trace stored until then.</p>\n";
  }
}

void writeSummary(std::ostringstream& out, const Report& report) {
  const RunMetrics& m = report.metrics;
  out << "<h2>Summary</h2>\n<table class=\"summary\" border=\"1\" cellspacing=\"0\" cellpadding=\"4\">\n";
  // What the run did not measure (an imported timeline has no step samples) is said, never shown as zeros.
  const std::string noSteps = "not measured (no step samples)";
  const bool steps = m.steps > 0;
  row(out, {"ranks", std::to_string(std::max(m.ranks, m.info.worldSize))});
  row(out, {"steps (every rank)", std::to_string(m.steps)});
  row(out, {"throughput", !steps             ? noSteps
                          : m.throughput > 0 ? number(m.throughput) + " samples/s"
                                             : "not measured (no sample counts)"});
  row(out, {"step time mean / p50 / p95", steps ? number(m.stepMeanMs, 2) + " / " + number(m.stepP50Ms, 2) +
                                                      " / " + number(m.stepP95Ms, 2) + " ms"
                                                : noSteps});
  double total = m.phases.totalMs > 0 ? m.phases.totalMs : 1;
  row(out,
      {"phase shares",
       steps ? format("data %.0f%%, forward %.0f%%, backward %.0f%%, exposed comm %.0f%%, optimizer %.0f%%, "
                      "other %.0f%%",
                      100 * m.phases.dataMs / total, 100 * m.phases.forwardMs / total,
                      100 * m.phases.backwardMs / total, 100 * m.phases.commWaitMs / total,
                      100 * m.phases.optimizerMs / total, 100 * m.phases.otherMs() / total)
             : noSteps});
  row(out,
      {"all-reduce",
       m.allreduceOps > 0
           ? format("%llu ops, median %s, bus bandwidth %s, overlap %s", (unsigned long long)m.allreduceOps,
                    m.allreduceLatencyUs > 0 ? latencyText(m.allreduceLatencyUs).c_str() : "not measured",
                    m.busbwGbps > 0 ? format("%.2f GB/s", m.busbwGbps).c_str() : "not measured",
                    m.allreduceLatencyUs > 0 ? format("%.0f%%", m.overlapPct).c_str() : "not measured")
           : "not measured (no all-reduce ops)"});
  row(out, {"memory", m.peakRssMiB > 0 ? format("peak %.0f MiB, steepest growth %.3f MiB/step", m.peakRssMiB,
                                                m.rssSlopeMiBPerStep)
                                       : "not measured (no memory samples)"});
  row(out, {"final loss", !steps        ? noSteps
                          : m.finalLoss ? number(*m.finalLoss, 4)
                                        : "not measured (no loss reported)"});
  row(out, {"findings", std::to_string(m.findings.size())});
  row(out,
      {"stored rows", format("%lld steps, %lld all-reduce ops, %lld memory samples, %lld timeline events, "
                             "%lld log lines",
                             (long long)report.counts.steps, (long long)report.counts.allreduceOps,
                             (long long)report.counts.memorySamples, (long long)report.counts.timelineEvents,
                             (long long)report.counts.logLines)});
  out << "</table>\n";
}

void writeFindings(std::ostringstream& out, const std::vector<v1::Finding>& findings) {
  out << "<h2>Findings</h2>\n";
  if (findings.empty()) {
    out << "<p>No stragglers, leaks, stalls or communication problems were found.</p>\n";
    return;
  }
  tableHead(out, "findings",
            {{"severity"}, {"kind"}, {"rank"}, {"host"}, {"since step"}, {"cause"}, {"what"}});
  for (const auto& f : findings) {
    // The severity in the colour the Findings page marks it with.
    out << "<tr><td><b style=\"color: " << severityColor(f.severity()).hex() << "\">"
        << diagnosis::severityLabel(f.severity()) << "</b></td>";
    for (const std::string& cell : {std::string(diagnosis::kindLabel(f.kind())),
                                    f.rank() < 0 ? std::string("job") : std::to_string(f.rank()), f.host(),
                                    std::to_string(f.since_step()), f.cause()})
      out << "<td>" << escapeXml(cell) << "</td>";
    // What happened, and under it the figures behind it: in the widest column, where they wrap least (a row
    // of their own, spanning the table, would make every column as wide as they are long).
    out << "<td>" << escapeXml(f.summary()) << "<br/><i>evidence:</i> " << escapeXml(evidenceLine(f))
        << "</td></tr>\n";
  }
  out << "</table>\n";
}

// What to do, most severe first, each naming the finding it answers.
// A report is read away from the window: its advice names commands, and fits the run's source.
void writeRecommendations(std::ostringstream& out, const RunInfo& run,
                          const std::vector<v1::Finding>& findings) {
  out << "<h2>Recommendations</h2>\n";
  const diagnosis::AdviceReader reader =
      diagnosis::adviceReaderOf(run.source, isUserProgram(run.spec), run.id, true);
  std::ostringstream advice;
  for (const auto& f : findings) {
    const std::string text = diagnosis::adviceTextFor(f, reader);
    if (text.empty()) continue;
    const std::string who = f.rank() < 0 ? "job" : "rank " + std::to_string(f.rank());
    advice << "<li><b>" << escapeXml(diagnosis::kindLabel(f.kind())) << ", " << escapeXml(who) << " ("
           << diagnosis::severityLabel(f.severity()) << "):</b> " << escapeXml(text) << "</li>\n";
  }
  if (advice.str().empty()) {
    out << "<p>Nothing to do: no finding calls for a change.</p>\n";
  } else {
    out << "<ol class=\"recommendations\">\n" << advice.str() << "</ol>\n";
  }
}

// One table per compared run; a report of one run alone has no Comparison section.
void writeComparisons(std::ostringstream& out, const std::vector<RunComparison>& comparisons) {
  if (comparisons.empty()) return;
  out << "<h2>Comparison</h2>\n";
  for (const auto& c : comparisons) {
    const std::string base = toText(c.baseName), other = toText(c.otherName);
    out << "<h3>" << escapeXml(other) << " against " << escapeXml(base) << "</h3>\n<p><b>"
        << escapeXml(toText(c.verdict)) << "</b></p>\n";
    tableHead(out, "comparison", {{"metric"}, {"unit"}, {base}, {other}, {"difference"}, {"95% CI"}});
    for (const auto& measured : c.deltas) {
      const MetricDelta d = shown(measured);
      std::string ci =
          d.interval ? format("%+.1f%% to %+.1f%%", 100 * d.interval->lower, 100 * d.interval->upper) : "";
      if (!isEmpty(d.missing)) {
        row(out, {d.metric, d.unit, "–", "–", "not measured", toText(d.missing)});
        continue;
      }
      row(out, {d.metric, d.unit, format("%.4g", d.base), format("%.4g", d.other), d.changeText(), ci});
    }
    out << "</table>\n";
  }
}

// The charts drawn, then the titles of those left out for having nothing to draw.
void writeCharts(std::ostringstream& out, const Report& report,
                 const std::function<std::string(size_t)>& chartMarkup) {
  out << "<h2>Charts</h2>\n";
  for (size_t i = 0; i < report.charts.size(); ++i)
    out << "<div class=\"figure\">" << chartMarkup(i) << "</div>\n";
  if (report.emptyCharts.empty()) return;
  std::string titles;
  for (const auto& title : report.emptyCharts) titles += (titles.empty() ? "" : ", ") + title;
  out << "<p>" << (report.charts.empty() ? "No charts: this run holds nothing to draw them from" : "Left out")
      << " (" << escapeXml(titles) << ")."
      << (report.counts.timelineEvents > 0
              ? " Its " + std::to_string(report.counts.timelineEvents) +
                    " timeline events are in the Chrome trace export (--format trace)."
              : "")
      << "</p>\n";
}

void writeRanks(std::ostringstream& out, const std::vector<RankMetrics>& perRank) {
  out << "<h2>Ranks</h2>\n";
  if (perRank.empty()) {
    out << "<p>No per-rank measurements.</p>\n";
    return;
  }
  tableHead(out, "ranks",
            {{"rank"},
             {"host"},
             {"steps"},
             {"throughput", "samples/s"},
             {"data", "ms"},
             {"forward", "ms"},
             {"backward", "ms"},
             {"comm wait", "ms"},
             {"optimizer", "ms"},
             {"busbw", "GB/s"},
             {"peak RSS", "MiB"},
             {"RSS slope", "MiB/step"}},
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
void writeJobConfiguration(std::ostringstream& out, const RunInfo& info) {
  out << "<h2>Job configuration</h2>\n<table class=\"config\" border=\"1\" cellspacing=\"0\" "
         "cellpadding=\"4\">\n";
  row(out, {"world size", std::to_string(info.worldSize)});
  if (isUserProgram(info.spec)) {
    row(out, {"program", shellLine({info.spec.program().argv().begin(), info.spec.program().argv().end()})});
    if (!info.spec.program().working_dir().empty())
      row(out, {"working folder", info.spec.program().working_dir()});
    row(out,
        {"instrumented", info.spec.program().uninstrumented() ? "no" : "yes (ringmaster Python package)"});
    if (info.spec.program().horovod()) row(out, {"horovod layer", "yes (Ringmaster's horovod.torch)"});
  } else if (info.spec.engine() != v1::ENGINE_UNSPECIFIED || info.spec.model() != v1::MODEL_UNSPECIFIED) {
    for (const char* field : {"engine", "backend", "model", "dataset", "batch size", "optimizer",
                              "steps / epochs", "bucket cap", "fusion threshold", "compression"}) {
      row(out, {field, specValue(info.spec, field)});
    }
  }
  if (!info.tags.empty()) {
    std::string tags;
    for (const auto& t : info.tags) tags += (tags.empty() ? "" : ", ") + t;
    row(out, {"tags", tags});
  }
  if (!info.notes.empty()) row(out, {"notes", info.notes});
  out << "</table>\n";
}

// The run's environment, then each host's facts on one line.
void writeEnvironment(std::ostringstream& out, const Report& report) {
  const RunInfo& info = report.metrics.info;
  out << "<h2>Environment</h2>\n<table class=\"environment\" border=\"1\" cellspacing=\"0\" "
         "cellpadding=\"4\">\n";
  for (const auto& [key, value] : info.environment) row(out, {key, value});
  for (const auto& [host, facts] : report.hosts) {
    std::string text;
    for (const auto& [key, value] : facts) text += (text.empty() ? "" : "; ") + key + " " + value;
    row(out, {"host " + host, text});
  }
  if (info.environment.empty() && report.hosts.empty()) row(out, {"(not recorded)", ""});
  out << "</table>\n";
}

}  // namespace

std::string renderReportBody(const Report& report, const std::function<std::string(size_t)>& chartMarkup) {
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
  out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n<title>Ringmaster report: "
         "run "
      << report.metrics.info.id << "</title>\n<style>" << kStyle
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
