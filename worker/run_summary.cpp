// SPDX-License-Identifier: GPL-3.0-or-later
#include "worker/run_summary.h"

#include <google/protobuf/struct.pb.h>
#include <google/protobuf/util/json_util.h>

#include <fstream>

#include "common/error.h"

namespace ringmaster::worker {

std::string summaryJson(const RunSummary& s) {
  google::protobuf::Struct root;
  auto& fields = *root.mutable_fields();
  auto number = [&](const char* key, double value) { fields[key].set_number_value(value); };
  auto text = [&](const char* key, const std::string& value) { fields[key].set_string_value(value); };
  number("rank", s.rank);
  number("world_size", s.worldSize);
  text("engine", s.engine);
  text("backend", s.backend);
  text("model", s.model);
  text("dataset", s.dataset);
  number("threads", s.threads);
  number("first_step", static_cast<double>(s.firstStep));
  number("steps", static_cast<double>(s.steps));
  number("epochs", s.epochs);
  number("samples", static_cast<double>(s.samples));
  number("train_seconds", s.trainSeconds);
  number("samples_per_s", s.samplesPerS);
  number("steady_samples_per_s", s.steadySamplesPerS);
  number("final_loss", s.finalLoss);
  number("test_accuracy", s.testAccuracy);
  text("param_checksum", s.paramChecksum);
  number("clock_offset_ns", static_cast<double>(s.clockOffsetNs));
  number("clock_rtt_ns", static_cast<double>(s.clockRttNs));
  number("peak_rss_bytes", static_cast<double>(s.peakRssBytes));

  auto& phases = *fields["step_phase_means_ms"].mutable_struct_value()->mutable_fields();
  phases["data"].set_number_value(s.phases.dataMs);
  phases["forward"].set_number_value(s.phases.forwardMs);
  phases["backward"].set_number_value(s.phases.backwardMs);
  phases["comm_wait"].set_number_value(s.phases.commWaitMs);
  phases["optimizer"].set_number_value(s.phases.optimizerMs);
  phases["total"].set_number_value(s.phases.totalMs);

  auto& engine = *fields["engine_stats"].mutable_struct_value()->mutable_fields();
  engine["collectives"].set_number_value(static_cast<double>(s.collectives));
  engine["bytes_reduced"].set_number_value(static_cast<double>(s.bytesReduced));
  engine["bucket_rebuilds"].set_number_value(static_cast<double>(s.bucketRebuilds));

  google::protobuf::util::JsonPrintOptions options;
  options.add_whitespace = true;
  std::string json;
  google::protobuf::util::MessageToJsonString(root, &json, options);
  return json;
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
