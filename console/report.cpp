// SPDX-License-Identifier: GPL-3.0-or-later
#include "console/report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>

#include "common/chrome_trace.h"
#include "common/diagnosis/finding.h"
#include "common/diagnosis/run_diagnosis.h"
#include "common/error.h"
#include "common/job_spec.h"
#include "ringmaster/version.h"

namespace ringmaster::console {

namespace {

constexpr double kMiB = 1024.0 * 1024.0;
// Above this many ranks, per-rank line charts show the spread (min, median, max) plus the ranks findings name.
constexpr size_t kMaxRankLines = 16;

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

// Per-rank lines over steps, or the spread across ranks when there are many.
std::vector<ChartSeries> perRankLines(const std::vector<RankSeries>& series, const std::set<int>& highlighted,
                                      const std::function<bool(const RankSeries&, size_t, double&, double&)>& point,
                                      const std::function<size_t(const RankSeries&)>& length) {
  std::vector<ChartSeries> lines;
  if (series.size() <= kMaxRankLines) {
    for (size_t i = 0; i < series.size(); ++i) {
      ChartSeries line;
      line.name = "rank " + std::to_string(series[i].rank);
      line.color = paletteColor(i);
      for (size_t k = 0; k < length(series[i]); ++k) {
        double x, y;
        if (point(series[i], k, x, y)) line.points.emplace_back(x, y);
      }
      lines.push_back(std::move(line));
    }
    return lines;
  }
  std::map<double, std::vector<double>> byX;
  for (const auto& s : series) {
    for (size_t k = 0; k < length(s); ++k) {
      double x, y;
      if (point(s, k, x, y)) byX[x].push_back(y);
    }
  }
  ChartSeries low{"min of ranks", {}, "#9ecae1", false}, mid{"median of ranks", {}, "#3182bd", false},
      high{"max of ranks", {}, "#08519c", false};
  for (auto& [x, ys] : byX) {
    low.points.emplace_back(x, *std::min_element(ys.begin(), ys.end()));
    high.points.emplace_back(x, *std::max_element(ys.begin(), ys.end()));
    mid.points.emplace_back(x, stats::median(ys));
  }
  lines = {low, mid, high};
  size_t colour = 3;
  for (const auto& s : series) {
    if (!highlighted.count(s.rank)) continue;
    ChartSeries line;
    line.name = "rank " + std::to_string(s.rank);
    line.color = paletteColor(colour++);
    for (size_t k = 0; k < length(s); ++k) {
      double x, y;
      if (point(s, k, x, y)) line.points.emplace_back(x, y);
    }
    lines.push_back(std::move(line));
  }
  return lines;
}

std::vector<Chart> makeCharts(const Report& report, const std::vector<RankSeries>& series) {
  std::vector<Chart> charts;
  const RunMetrics& m = report.metrics;
  std::set<int> named;
  for (const auto& f : m.findings) {
    if (f.rank() >= 0) named.insert(f.rank());
  }
  auto stepCount = [](const RankSeries& s) { return s.steps.size(); };

  Chart throughput;
  throughput.title = "Throughput (all ranks)";
  throughput.xLabel = "step";
  throughput.yLabel = "samples/s";
  ChartSeries job{"run " + std::to_string(m.info.id), {}, paletteColor(0), false};
  {
    size_t i = 0;
    for (size_t k = 0; k < m.stepThroughput.size(); ++k) job.points.emplace_back(double(i++), m.stepThroughput[k]);
  }
  throughput.series.push_back(job);
  for (size_t c = 0; c < report.compared.size(); ++c) {
    ChartSeries other{"run " + std::to_string(report.compared[c].info.id), {}, paletteColor(c + 1), false};
    for (size_t k = 0; k < report.compared[c].stepThroughput.size(); ++k) {
      other.points.emplace_back(double(k), report.compared[c].stepThroughput[k]);
    }
    throughput.series.push_back(other);
  }
  charts.push_back(throughput);

  Chart perRank;
  perRank.title = "Per-rank throughput";
  perRank.xLabel = "step";
  perRank.yLabel = "samples/s";
  perRank.series = perRankLines(
      series, named,
      [](const RankSeries& s, size_t k, double& x, double& y) {
        const auto& step = s.steps[k];
        x = double(step.step());
        y = step.total_ns() > 0 ? step.samples() / (double(step.total_ns()) / 1e9) : NAN;
        return step.total_ns() > 0;
      },
      stepCount);
  charts.push_back(perRank);

  Chart compute;
  compute.title = "Compute per step (forward + backward, before waiting)";
  compute.xLabel = "step";
  compute.yLabel = "ms";
  compute.series = perRankLines(
      series, named,
      [](const RankSeries& s, size_t k, double& x, double& y) {
        x = double(s.steps[k].step());
        y = double(s.steps[k].forward_ns() + s.steps[k].backward_ns()) / 1e6;
        return true;
      },
      stepCount);
  charts.push_back(compute);

  Chart phases;
  phases.kind = Chart::Kind::StackedBars;
  phases.title = "Step phases per rank (mean)";
  phases.xLabel = "rank";
  phases.yLabel = "ms per step";
  phases.segmentNames = {"data", "forward", "backward", "exposed comm", "optimizer", "other"};
  for (const auto& r : m.perRank) {
    phases.bars.push_back({std::to_string(r.rank),
                           {r.phases.dataMs, r.phases.forwardMs, r.phases.backwardMs, r.phases.commWaitMs,
                            r.phases.optimizerMs, r.phases.otherMs()}});
  }
  charts.push_back(phases);

  Chart latency;
  latency.title = "All-reduce latency";
  latency.xLabel = "step";
  latency.yLabel = "us (mean of the step's ops)";
  auto opsPerStep = [](const RankSeries& s, size_t k, double& x, double& y) {
    // k indexes ops; average the ops of one step by only emitting at the last op of each step.
    const auto& ops = s.allreduce;
    if (k + 1 < ops.size() && ops[k + 1].step() == ops[k].step()) return false;
    size_t first = k;
    while (first > 0 && ops[first - 1].step() == ops[k].step()) --first;
    double sum = 0;
    for (size_t i = first; i <= k; ++i) sum += ops[i].latency_us();
    x = double(ops[k].step());
    y = sum / double(k - first + 1);
    return true;
  };
  latency.series = perRankLines(series, named, opsPerStep, [](const RankSeries& s) { return s.allreduce.size(); });
  charts.push_back(latency);

  Chart bandwidth;
  bandwidth.kind = Chart::Kind::StackedBars;
  bandwidth.title = "All-reduce bus bandwidth per rank (median)";
  bandwidth.xLabel = "rank";
  bandwidth.yLabel = "GB/s";
  bandwidth.segmentNames = {"busbw"};
  for (const auto& r : m.perRank) bandwidth.bars.push_back({std::to_string(r.rank), {r.busbwGbps}});
  charts.push_back(bandwidth);

  Chart memory;
  memory.title = "Memory per rank (RSS) with trend lines";
  memory.xLabel = "step";
  memory.yLabel = "MiB";
  memory.series = perRankLines(
      series, named,
      [](const RankSeries& s, size_t k, double& x, double& y) {
        x = double(s.memory[k].step());
        y = double(s.memory[k].rss_bytes()) / kMiB;
        return true;
      },
      [](const RankSeries& s) { return s.memory.size(); });
  for (const auto& t : report.memoryTrends) {
    if (t.device || (!t.leak && series.size() > kMaxRankLines)) continue;
    if (t.toStep <= t.fromStep) continue;
    ChartSeries trend;
    trend.name = t.leak ? "rank " + std::to_string(t.rank) + " trend (leak)" : "";
    trend.color = t.leak ? "#d62728" : "#999999";
    trend.dashed = true;
    for (double step : {double(t.fromStep), double(t.toStep)}) {
      trend.points.emplace_back(step, (t.interceptBytes + t.bytesPerStep * step) / kMiB);
    }
    memory.series.push_back(trend);
  }
  charts.push_back(memory);
  return charts;
}

}  // namespace

Report buildReport(const RunStore& store, int64_t runId, const std::vector<int64_t>& compareWith) {
  Report report;
  auto info = store.run(runId);
  if (!info) throw InputError("no run " + std::to_string(runId) + " in " + store.path());
  auto series = store.rankSeries(runId);
  report.ranks = store.ranks(runId);
  report.hosts = store.hosts(runId);
  report.counts = store.counts(runId);
  report.metrics = computeMetrics(*info, series, report.ranks, diagnosis::storedFindings(store, runId));
  report.memoryTrends = report.metrics.memoryTrends;
  for (int64_t other : compareWith) {
    report.compared.push_back(loadMetrics(store, other));
    report.comparisons.push_back(compareRuns(report.metrics, report.compared.back()));
  }
  report.charts = makeCharts(report, series);
  return report;
}

namespace {

void row(std::ostringstream& out, const std::vector<std::string>& cells, bool header = false) {
  out << "<tr>";
  for (const auto& c : cells) out << (header ? "<th>" : "<td>") << escapeXml(c) << (header ? "</th>" : "</td>");
  out << "</tr>\n";
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
  if (field == "fusion threshold") return format("%g MiB, cycle %g ms", h.fusion_threshold_mb(), h.cycle_time_ms());
  if (field == "compression") return std::string(compressionName(h.compression()));
  return "";
}

// The body shared by HTML and PDF: `chartHtml(i)` gives the markup of chart i (inline SVG or an image).
std::string renderBody(const Report& report, const std::function<std::string(size_t)>& chartHtml) {
  const RunMetrics& m = report.metrics;
  const RunInfo& info = m.info;
  std::ostringstream out;
  out << "<h1>Ringmaster run report: run " << info.id << " " << escapeXml(info.name) << "</h1>\n";
  out << "<p class=\"meta\">Status " << escapeXml(info.status) << " · started " << timeText(info.startedUnixNs)
      << " · ended " << timeText(info.endedUnixNs) << " · source " << escapeXml(info.source)
      << " · written by Ringmaster " << RINGMASTER_VERSION << "</p>\n";

  out << "<h2>Summary</h2>\n<table class=\"summary\" border=\"1\" cellspacing=\"0\" cellpadding=\"4\">\n";
  row(out, {"ranks", std::to_string(m.ranks)});
  row(out, {"steps (every rank)", std::to_string(m.steps)});
  row(out, {"throughput", number(m.throughput) + " samples/s"});
  row(out, {"step time mean / p50 / p95",
            number(m.stepMeanMs, 2) + " / " + number(m.stepP50Ms, 2) + " / " + number(m.stepP95Ms, 2) + " ms"});
  double total = m.phases.totalMs > 0 ? m.phases.totalMs : 1;
  row(out, {"phase shares", format("data %.0f%%, forward %.0f%%, backward %.0f%%, exposed comm %.0f%%, optimizer "
                                   "%.0f%%, other %.0f%%",
                                   100 * m.phases.dataMs / total, 100 * m.phases.forwardMs / total,
                                   100 * m.phases.backwardMs / total, 100 * m.phases.commWaitMs / total,
                                   100 * m.phases.optimizerMs / total, 100 * m.phases.otherMs() / total)});
  row(out, {"all-reduce", format("%llu ops, median %.1f us, bus bandwidth %.2f GB/s, overlap %.0f%%",
                                 (unsigned long long)m.allreduceOps, m.allreduceLatencyUs, m.busbwGbps, m.overlapPct)});
  row(out, {"memory", format("peak %.0f MiB, steepest growth %.3f MiB/step", m.peakRssMiB, m.rssSlopeMiBPerStep)});
  row(out, {"final loss", number(m.finalLoss, 4)});
  row(out, {"findings", std::to_string(m.findings.size())});
  row(out, {"stored rows", format("%lld steps, %lld all-reduce ops, %lld memory samples, %lld timeline events, "
                                  "%lld log lines",
                                  (long long)report.counts.steps, (long long)report.counts.allreduceOps,
                                  (long long)report.counts.memorySamples, (long long)report.counts.timelineEvents,
                                  (long long)report.counts.logLines)});
  out << "</table>\n";

  out << "<h2>Findings</h2>\n";
  if (m.findings.empty()) {
    out << "<p>No stragglers, leaks, stalls or communication problems were found.</p>\n";
  } else {
    out << "<table class=\"findings\" border=\"1\" cellspacing=\"0\" cellpadding=\"4\">\n";
    row(out, {"severity", "kind", "rank", "host", "since step", "cause", "what"}, true);
    for (const auto& f : m.findings) {
      std::map<std::string, double> evidence(f.evidence().begin(), f.evidence().end());
      std::string shown;
      for (const auto& [key, value] : evidence) shown += (shown.empty() ? "" : ", ") + key + " " + format("%.4g", value);
      row(out, {diagnosis::severityLabel(f.severity()), diagnosis::kindLabel(f.kind()),
                f.rank() < 0 ? "job" : std::to_string(f.rank()), f.host(), std::to_string(f.since_step()), f.cause(),
                f.summary()});
      // The figures behind the finding, on a row of their own so that long names do not squeeze the table.
      out << "<tr><td colspan=\"7\" class=\"evidence\"><i>evidence:</i> " << escapeXml(shown) << "</td></tr>\n";
    }
    out << "</table>\n";
  }

  if (!report.comparisons.empty()) {
    out << "<h2>Comparison</h2>\n";
    for (const auto& c : report.comparisons) {
      out << "<h3>" << escapeXml(c.otherName) << " against " << escapeXml(c.baseName) << "</h3>\n<p><b>"
          << escapeXml(c.verdict) << "</b></p>\n<table class=\"comparison\" border=\"1\" cellspacing=\"0\" "
                                     "cellpadding=\"4\">\n";
      row(out, {"metric", "unit", c.baseName, c.otherName, "difference", "95% CI"}, true);
      for (const auto& d : c.deltas) {
        std::string ci = d.interval ? format("%+.1f%% to %+.1f%%", 100 * d.interval->lower, 100 * d.interval->upper) : "";
        row(out, {d.metric, d.unit, format("%.4g", d.base), format("%.4g", d.other), format("%+.1f%%", 100 * d.relative),
                  ci});
      }
      out << "</table>\n";
    }
  }

  out << "<h2>Charts</h2>\n";
  for (size_t i = 0; i < report.charts.size(); ++i) out << "<div class=\"figure\">" << chartHtml(i) << "</div>\n";

  out << "<h2>Ranks</h2>\n<table class=\"ranks\" border=\"1\" cellspacing=\"0\" cellpadding=\"4\">\n";
  row(out, {"rank", "host", "steps", "samples/s", "data ms", "forward ms", "backward ms", "comm wait ms",
            "optimizer ms", "busbw GB/s", "peak RSS MiB", "RSS slope MiB/step"},
      true);
  for (const auto& r : m.perRank) {
    row(out, {std::to_string(r.rank), r.host, std::to_string(r.steps), number(r.samplesPerS), number(r.phases.dataMs, 2),
              number(r.phases.forwardMs, 2), number(r.phases.backwardMs, 2), number(r.phases.commWaitMs, 2),
              number(r.phases.optimizerMs, 2), number(r.busbwGbps, 2), number(r.peakRssMiB, 0),
              number(r.rssSlopeMiBPerStep, 3)});
  }
  out << "</table>\n";

  out << "<h2>Job configuration</h2>\n<table class=\"config\" border=\"1\" cellspacing=\"0\" cellpadding=\"4\">\n";
  row(out, {"world size", std::to_string(info.worldSize)});
  if (info.spec.engine() != v1::ENGINE_UNSPECIFIED || info.spec.model() != v1::MODEL_UNSPECIFIED) {
    for (const char* field : {"engine", "backend", "model", "dataset", "batch size", "optimizer", "steps / epochs",
                              "bucket cap", "fusion threshold", "compression"}) {
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

  out << "<h2>Environment</h2>\n<table class=\"environment\" border=\"1\" cellspacing=\"0\" cellpadding=\"4\">\n";
  for (const auto& [key, value] : info.environment) row(out, {key, value});
  for (const auto& [host, facts] : report.hosts) {
    std::string text;
    for (const auto& [key, value] : facts) text += (text.empty() ? "" : "; ") + key + " " + value;
    row(out, {"host " + host, text});
  }
  if (info.environment.empty() && report.hosts.empty()) row(out, {"(not recorded)", ""});
  out << "</table>\n";
  return out.str();
}

constexpr const char* kStyle = R"css(
body { font-family: sans-serif; margin: 24px auto; max-width: 1100px; color: #222; }
h1 { font-size: 22px; } h2 { font-size: 18px; margin-top: 28px; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; font-size: 13px; margin: 8px 0; }
th, td { border: 1px solid #ccc; padding: 3px 8px; text-align: left; vertical-align: top; }
th { background: #f3f3f3; } .meta { color: #666; font-size: 13px; } .figure { margin: 12px 0; }
)css";

void writeFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw InputError("cannot write " + path + ": check that the folder exists and is writable");
  out << text;
  if (!out.flush()) throw InputError("writing " + path + " failed (disk full?)");
}

}  // namespace

std::string renderHtml(const Report& report) {
  std::ostringstream out;
  out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n<title>Ringmaster report: run "
      << report.metrics.info.id << "</title>\n<style>" << kStyle << "</style>\n</head>\n<body>\n"
      << renderBody(report, [&](size_t i) { return chartSvg(report.charts[i], 1000, 320); }) << "</body>\n</html>\n";
  return out.str();
}

std::string renderPdfBody(const Report& report) {
  return renderBody(report, [](size_t i) { return "<img src=\"chart" + std::to_string(i) + "\" width=\"640\">"; });
}

void writeHtmlReport(const Report& report, const std::string& path) { writeFile(path, renderHtml(report)); }

const std::map<std::string, std::vector<std::string>>& csvMetrics() {
  static const std::map<std::string, std::vector<std::string>> metrics = {
      {"steps", {"data_ns", "forward_ns", "backward_ns", "comm_wait_ns", "optimizer_ns", "total_ns", "samples", "loss", "lr"}},
      {"allreduce_ops", {"bucket", "bytes", "latency_us", "algbw_gbps", "busbw_gbps", "tensors"}},
      {"memory_samples", {"rss_bytes", "heap_bytes", "device_used_bytes", "device_total_bytes", "host_total_bytes"}},
      {"timeline_events", {"duration_ns"}},
      {"stall_reports", {"waited_s"}},
  };
  return metrics;
}

uint64_t writeCsv(const RunStore& store, int64_t runId, const std::string& path) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw InputError("cannot write " + path + ": check that the folder exists and is writable");
  out << "run,table,rank,step,time_ns,label,metric,value\n";
  uint64_t rows = 0;
  std::string prefix = std::to_string(runId) + ",";
  char value[40];
  auto emit = [&](const char* table, int rank, uint64_t step, int64_t timeNs, const std::string& label,
                  const std::string& metric, double v) {
    std::snprintf(value, sizeof value, "%.17g", v);
    out << prefix << table << ',' << rank << ',' << step << ',' << timeNs << ',' << label << ',' << metric << ','
        << value << '\n';
    ++rows;
  };
  // Labels are quoted CSV fields when they need it.
  auto quote = [](const std::string& text) {
    if (text.find_first_of(",\"\n") == std::string::npos) return text;
    std::string q = "\"";
    for (char c : text) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
  };
  for (const auto& s : store.rankSeries(runId)) {
    for (const auto& x : s.steps) {
      const double values[] = {double(x.data_ns()), double(x.forward_ns()), double(x.backward_ns()),
                               double(x.comm_wait_ns()), double(x.optimizer_ns()), double(x.total_ns()),
                               double(x.samples()), x.loss(), x.lr()};
      const auto& names = csvMetrics().at("steps");
      for (size_t i = 0; i < names.size(); ++i) emit("steps", x.rank(), x.step(), x.start_ns(), "", names[i], values[i]);
    }
    for (const auto& x : s.allreduce) {
      const double values[] = {double(x.bucket()), double(x.bytes()), x.latency_us(), x.algbw_gbps(), x.busbw_gbps(),
                               double(x.tensors())};
      const auto& names = csvMetrics().at("allreduce_ops");
      for (size_t i = 0; i < names.size(); ++i) {
        emit("allreduce_ops", x.rank(), x.step(), x.start_ns(), "", names[i], values[i]);
      }
    }
    for (const auto& x : s.memory) {
      const double values[] = {double(x.rss_bytes()), double(x.heap_bytes()), double(x.device_used_bytes()),
                               double(x.device_total_bytes()), double(x.host_total_bytes())};
      const auto& names = csvMetrics().at("memory_samples");
      for (size_t i = 0; i < names.size(); ++i) {
        emit("memory_samples", x.rank(), x.step(), x.time_ns(), "", names[i], values[i]);
      }
    }
  }
  store.forEachTimelineEvent(runId, [&](const v1::TimelineEvent& e) {
    emit("timeline_events", e.rank(), e.step(), e.start_ns(), quote(e.lane() + "/" + e.name()), "duration_ns",
         double(e.end_ns() - e.start_ns()));
  });
  for (const auto& s : store.stallReports(runId)) {
    emit("stall_reports", s.reporting_rank(), 0, 0, "", "waited_s", s.waited_s());
  }
  for (const auto& f : store.findings(runId)) {
    std::map<std::string, double> evidence(f.evidence().begin(), f.evidence().end());
    for (const auto& [key, v] : evidence) {
      emit("findings", f.rank(), f.since_step(), 0, quote(diagnosis::kindLabel(f.kind())), key, v);
    }
  }
  if (!out.flush()) throw InputError("writing " + path + " failed (disk full?)");
  return rows;
}

uint64_t writeTrace(const RunStore& store, int64_t runId, const std::string& path) {
  ChromeTraceWriter writer(path);
  std::map<int, std::string> hosts;
  for (const auto& r : store.ranks(runId)) hosts[r.rank] = r.host;
  std::set<int> named;
  auto nameRank = [&](int rank) {
    if (!named.insert(rank).second) return;
    auto host = hosts.count(rank) && !hosts[rank].empty() ? " (" + hosts[rank] + ")" : std::string();
    writer.nameRank(rank, "rank " + std::to_string(rank) + host);
  };
  uint64_t events = 0;
  auto add = [&](const v1::TimelineEvent& e) {
    nameRank(e.rank());
    writer.add(e);
    if (++events % 100000 == 0) writer.flush();
  };
  store.forEachTimelineEvent(runId, add);
  if (events == 0) {
    // No timeline was recorded: draw one from the step phases and the all-reduce ops.
    v1::TimelineEvent e;
    for (const auto& s : store.rankSeries(runId)) {
      for (const auto& step : s.steps) {
        int64_t t = step.start_ns();
        const std::pair<const char*, int64_t> phases[] = {{"DATA", step.data_ns()},
                                                          {"FORWARD", step.forward_ns()},
                                                          {"BACKWARD", step.backward_ns()},
                                                          {"COMM_WAIT", step.comm_wait_ns()},
                                                          {"OPTIMIZER", step.optimizer_ns()}};
        for (const auto& [name, duration] : phases) {
          e.Clear();
          e.set_rank(s.rank);
          e.set_lane("compute");
          e.set_name(name);
          e.set_start_ns(t);
          e.set_end_ns(t + duration);
          e.set_step(step.step());
          add(e);
          t += duration;
        }
      }
      for (const auto& op : s.allreduce) {
        e.Clear();
        e.set_rank(s.rank);
        e.set_lane("comm");
        e.set_name("ALLREDUCE");
        e.set_start_ns(op.start_ns());
        e.set_end_ns(op.end_ns());
        e.set_step(op.step());
        (*e.mutable_args())["bytes"] = std::to_string(op.bytes());
        (*e.mutable_args())["bucket"] = std::to_string(op.bucket());
        (*e.mutable_args())["busbw_gbps"] = format("%.3f", op.busbw_gbps());
        add(e);
      }
    }
  }
  writer.flush();
  return events;
}

}  // namespace ringmaster::console
