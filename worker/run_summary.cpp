// SPDX-License-Identifier: GPL-3.0-or-later
#include "worker/run_summary.h"

#include <fstream>

#include "common/error.h"
#include "common/json.h"

namespace ringmaster::worker {

std::string summaryJson(const RunSummary& s) {
  rapidjson::StringBuffer buffer;
  rapidjson::PrettyWriter<rapidjson::StringBuffer> json(buffer);
  auto integer = [&](const char* key, int64_t value) {
    json.Key(key);
    json.Int64(value);
  };
  auto real = [&](const char* key, double value) {
    json.Key(key);
    writeNumber(json, value);
  };
  auto text = [&](const char* key, const std::string& value) {
    json.Key(key);
    json.String(value);
  };
  json.StartObject();
  integer("rank", s.rank);
  integer("world_size", s.worldSize);
  text("engine", s.engine);
  text("backend", s.backend);
  text("model", s.model);
  text("dataset", s.dataset);
  integer("threads", s.threads);
  integer("first_step", static_cast<int64_t>(s.firstStep));
  integer("steps", static_cast<int64_t>(s.steps));
  integer("epochs", s.epochs);
  integer("samples", static_cast<int64_t>(s.samples));
  real("train_seconds", s.trainSeconds);
  real("samples_per_s", s.samplesPerS);
  real("steady_samples_per_s", s.steadySamplesPerS);
  real("final_loss", s.finalLoss);
  real("test_accuracy", s.testAccuracy);
  text("param_checksum", s.paramChecksum);
  integer("clock_offset_ns", s.clockOffsetNs);
  integer("clock_rtt_ns", s.clockRttNs);
  integer("peak_rss_bytes", static_cast<int64_t>(s.peakRssBytes));

  json.Key("step_phase_means_ms");
  json.StartObject();
  real("data", s.phases.dataMs);
  real("forward", s.phases.forwardMs);
  real("backward", s.phases.backwardMs);
  real("comm_wait", s.phases.commWaitMs);
  real("optimizer", s.phases.optimizerMs);
  real("total", s.phases.totalMs);
  json.EndObject();

  json.Key("engine_stats");
  json.StartObject();
  integer("collectives", static_cast<int64_t>(s.collectives));
  integer("bytes_reduced", static_cast<int64_t>(s.bytesReduced));
  integer("bucket_rebuilds", static_cast<int64_t>(s.bucketRebuilds));
  json.EndObject();
  json.EndObject();
  return std::string(jsonText(buffer)) + "\n";
}

void writeSummaryJson(const std::string& path, const RunSummary& summary) {
  std::ofstream out(path, std::ios::trunc);
  out << summaryJson(summary);
  out.close();
  if (!out) throw InputError(path + ": cannot write the summary (--summary-json)");
}

v1::RankSummary toRecord(const RunSummary& s) {
  v1::RankSummary record;
  record.set_rank(s.rank);
  record.set_final_loss(s.finalLoss);
  record.set_test_accuracy(s.testAccuracy);
  record.set_param_checksum(s.paramChecksum);
  record.set_steps(s.steps);
  record.set_samples_per_s(s.samplesPerS);
  return record;
}

}  // namespace ringmaster::worker
