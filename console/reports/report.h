// SPDX-License-Identifier: GPL-3.0-or-later
// Run reports: everything a team needs about one run (and its comparison with others), built from the run
// store. One file per job:
//   report.cpp        the model: metrics, findings, comparisons and charts (buildReport)
//   report_html.cpp   one self-contained HTML file (inline SVG, no network), and the body the PDF shares
//   report_pdf.*      a paginated PDF on A4 or Letter (needs the program's QGuiApplication)
//   report_csv.cpp    a long-format CSV of every stored number
//   report_trace.cpp  the run's timeline as Chrome trace JSON for Perfetto
//   report_chart.*    the charts, drawn as SVG or onto any canvas
// Writers throw InputError naming the path when it cannot be written.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "console/reports/report_chart.h"
#include "diagnosis/comparison.h"
#include "diagnosis/memory_leak_detector.h"
#include "history/run_store.h"

namespace ringmaster::console {

struct Report {
  RunMetrics metrics;
  RunCounts counts;
  std::vector<RankInfo> ranks;
  std::map<std::string, std::map<std::string, std::string>> hosts;
  std::vector<diagnosis::MemoryTrend> memoryTrends;
  std::vector<RunMetrics> compared;
  std::vector<RunComparison> comparisons;
  std::vector<Chart> charts;             // those with something to draw
  std::vector<std::string> emptyCharts;  // titles of those left out, having nothing to draw
};

// The paper a report is laid out for: the PDF's pages, and the HTML's when a browser prints it.
enum class PaperSize { A4, Letter };
// "a4" or "letter" (any case); nothing for another name.
std::optional<PaperSize> parsePaperSize(const std::string& name);
const char* paperSizeName(PaperSize paper);  // "a4", "letter"
// The paper of a locale ("en_US.UTF-8"): Letter where its territory uses it (the United States, Canada,
// Mexico, the Philippines, ...), A4 elsewhere and for "C" or "POSIX".
PaperSize paperSizeForLocale(const std::string& localeName);
// The user's paper: that of the locale for paper sizes (LC_ALL, else LC_PAPER, else LANG), A4 when none is
// set.
PaperSize defaultPaperSize();

// Reads the run (and the runs to compare with it) and prepares every table and chart.
Report buildReport(const RunStore& store, int64_t runId, const std::vector<int64_t>& compareWith = {});

// HTML: the whole document, and writing it to `path`.
std::string renderHtml(const Report& report, PaperSize paper);
void writeHtmlReport(const Report& report, const std::string& path, PaperSize paper);
// The headings and tables of a report, shared by HTML and PDF; `chartMarkup(i)` gives chart i's markup
// (inline SVG or an image).
std::string renderReportBody(const Report& report, const std::function<std::string(size_t)>& chartMarkup);

// PDF on A4 or Letter pages (console/reports/report_pdf.h lays it out). Lays out text, so it needs fonts and
// with them a QGuiApplication, which the program creates (offscreen when it shows no window) before it asks
// for a PDF; without one it throws std::logic_error and writes nothing.
void writePdfReport(const Report& report, const std::string& path, PaperSize paper);

// CSV: one row per stored numeric value: run,table,rank,step,time_ns,label,metric,value. Returns the data
// rows.
uint64_t writeCsv(const RunStore& store, int64_t runId, const std::string& path);
// Numeric columns per stored row that the CSV holds, by table (the CSV's row count is rows x columns, plus
// one row per finding evidence figure).
const std::map<std::string, std::vector<std::string>>& csvMetrics();

// Chrome trace: the run's timeline, one process row per rank. Runs recorded without a timeline get one made
// from their step phases and all-reduce ops. Returns the events written.
uint64_t writeTrace(const RunStore& store, int64_t runId, const std::string& path);

}  // namespace ringmaster::console
