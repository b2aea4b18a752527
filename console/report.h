// SPDX-License-Identifier: GPL-3.0-or-later
// Run reports: everything a team needs about one run (and its comparison with others), built from the run store
// and written as one self-contained HTML file (inline SVG, no network), a paginated PDF, a long-format CSV of
// every stored metric, or the run's timeline as Chrome trace JSON for Perfetto.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/comparison.h"
#include "common/diagnosis/memory_leak_detector.h"
#include "common/run_store.h"
#include "console/report_chart.h"

namespace ringmaster::console {

struct Report {
  RunMetrics metrics;
  RunCounts counts;
  std::vector<RankInfo> ranks;
  std::map<std::string, std::map<std::string, std::string>> hosts;
  std::vector<diagnosis::MemoryTrend> memoryTrends;
  std::vector<RunMetrics> compared;
  std::vector<RunComparison> comparisons;
  std::vector<Chart> charts;
};

// Reads the run (and the runs to compare with it) and prepares every table and chart.
Report buildReport(const RunStore& store, int64_t runId, const std::vector<int64_t>& compareWith = {});

// The report as one HTML document.
std::string renderHtml(const Report& report);
// Writers; each throws InputError naming `path` when it cannot be written.
void writeHtmlReport(const Report& report, const std::string& path);
// Needs a QGuiApplication (fonts); creates an offscreen one when the process has no application object.
void writePdfReport(const Report& report, const std::string& path);
// One row per stored numeric value: run,table,rank,step,time_ns,label,metric,value. Returns the data rows.
uint64_t writeCsv(const RunStore& store, int64_t runId, const std::string& path);
// The run's timeline, one process row per rank. Runs recorded without a timeline get one made from their step
// phases and all-reduce ops. Returns the events written.
uint64_t writeTrace(const RunStore& store, int64_t runId, const std::string& path);

// Numeric columns per stored row that the CSV holds, by table (the CSV's row count is rows x columns, plus one
// row per finding evidence figure).
const std::map<std::string, std::vector<std::string>>& csvMetrics();

}  // namespace ringmaster::console
