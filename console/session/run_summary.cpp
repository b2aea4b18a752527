// SPDX-License-Identifier: GPL-3.0-or-later
#include "console/session/run_summary.h"

#include <QSaveFile>
#include <algorithm>
#include <cmath>

#include "common/error.h"
#include "common/job_spec.h"
#include "common/json.h"
#include "common/quantiles.h"

namespace ringmaster::console {
namespace {

constexpr size_t kLatenciesKept = 200000;

QString q(const std::string& s) {
  return QString::fromStdString(s);
}

}  // namespace

RunSummaryBuilder::RunSummaryBuilder(v1::JobSpec spec) : spec_(std::move(spec)) {}

void RunSummaryBuilder::onRecords(const std::string&, const std::string& host,
                                  const std::vector<v1::Record>& records) {
  std::lock_guard lock(mutex_);
  for (const auto& record : records) {
    switch (record.body_case()) {
      case v1::Record::kStep: {
        const auto& s = record.step();
        Rank& r = ranks_[s.rank()];
        r.host = host;
        r.stepsRun += 1;
        if (r.lastStep && s.step() <= *r.lastStep) r.stepsRedone += 1;
        r.lastStep = std::max(s.step(), r.lastStep.value_or(0));
        r.samples += s.samples();
        r.dataNs += s.data_ns();
        r.forwardNs += s.forward_ns();
        r.backwardNs += s.backward_ns();
        r.commWaitNs += s.comm_wait_ns();
        r.optimizerNs += s.optimizer_ns();
        r.totalNs += s.total_ns();
        r.lastLoss = s.loss();
        jobSteps_.add(s);
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
        // A step at or before the last one is a restarted rank: a new process, whose growth is measured
        // alone.
        if (r.lastMemoryStep && *r.lastMemoryStep >= m.step()) r.memory = diagnosis::MemoryLeakDetector();
        r.lastMemoryStep = m.step();
        r.memory.add(m);
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
      case v1::Record::kRankState:
        ranks_[record.rank_state().rank()].host = host;
        break;
      default:
        break;
    }
  }
}

namespace {

using JsonWriter = rapidjson::PrettyWriter<rapidjson::StringBuffer>;

void writeAllreduce(JsonWriter& json, uint64_t ops, uint64_t bytes, const std::vector<double>& latencies,
                    double busbwSum) {
  json.Key("allreduce");
  json.StartObject();
  writeMember(json, "ops", ops);
  writeMember(json, "bytes", bytes);
  writeMember(json, "latency_us_p50", stats::quantile(latencies, 0.5));
  writeMember(json, "latency_us_p99", stats::quantile(latencies, 0.99));
  writeMember(json, "busbw_gbps_mean", ops ? busbwSum / static_cast<double>(ops) : 0);
  json.EndObject();
}

void writeOutcome(JsonWriter& json, const std::string& jobId, const JobOutcome& outcome) {
  writeMember(json, "job_id", jobId);
  writeMember(json, "status", statusName(outcome.status));
  writeMember(json, "message", toText(outcome.message));
  if (!outcome.failedRank) return;
  const auto& f = *outcome.failedRank;
  json.Key("failed_rank");
  json.StartObject();
  writeMember(json, "rank", f.rank);
  writeMember(json, "host", f.host);
  writeMember(json, "exit_code", f.exitCode);
  writeMember(json, "signal", f.signal);
  writeMember(json, "message", f.message);
  json.Key("last_lines");
  json.StartArray();
  for (const auto& l : f.lastLines) json.String(l);
  json.EndArray();
  json.EndObject();
}

void writeJob(JsonWriter& json, const v1::JobSpec& spec) {
  json.Key("job");
  json.StartObject();
  if (spec.program().argv_size() > 0) {
    // The user's own program: what it trains with is its own, not Ringmaster's job flags.
    json.Key("program");
    json.StartArray();
    for (const auto& argument : spec.program().argv()) json.String(argument);
    json.EndArray();
    writeMember(json, "world_size", spec.world_size());
  } else {
    const auto& h = spec.hyper();
    writeMember(json, "engine", engineName(spec.engine()));
    writeMember(json, "backend", backendName(spec.backend()));
    writeMember(json, "model", modelName(spec.model()));
    writeMember(json, "dataset", datasetName(spec.dataset()));
    writeMember(json, "world_size", spec.world_size());
    writeMember(json, "batch_size", h.batch_size());
    writeMember(json, "lr", h.lr());
    writeMember(json, "steps", h.steps());
    writeMember(json, "epochs", h.epochs());
  }
  json.EndObject();
}

void writeFinding(JsonWriter& json, const v1::Finding& f) {
  json.StartObject();
  writeMember(json, "kind", v1::Finding::Kind_Name(f.kind()));
  writeMember(json, "severity", v1::Finding::Severity_Name(f.severity()));
  writeMember(json, "rank", f.rank());
  writeMember(json, "host", f.host());
  writeMember(json, "since_step", f.since_step());
  writeMember(json, "cause", f.cause());
  writeMember(json, "summary", f.summary());
  writeMember(json, "advice", f.advice());
  json.Key("evidence");
  json.StartObject();
  std::map<std::string, double> evidence(f.evidence().begin(), f.evidence().end());
  for (const auto& [name, value] : evidence) writeMember(json, name.c_str(), value);
  json.EndObject();
  json.EndObject();
}

void writeRank(JsonWriter& json, int rank, const RunSummaryBuilder::Rank& r) {
  auto meanMs = [&](int64_t ns) {
    return r.stepsRun ? static_cast<double>(ns) / 1e6 / static_cast<double>(r.stepsRun) : 0.0;
  };
  json.StartObject();
  writeMember(json, "rank", rank);
  writeMember(json, "host", r.host);
  writeMember(json, "steps", r.stepsRun - r.stepsRedone);
  writeMember(json, "steps_redone", r.stepsRedone);
  writeMember(json, "samples_per_s",
              r.totalNs > 0 ? static_cast<double>(r.samples) / (static_cast<double>(r.totalNs) * 1e-9) : 0);
  json.Key("step_ms");
  json.StartObject();
  writeMember(json, "data", meanMs(r.dataNs));
  writeMember(json, "forward", meanMs(r.forwardNs));
  writeMember(json, "backward", meanMs(r.backwardNs));
  writeMember(json, "comm_wait", meanMs(r.commWaitNs));
  writeMember(json, "optimizer", meanMs(r.optimizerNs));
  writeMember(json, "total", meanMs(r.totalNs));
  json.EndObject();
  writeAllreduce(json, r.allreduceOps, r.allreduceBytes, r.latenciesUs, r.busbwSum);
  json.Key("memory");
  json.StartObject();
  writeMember(json, "peak_rss_bytes", r.peakRss);
  // The trend the leak detector and `ringmaster show` fit to the rank's memory.
  double slopeMiBPerStep = 0;
  for (const auto& trend : r.memory.trends()) {
    if (!trend.device) slopeMiBPerStep = trend.bytesPerStep / (1 << 20);
  }
  writeMember(json, "rss_slope_mb_per_step", slopeMiBPerStep);
  json.EndObject();
  writeMember(json, "final_loss", r.hasSummary ? r.summary.final_loss() : r.lastLoss);
  json.Key("telemetry");
  json.StartObject();
  writeMember(json, "records_sent", r.telemetrySent);
  writeMember(json, "records_dropped", r.telemetryDropped);
  json.EndObject();
  if (r.hasSummary) {
    writeMember(json, "test_accuracy", r.summary.test_accuracy());
    writeMember(json, "param_checksum", r.summary.param_checksum());
  }
  json.EndObject();
}

}  // namespace

std::string RunSummaryBuilder::toJson(const std::string& jobId, const JobOutcome& outcome,
                                      const std::vector<v1::Finding>& findings) const {
  std::lock_guard lock(mutex_);
  rapidjson::StringBuffer buffer;
  JsonWriter json(buffer);
  json.StartObject();
  writeOutcome(json, jobId, outcome);
  writeJob(json, spec_);

  std::vector<diagnosis::RankLoss> losses;
  uint64_t jobOps = 0, jobBytes = 0;
  double jobBusbw = 0;
  std::vector<double> jobLatencies;
  std::string checksum;
  bool identical = !ranks_.empty();
  json.Key("ranks");
  json.StartArray();
  for (const auto& [rank, r] : ranks_) {
    writeRank(json, rank, r);
    jobOps += r.allreduceOps;
    jobBytes += r.allreduceBytes;
    jobBusbw += r.busbwSum;
    jobLatencies.insert(jobLatencies.end(), r.latenciesUs.begin(), r.latenciesUs.end());
    losses.push_back({rank, r.hasSummary ? std::optional(r.summary.final_loss()) : std::nullopt,
                      r.stepsRun ? std::optional(r.lastLoss) : std::nullopt});
    if (checksum.empty() && r.hasSummary) checksum = r.summary.param_checksum();
    identical = identical && r.hasSummary && r.summary.param_checksum() == checksum;
  }
  json.EndArray();
  writeMember(json, "samples_per_s", jobSteps_.throughput());
  writeAllreduce(json, jobOps, jobBytes, jobLatencies, jobBusbw);
  if (const auto loss = diagnosis::finalLoss(losses)) writeMember(json, "final_loss", *loss);
  if (auto it = ranks_.find(0); it != ranks_.end() && it->second.hasSummary) {
    writeMember(json, "test_accuracy", it->second.summary.test_accuracy());
  }
  writeMember(json, "params_identical", identical);
  json.Key("findings");
  json.StartArray();
  for (const auto& f : findings) writeFinding(json, f);
  json.EndArray();
  json.EndObject();
  return std::string(jsonText(buffer)) + "\n";
}

void RunSummaryBuilder::writeJson(const std::string& path, const std::string& jobId,
                                  const JobOutcome& outcome, const std::vector<v1::Finding>& findings) const {
  QSaveFile file(q(path));
  if (!file.open(QIODevice::WriteOnly)) {
    throw InputError("--summary-json " + path + ": cannot write: " + file.errorString().toStdString());
  }
  const std::string text = toJson(jobId, outcome, findings);
  file.write(text.data(), static_cast<qint64>(text.size()));
  if (!file.commit())
    throw InputError("--summary-json " + path + ": cannot write: " + file.errorString().toStdString());
}

}  // namespace ringmaster::console
