// SPDX-License-Identifier: GPL-3.0-or-later
// The CSV export: every stored number of a run in long format, one value per row.
#include <cstdio>
#include <fstream>

#include "common/error.h"
#include "console/reports/report.h"
#include "diagnosis/finding.h"

namespace ringmaster::console {

const std::map<std::string, std::vector<std::string>>& csvMetrics() {
  static const std::map<std::string, std::vector<std::string>> metrics = {
      {"steps",
       {"data_ns", "forward_ns", "backward_ns", "comm_wait_ns", "optimizer_ns", "total_ns", "samples", "loss",
        "lr"}},
      {"allreduce_ops", {"bucket", "bytes", "latency_us", "algbw_gbps", "busbw_gbps", "tensors"}},
      {"memory_samples",
       {"rss_bytes", "heap_bytes", "device_used_bytes", "device_total_bytes", "host_total_bytes"}},
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
    out << prefix << table << ',' << rank << ',' << step << ',' << timeNs << ',' << label << ',' << metric
        << ',' << value << '\n';
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
      const double values[] = {double(x.data_ns()),
                               double(x.forward_ns()),
                               double(x.backward_ns()),
                               double(x.comm_wait_ns()),
                               double(x.optimizer_ns()),
                               double(x.total_ns()),
                               double(x.samples()),
                               x.loss(),
                               x.lr()};
      const auto& names = csvMetrics().at("steps");
      for (size_t i = 0; i < names.size(); ++i)
        emit("steps", x.rank(), x.step(), x.start_ns(), "", names[i], values[i]);
    }
    for (const auto& x : s.allreduce) {
      const double values[] = {double(x.bucket()), double(x.bytes()), x.latency_us(),
                               x.algbw_gbps(),     x.busbw_gbps(),    double(x.tensors())};
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

}  // namespace ringmaster::console
