// SPDX-License-Identifier: GPL-3.0-or-later
#include "worker/run_summary.h"

#include <fstream>

#include "common/error.h"
#include "common/json.h"

namespace ringmaster::worker {

std::string summaryJson(const RunSummary& s) {
  rapidjson::StringBuffer buffer;
  rapidjson::PrettyWriter<rapidjson::StringBuffer> json(buffer);
  json.StartObject();
  writeMember(json, "rank", s.rank);
  writeMember(json, "world_size", s.worldSize);
  writeMember(json, "engine", s.engine);
  writeMember(json, "backend", s.backend);
  writeMember(json, "model", s.model);
  writeMember(json, "dataset", s.dataset);
  writeMember(json, "threads", s.threads);
  writeMember(json, "first_step", s.firstStep);
  writeMember(json, "steps", s.steps);
  writeMember(json, "epochs", s.epochs);
  writeMember(json, "samples", s.samples);
  writeMember(json, "train_seconds", s.trainSeconds);
  writeMember(json, "samples_per_s", s.samplesPerS);
  writeMember(json, "steady_samples_per_s", s.steadySamplesPerS);
  writeMember(json, "final_loss", s.finalLoss);
  writeMember(json, "test_accuracy", s.testAccuracy);
  writeMember(json, "param_checksum", s.paramChecksum);
  writeMember(json, "clock_offset_ns", s.clockOffsetNs);
  writeMember(json, "clock_rtt_ns", s.clockRttNs);
  writeMember(json, "peak_rss_bytes", s.peakRssBytes);

  json.Key("step_phase_means_ms");
  json.StartObject();
  writeMember(json, "data", s.phases.dataMs);
  writeMember(json, "forward", s.phases.forwardMs);
  writeMember(json, "backward", s.phases.backwardMs);
  writeMember(json, "comm_wait", s.phases.commWaitMs);
  writeMember(json, "optimizer", s.phases.optimizerMs);
  writeMember(json, "total", s.phases.totalMs);
  json.EndObject();

  json.Key("engine_stats");
  json.StartObject();
  writeMember(json, "collectives", s.collectives);
  writeMember(json, "bytes_reduced", s.bytesReduced);
  writeMember(json, "bucket_rebuilds", s.bucketRebuilds);
  writeMember(json, "negotiations", s.negotiations);
  writeMember(json, "cached_cycles", s.cachedCycles);
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
