// SPDX-License-Identifier: GPL-3.0-or-later
#include "console/run_summary.h"

#include <QSaveFile>
#include <algorithm>
#include <cmath>

#include "common/error.h"
#include "common/job_spec.h"
#include "common/json.h"

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

QString q(const std::string& s) {
  return QString::fromStdString(s);
}

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

std::string RunSummaryBuilder::toJson(const std::string& jobId, const JobOutcome& outcome,
                                      const std::vector<v1::Finding>& findings) const {
  std::lock_guard lock(mutex_);
  rapidjson::StringBuffer buffer;
  rapidjson::PrettyWriter<rapidjson::StringBuffer> json(buffer);
  auto key = [&](const char* name) { json.Key(name); };
  auto text = [&](const char* name, std::string_view value) {
    json.Key(name);
    json.String(value.data(), static_cast<rapidjson::SizeType>(value.size()));
  };
  auto integer = [&](const char* name, int64_t value) {
    json.Key(name);
    json.Int64(value);
  };
  auto real = [&](const char* name, double value) {
    json.Key(name);
    writeNumber(json, value);
  };
  auto allreduce = [&](uint64_t ops, uint64_t bytes, const std::vector<double>& latencies, double busbwSum) {
    key("allreduce");
    json.StartObject();
    integer("ops", static_cast<int64_t>(ops));
    integer("bytes", static_cast<int64_t>(bytes));
    real("latency_us_p50", percentile(latencies, 0.5));
    real("latency_us_p99", percentile(latencies, 0.99));
    real("busbw_gbps_mean", ops ? busbwSum / static_cast<double>(ops) : 0);
    json.EndObject();
  };

  json.StartObject();
  text("job_id", jobId);
  text("status", statusName(outcome.status));
  text("message", outcome.message);
  if (outcome.failedRank) {
    const auto& f = *outcome.failedRank;
    key("failed_rank");
    json.StartObject();
    integer("rank", f.rank);
    text("host", f.host);
    integer("exit_code", f.exitCode);
    integer("signal", f.signal);
    text("message", f.message);
    key("last_lines");
    json.StartArray();
    for (const auto& l : f.lastLines) json.String(l);
    json.EndArray();
    json.EndObject();
  }
  const auto& h = spec_.hyper();
  key("job");
  json.StartObject();
  text("engine", engineName(spec_.engine()));
  text("backend", backendName(spec_.backend()));
  text("model", modelName(spec_.model()));
  text("dataset", datasetName(spec_.dataset()));
  integer("world_size", spec_.world_size());
  integer("batch_size", h.batch_size());
  real("lr", h.lr());
  integer("steps", static_cast<int64_t>(h.steps()));
  integer("epochs", h.epochs());
  json.EndObject();

  double jobSamplesPerS = 0;
  uint64_t jobOps = 0, jobBytes = 0;
  double jobBusbw = 0;
  std::vector<double> jobLatencies;
  std::string checksum;
  bool identical = true;
  key("ranks");
  json.StartArray();
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
    json.StartObject();
    integer("rank", rank);
    text("host", r.host);
    integer("steps", static_cast<int64_t>(r.steps));
    real("samples_per_s", samplesPerS);
    key("step_ms");
    json.StartObject();
    real("data", meanMs(r.dataNs));
    real("forward", meanMs(r.forwardNs));
    real("backward", meanMs(r.backwardNs));
    real("comm_wait", meanMs(r.commWaitNs));
    real("optimizer", meanMs(r.optimizerNs));
    real("total", meanMs(r.totalNs));
    json.EndObject();
    allreduce(r.allreduceOps, r.allreduceBytes, r.latenciesUs, r.busbwSum);
    key("memory");
    json.StartObject();
    integer("peak_rss_bytes", static_cast<int64_t>(r.peakRss));
    real("rss_slope_mb_per_step", leastSquaresSlope(steady));
    json.EndObject();
    real("final_loss", r.hasSummary ? r.summary.final_loss() : r.lastLoss);
    key("telemetry");
    json.StartObject();
    integer("records_sent", static_cast<int64_t>(r.telemetrySent));
    integer("records_dropped", static_cast<int64_t>(r.telemetryDropped));
    json.EndObject();
    if (r.hasSummary) {
      real("test_accuracy", r.summary.test_accuracy());
      text("param_checksum", r.summary.param_checksum());
      if (checksum.empty()) checksum = r.summary.param_checksum();
      identical = identical && r.summary.param_checksum() == checksum;
    } else {
      identical = false;
    }
    json.EndObject();
  }
  json.EndArray();
  real("samples_per_s", jobSamplesPerS);
  allreduce(jobOps, jobBytes, jobLatencies, jobBusbw);
  if (auto it = ranks_.find(0); it != ranks_.end()) {
    real("final_loss", it->second.hasSummary ? it->second.summary.final_loss() : it->second.lastLoss);
    if (it->second.hasSummary) real("test_accuracy", it->second.summary.test_accuracy());
  }
  key("params_identical");
  json.Bool(identical && !ranks_.empty());
  key("findings");
  json.StartArray();
  for (const auto& f : findings) {
    json.StartObject();
    text("kind", v1::Finding::Kind_Name(f.kind()));
    text("severity", v1::Finding::Severity_Name(f.severity()));
    integer("rank", f.rank());
    text("host", f.host());
    integer("since_step", static_cast<int64_t>(f.since_step()));
    text("cause", f.cause());
    text("summary", f.summary());
    key("evidence");
    json.StartObject();
    std::map<std::string, double> evidence(f.evidence().begin(), f.evidence().end());
    for (const auto& [name, value] : evidence) real(name.c_str(), value);
    json.EndObject();
    json.EndObject();
  }
  json.EndArray();
  json.EndObject();
  return std::string(jsonText(buffer)) + "\n";
}

void RunSummaryBuilder::writeJson(const std::string& path, const std::string& jobId, const JobOutcome& outcome,
                                  const std::vector<v1::Finding>& findings) const {
  QSaveFile file(q(path));
  if (!file.open(QIODevice::WriteOnly)) {
    throw InputError("--summary-json " + path + ": cannot write: " + file.errorString().toStdString());
  }
  const std::string text = toJson(jobId, outcome, findings);
  file.write(text.data(), static_cast<qint64>(text.size()));
  if (!file.commit()) throw InputError("--summary-json " + path + ": cannot write: " + file.errorString().toStdString());
}

}  // namespace ringmaster::console
