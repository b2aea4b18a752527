// SPDX-License-Identifier: GPL-3.0-or-later
#include "console/run_summary.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSaveFile>
#include <algorithm>
#include <cmath>

#include "common/error.h"
#include "common/job_spec.h"

namespace ringmaster::console {
namespace {

constexpr size_t kLatenciesKept = 200000;

double percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  double index = p * static_cast<double>(values.size() - 1);
  size_t lo = static_cast<size_t>(std::floor(index));
  size_t hi = std::min(values.size() - 1, lo + 1);
  return values[lo] + (values[hi] - values[lo]) * (index - static_cast<double>(lo));
}

QString q(const std::string& s) { return QString::fromStdString(s); }
QString q(std::string_view s) { return QString::fromUtf8(s.data(), static_cast<int>(s.size())); }

}  // namespace

double leastSquaresSlope(const std::vector<std::pair<double, double>>& points) {
  if (points.size() < 2) return 0;
  double mx = 0, my = 0;
  for (const auto& [x, y] : points) {
    mx += x;
    my += y;
  }
  mx /= static_cast<double>(points.size());
  my /= static_cast<double>(points.size());
  double sxy = 0, sxx = 0;
  for (const auto& [x, y] : points) {
    sxy += (x - mx) * (y - my);
    sxx += (x - mx) * (x - mx);
  }
  return sxx > 0 ? sxy / sxx : 0;
}

RunSummaryBuilder::RunSummaryBuilder(v1::JobSpec spec) : spec_(std::move(spec)) {}

void RunSummaryBuilder::onRecords(const std::string&, const std::string& host, const std::vector<v1::Record>& records) {
  std::lock_guard lock(mutex_);
  for (const auto& record : records) {
    switch (record.body_case()) {
      case v1::Record::kStep: {
        const auto& s = record.step();
        Rank& r = ranks_[s.rank()];
        r.host = host;
        r.steps += 1;
        r.samples += s.samples();
        r.dataNs += s.data_ns();
        r.forwardNs += s.forward_ns();
        r.backwardNs += s.backward_ns();
        r.commWaitNs += s.comm_wait_ns();
        r.optimizerNs += s.optimizer_ns();
        r.totalNs += s.total_ns();
        r.lastLoss = s.loss();
        break;
      }
      case v1::Record::kAllreduce: {
        const auto& op = record.allreduce();
        Rank& r = ranks_[op.rank()];
        r.allreduceOps += 1;
        r.allreduceBytes += op.bytes();
        r.busbwSum += op.busbw_gbps();
        if (r.latenciesUs.size() < kLatenciesKept) r.latenciesUs.push_back(op.latency_us());
        break;
      }
      case v1::Record::kMemory: {
        const auto& m = record.memory();
        Rank& r = ranks_[m.rank()];
        r.peakRss = std::max(r.peakRss, m.rss_bytes());
        r.rssByStep.emplace_back(static_cast<double>(m.step()), static_cast<double>(m.rss_bytes()) / (1 << 20));
        break;
      }
      case v1::Record::kSummary: {
        Rank& r = ranks_[record.summary().rank()];
        r.hasSummary = true;
        r.summary = record.summary();
        break;
      }
      case v1::Record::kHealth: {
        Rank& r = ranks_[record.health().rank()];
        r.telemetrySent = std::max(r.telemetrySent, record.health().records_sent());
        r.telemetryDropped = std::max(r.telemetryDropped, record.health().records_dropped());
        break;
      }
      case v1::Record::kRankState: ranks_[record.rank_state().rank()].host = host; break;
      default: break;
    }
  }
}

QJsonObject RunSummaryBuilder::toJson(const std::string& jobId, const JobOutcome& outcome,
                                      const std::vector<v1::Finding>& findings) const {
  std::lock_guard lock(mutex_);
  QJsonObject root;
  root["job_id"] = q(jobId);
  root["status"] = q(statusName(outcome.status));
  root["message"] = q(outcome.message);
  if (outcome.failedRank) {
    const auto& f = *outcome.failedRank;
    QJsonArray lines;
    for (const auto& l : f.lastLines) lines.append(q(l));
    root["failed_rank"] = QJsonObject{{"rank", f.rank},         {"host", q(f.host)},     {"exit_code", f.exitCode},
                                      {"signal", f.signal},     {"message", q(f.message)}, {"last_lines", lines}};
  }
  const auto& h = spec_.hyper();
  root["job"] = QJsonObject{{"engine", q(engineName(spec_.engine()))},
                            {"backend", q(backendName(spec_.backend()))},
                            {"model", q(modelName(spec_.model()))},
                            {"dataset", q(datasetName(spec_.dataset()))},
                            {"world_size", static_cast<int>(spec_.world_size())},
                            {"batch_size", static_cast<int>(h.batch_size())},
                            {"lr", h.lr()},
                            {"steps", static_cast<double>(h.steps())},
                            {"epochs", static_cast<int>(h.epochs())}};

  QJsonArray ranks;
  double jobSamplesPerS = 0;
  uint64_t jobOps = 0, jobBytes = 0;
  double jobBusbw = 0;
  std::vector<double> jobLatencies;
  std::string checksum;
  bool identical = true;
  for (const auto& [rank, r] : ranks_) {
    auto meanMs = [&](int64_t ns) { return r.steps ? static_cast<double>(ns) / 1e6 / static_cast<double>(r.steps) : 0.0; };
    double samplesPerS = r.totalNs > 0 ? static_cast<double>(r.samples) / (static_cast<double>(r.totalNs) * 1e-9) : 0;
    jobSamplesPerS += samplesPerS;
    jobOps += r.allreduceOps;
    jobBytes += r.allreduceBytes;
    jobBusbw += r.busbwSum;
    jobLatencies.insert(jobLatencies.end(), r.latenciesUs.begin(), r.latenciesUs.end());
    // Memory growth after warm-up (the first tenth of the steps).
    std::vector<std::pair<double, double>> steady;
    size_t skip = r.rssByStep.size() / 10;
    steady.assign(r.rssByStep.begin() + static_cast<long>(skip), r.rssByStep.end());
    QJsonObject o{
        {"rank", rank},
        {"host", q(r.host)},
        {"steps", static_cast<double>(r.steps)},
        {"samples_per_s", samplesPerS},
        {"step_ms", QJsonObject{{"data", meanMs(r.dataNs)},
                                {"forward", meanMs(r.forwardNs)},
                                {"backward", meanMs(r.backwardNs)},
                                {"comm_wait", meanMs(r.commWaitNs)},
                                {"optimizer", meanMs(r.optimizerNs)},
                                {"total", meanMs(r.totalNs)}}},
        {"allreduce", QJsonObject{{"ops", static_cast<double>(r.allreduceOps)},
                                  {"bytes", static_cast<double>(r.allreduceBytes)},
                                  {"latency_us_p50", percentile(r.latenciesUs, 0.5)},
                                  {"latency_us_p99", percentile(r.latenciesUs, 0.99)},
                                  {"busbw_gbps_mean", r.allreduceOps ? r.busbwSum / static_cast<double>(r.allreduceOps) : 0}}},
        {"memory", QJsonObject{{"peak_rss_bytes", static_cast<double>(r.peakRss)},
                               {"rss_slope_mb_per_step", leastSquaresSlope(steady)}}},
        {"final_loss", r.hasSummary ? r.summary.final_loss() : r.lastLoss},
        {"telemetry", QJsonObject{{"records_sent", static_cast<double>(r.telemetrySent)},
                                  {"records_dropped", static_cast<double>(r.telemetryDropped)}}},
    };
    if (r.hasSummary) {
      o["test_accuracy"] = r.summary.test_accuracy();
      o["param_checksum"] = q(r.summary.param_checksum());
      if (checksum.empty()) checksum = r.summary.param_checksum();
      identical = identical && r.summary.param_checksum() == checksum;
    } else {
      identical = false;
    }
    ranks.append(o);
  }
  root["ranks"] = ranks;
  root["samples_per_s"] = jobSamplesPerS;
  root["allreduce"] = QJsonObject{{"ops", static_cast<double>(jobOps)},
                                  {"bytes", static_cast<double>(jobBytes)},
                                  {"latency_us_p50", percentile(jobLatencies, 0.5)},
                                  {"latency_us_p99", percentile(jobLatencies, 0.99)},
                                  {"busbw_gbps_mean", jobOps ? jobBusbw / static_cast<double>(jobOps) : 0}};
  if (auto it = ranks_.find(0); it != ranks_.end()) {
    root["final_loss"] = it->second.hasSummary ? it->second.summary.final_loss() : it->second.lastLoss;
    if (it->second.hasSummary) root["test_accuracy"] = it->second.summary.test_accuracy();
  }
  root["params_identical"] = identical && !ranks_.empty();
  QJsonArray findingList;
  for (const auto& f : findings) {
    QJsonObject item;
    item["kind"] = QString::fromStdString(v1::Finding::Kind_Name(f.kind()));
    item["severity"] = QString::fromStdString(v1::Finding::Severity_Name(f.severity()));
    item["rank"] = f.rank();
    item["host"] = q(f.host());
    item["since_step"] = static_cast<double>(f.since_step());
    item["cause"] = q(f.cause());
    item["summary"] = q(f.summary());
    QJsonObject evidence;
    for (const auto& [key, value] : f.evidence()) evidence[q(key)] = value;
    item["evidence"] = evidence;
    findingList.append(item);
  }
  root["findings"] = findingList;
  return root;
}

void RunSummaryBuilder::writeJson(const std::string& path, const std::string& jobId, const JobOutcome& outcome,
                                  const std::vector<v1::Finding>& findings) const {
  QSaveFile file(q(path));
  if (!file.open(QIODevice::WriteOnly)) {
    throw InputError("--summary-json " + path + ": cannot write: " + file.errorString().toStdString());
  }
  file.write(QJsonDocument(toJson(jobId, outcome, findings)).toJson(QJsonDocument::Indented));
  if (!file.commit()) throw InputError("--summary-json " + path + ": cannot write: " + file.errorString().toStdString());
}

}  // namespace ringmaster::console
