// SPDX-License-Identifier: GPL-3.0-or-later
// The report model: a run's metrics, findings, comparisons and charts, read from the run store.
#include "console/reports/report.h"

#include <QCoreApplication>
#include <QLocale>
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <map>
#include <set>

#include "common/error.h"
#include "console/models/palette.h"
#include "console/models/run_data.h"
#include "diagnosis/finding.h"
#include "diagnosis/run_diagnosis.h"

namespace ringmaster::console {

// The charts' titles, axes and legends, in the language of the program's installed translation (the window's
// for a report exported from it; English in the CLI).
class ReportCharts {
  Q_DECLARE_TR_FUNCTIONS(ringmaster::console::ReportCharts)

 public:
  static QString rankName(int rank) { return tr("rank %1").arg(rank); }
  static QString runName(int64_t id) { return tr("run %1").arg(id); }
};

namespace {

std::string words(const QString& s) {
  return s.toStdString();
}

std::string rankName(int rank) {
  return words(ReportCharts::rankName(rank));
}

std::string runName(int64_t id) {
  return words(ReportCharts::runName(id));
}

constexpr double kMiB = 1024.0 * 1024.0;
// Above this many ranks, per-rank line charts show the spread (min, median, max) plus the ranks findings
// name.
constexpr size_t kMaxRankLines = 16;

// The window's colours on a light page.
std::string rankLineColor(int rank, size_t rankCount) {
  return rankColor(rank, int(rankCount), false).hex();
}

// Per-rank lines over steps, or the spread across ranks when there are many.
std::vector<ChartSeries> perRankLines(
    const std::vector<RankSeries>& series, const std::set<int>& highlighted,
    const std::function<bool(const RankSeries&, size_t, double&, double&)>& point,
    const std::function<size_t(const RankSeries&)>& length) {
  std::vector<ChartSeries> lines;
  if (series.size() <= kMaxRankLines) {
    for (size_t i = 0; i < series.size(); ++i) {
      ChartSeries line;
      line.name = rankName(series[i].rank);
      line.color = rankLineColor(series[i].rank, series.size());
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
  // The spread in greys, the median as dark as the window's job-wide line; named ranks in their colours.
  ChartSeries low{words(ReportCharts::tr("min of ranks")), {}, "#bbbbbb", false},
      mid{words(ReportCharts::tr("median of ranks")), {}, totalColor(false).hex(), false},
      high{words(ReportCharts::tr("max of ranks")), {}, "#777777", false};
  for (auto& [x, ys] : byX) {
    low.points.emplace_back(x, *std::min_element(ys.begin(), ys.end()));
    high.points.emplace_back(x, *std::max_element(ys.begin(), ys.end()));
    mid.points.emplace_back(x, stats::median(ys));
  }
  lines = {low, mid, high};
  for (const auto& s : series) {
    if (!highlighted.count(s.rank)) continue;
    ChartSeries line;
    line.name = rankName(s.rank);
    line.color = rankLineColor(s.rank, series.size());
    for (size_t k = 0; k < length(s); ++k) {
      double x, y;
      if (point(s, k, x, y)) line.points.emplace_back(x, y);
    }
    lines.push_back(std::move(line));
  }
  return lines;
}

// The ranks findings name, drawn in their own colours even where a chart shows only the spread across ranks.
std::set<int> ranksNamedByFindings(const RunMetrics& m) {
  std::set<int> named;
  for (const auto& f : m.findings) {
    if (f.rank() >= 0) named.insert(f.rank());
  }
  return named;
}

size_t stepCount(const RankSeries& s) {
  return s.steps.size();
}

// The job's throughput per step, and that of each compared run beside it.
Chart throughputChart(const Report& report) {
  const RunMetrics& m = report.metrics;
  Chart throughput;
  throughput.title = words(ReportCharts::tr("Throughput (all ranks)"));
  throughput.xLabel = words(ReportCharts::tr("step"));
  throughput.yLabel = "samples/s";
  // Alone, the job's line is the window's "total"; beside other runs, each run has its Compare page colour.
  const size_t runs = 1 + report.compared.size();
  auto runColor = [&](size_t i) {
    return runs == 1 ? totalColor(false).hex() : rankColor(int(i), int(runs), false).hex();
  };
  ChartSeries job{runName(m.info.id), {}, runColor(0), false};
  for (size_t k = 0; k < m.stepThroughput.size(); ++k)
    job.points.emplace_back(double(k), m.stepThroughput[k]);
  throughput.series.push_back(job);
  for (size_t c = 0; c < report.compared.size(); ++c) {
    ChartSeries other{runName(report.compared[c].info.id), {}, runColor(c + 1), false};
    for (size_t k = 0; k < report.compared[c].stepThroughput.size(); ++k) {
      other.points.emplace_back(double(k), report.compared[c].stepThroughput[k]);
    }
    throughput.series.push_back(other);
  }
  return throughput;
}

// The loss per step, the mean over the ranks that reported one, as the Dashboard draws it. A profiler trace's
// steps have no loss (NaN, or 0 where imported before): then the chart has nothing to draw.
Chart lossChart(const std::vector<RankSeries>& series) {
  Chart loss;
  loss.title = words(ReportCharts::tr("Loss (mean over ranks)"));
  loss.xLabel = words(ReportCharts::tr("step"));
  loss.yLabel = words(ReportCharts::tr("loss"));
  std::map<uint64_t, std::pair<double, int>> byStep;
  bool anyNonZero = false;
  for (const auto& s : series) {
    for (const auto& step : s.steps) {
      if (!std::isfinite(step.loss())) continue;
      anyNonZero = anyNonZero || step.loss() != 0;
      auto& [sum, n] = byStep[step.step()];
      sum += step.loss();
      ++n;
    }
  }
  ChartSeries mean{words(ReportCharts::tr("loss")), {}, totalColor(false).hex(), false};
  if (anyNonZero) {
    for (const auto& [step, sumAndCount] : byStep)
      mean.points.emplace_back(double(step), sumAndCount.first / sumAndCount.second);
  }
  loss.series.push_back(std::move(mean));
  return loss;
}

// The test accuracy the ranks logged (after each epoch, for Ringmaster's own), in percent: the mean over the
// ranks, as the Dashboard draws it beside the loss.
Chart accuracyChart(const std::vector<RankSeries>& series) {
  Chart accuracy;
  accuracy.title = words(ReportCharts::tr("Test accuracy"));
  accuracy.xLabel = words(ReportCharts::tr("step"));
  accuracy.yLabel = "%";
  // As the Dashboard draws it: over the run's steps and the whole scale.
  double lastStep = 0;
  for (const auto& s : series) {
    if (!s.steps.empty()) lastStep = std::max(lastStep, double(s.steps.back().step()));
  }
  accuracy.xSpan = {0, lastStep};
  accuracy.ySpan = {0, 100};
  LoggedAccuracy logged;
  for (const auto& s : series) {
    for (const auto& scalar : s.scalars) logged.add(scalar);
  }
  ChartSeries mean{words(ReportCharts::tr("test accuracy")), {}, accuracyColor(false).hex(), false, true};
  for (const auto& [step, percent] : logged.percent()) mean.points.emplace_back(double(step), percent);
  accuracy.series.push_back(std::move(mean));
  return accuracy;
}

Chart perRankThroughputChart(const std::vector<RankSeries>& series, const std::set<int>& named) {
  Chart perRank;
  perRank.title = words(ReportCharts::tr("Per-rank throughput"));
  perRank.xLabel = words(ReportCharts::tr("step"));
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
  return perRank;
}

Chart computeChart(const std::vector<RankSeries>& series, const std::set<int>& named) {
  Chart compute;
  compute.title = words(ReportCharts::tr("Compute per step (forward + backward, before waiting)"));
  compute.xLabel = words(ReportCharts::tr("step"));
  compute.yLabel = "ms";
  compute.series = perRankLines(
      series, named,
      [](const RankSeries& s, size_t k, double& x, double& y) {
        x = double(s.steps[k].step());
        y = double(s.steps[k].forward_ns() + s.steps[k].backward_ns()) / 1e6;
        return true;
      },
      stepCount);
  return compute;
}

Chart phasesChart(const RunMetrics& m) {
  Chart phases;
  phases.kind = Chart::Kind::StackedBars;
  phases.title = words(ReportCharts::tr("Step phases per rank (mean)"));
  phases.xLabel = words(ReportCharts::tr("rank"));
  phases.yLabel = words(ReportCharts::tr("ms per step"));
  phases.segmentNames = {words(ReportCharts::tr("data")),      words(ReportCharts::tr("forward")),
                         words(ReportCharts::tr("backward")),  words(ReportCharts::tr("exposed comm")),
                         words(ReportCharts::tr("optimizer")), words(ReportCharts::tr("other"))};
  for (const char* phase : {"DATA", "FORWARD", "BACKWARD", "COMM_WAIT", "OPTIMIZER", "OTHER"})
    phases.segmentColors.push_back(phaseColor(phase).hex());
  for (const auto& r : m.perRank) {
    phases.bars.push_back({std::to_string(r.rank),
                           {r.phases.dataMs, r.phases.forwardMs, r.phases.backwardMs, r.phases.commWaitMs,
                            r.phases.optimizerMs, r.phases.otherMs()}});
  }
  return phases;
}

Chart allreduceLatencyChart(const std::vector<RankSeries>& series, const std::set<int>& named) {
  Chart latency;
  latency.title = words(ReportCharts::tr("All-reduce latency"));
  latency.xLabel = words(ReportCharts::tr("step"));
  latency.yLabel = words(ReportCharts::tr("ms (mean of the step's ops)"));
  auto opsPerStep = [](const RankSeries& s, size_t k, double& x, double& y) {
    // k indexes ops; average the ops of one step by only emitting at the last op of each step.
    const auto& ops = s.allreduce;
    if (k + 1 < ops.size() && ops[k + 1].step() == ops[k].step()) return false;
    size_t first = k;
    while (first > 0 && ops[first - 1].step() == ops[k].step()) --first;
    double sum = 0;
    for (size_t i = first; i <= k; ++i) sum += ops[i].latency_us();
    x = double(ops[k].step());
    y = sum / double(k - first + 1) / 1000.0;
    return true;
  };
  latency.series =
      perRankLines(series, named, opsPerStep, [](const RankSeries& s) { return s.allreduce.size(); });
  return latency;
}

Chart busBandwidthChart(const RunMetrics& m) {
  Chart bandwidth;
  bandwidth.kind = Chart::Kind::StackedBars;
  bandwidth.title = words(ReportCharts::tr("All-reduce bus bandwidth per rank (median)"));
  bandwidth.xLabel = words(ReportCharts::tr("rank"));
  bandwidth.yLabel = "GB/s";
  bandwidth.segmentNames = {"busbw"};
  bandwidth.segmentColors = {phaseColor("ALLREDUCE").hex()};
  for (const auto& r : m.perRank) bandwidth.bars.push_back({std::to_string(r.rank), {r.busbwGbps}});
  return bandwidth;
}

// RSS per rank, with the fitted trend of each rank's memory dashed over it.
Chart memoryChart(const Report& report, const std::vector<RankSeries>& series, const std::set<int>& named) {
  Chart memory;
  memory.title = words(ReportCharts::tr("Memory per rank (RSS) with trend lines"));
  memory.xLabel = words(ReportCharts::tr("step"));
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
    trend.name = t.leak ? words(ReportCharts::tr("rank %1 trend (leak)").arg(t.rank)) : "";
    // A leak's trend as the window draws it: its rank's colour, darker; other trends in grey.
    trend.color = t.leak ? trendColor(rankColor(t.rank, int(series.size()), false)).hex() : "#999999";
    trend.dashed = true;
    for (double step : {double(t.fromStep), double(t.toStep)}) {
      trend.points.emplace_back(step, (t.interceptBytes + t.bytesPerStep * step) / kMiB);
    }
    memory.series.push_back(trend);
  }
  return memory;
}

// Every chart a report may hold, in the order shown; buildReport leaves out those with nothing to draw.
std::vector<Chart> makeCharts(const Report& report, const std::vector<RankSeries>& series) {
  const RunMetrics& m = report.metrics;
  const std::set<int> named = ranksNamedByFindings(m);
  return {throughputChart(report),
          lossChart(series),
          accuracyChart(series),
          perRankThroughputChart(series, named),
          computeChart(series, named),
          phasesChart(m),
          allreduceLatencyChart(series, named),
          busBandwidthChart(m),
          memoryChart(report, series, named)};
}

}  // namespace

std::optional<PaperSize> parsePaperSize(const std::string& name) {
  std::string lower;
  for (char c : name) lower.push_back(char(std::tolower(static_cast<unsigned char>(c))));
  if (lower == "a4") return PaperSize::A4;
  if (lower == "letter") return PaperSize::Letter;
  return std::nullopt;
}

const char* paperSizeName(PaperSize paper) {
  return paper == PaperSize::Letter ? "letter" : "a4";
}

PaperSize paperSizeForLocale(const std::string& localeName) {
  // The territories whose locales print on Letter in the C library's locale data (LC_PAPER).
  static const std::set<QLocale::Territory> letter{
      QLocale::UnitedStates, QLocale::Canada, QLocale::Mexico,     QLocale::Philippines, QLocale::PuertoRico,
      QLocale::Bolivia,      QLocale::Chile,  QLocale::Colombia,   QLocale::CostaRica,   QLocale::Guatemala,
      QLocale::Nicaragua,    QLocale::Panama, QLocale::ElSalvador, QLocale::Venezuela};
  // "C", "POSIX" and names without a territory say nothing about paper.
  if (localeName.find('_') == std::string::npos) return PaperSize::A4;
  return letter.count(QLocale(QString::fromStdString(localeName)).territory()) ? PaperSize::Letter
                                                                               : PaperSize::A4;
}

PaperSize defaultPaperSize() {
  // The C library's order for one category: LC_ALL outranks LC_PAPER, which outranks LANG.
  for (const char* variable : {"LC_ALL", "LC_PAPER", "LANG"}) {
    const char* value = std::getenv(variable);
    if (value && *value) return paperSizeForLocale(value);
  }
  return PaperSize::A4;
}

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
  for (Chart& chart : makeCharts(report, series)) {
    const bool drawn =
        !chart.bars.empty() || std::any_of(chart.series.begin(), chart.series.end(),
                                           [](const ChartSeries& s) { return !s.points.empty(); });
    if (drawn) {
      report.charts.push_back(std::move(chart));
    } else {
      report.emptyCharts.push_back(chart.title);
    }
  }
  return report;
}

}  // namespace ringmaster::console
