// SPDX-License-Identifier: GPL-3.0-or-later
// Report generation for a 64-rank x 10 000-step run: time to read the run, diagnose it and write the HTML,
// PDF, CSV and trace reports.
#include <QGuiApplication>
#include <cstdio>
#include <filesystem>

#include "bench/bench_support.h"
#include "console/reports/report.h"
#include "history/run_store.h"
#include "tests/support/temp_dir.h"

using namespace ringmaster;
using namespace ringmaster::bench;

int main(int argc, char** argv) {
  // The PDF's text layout needs fonts, and with them a QGuiApplication; no window is shown.
  if (!qEnvironmentVariableIsSet("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  QGuiApplication application(argc, argv);
  int steps = argc > 1 ? std::atoi(argv[1]) : 10000;
  constexpr int kRanks = 64;
  test::TempDir dir("report-bench");
  if (argc > 2) std::printf("(keeping outputs in %s)\n", argv[2]);
  auto out = [&](const std::string& name) {
    return argc > 2 ? std::string(argv[2]) + "/" + name : dir.file(name);
  };

  RunStore store(dir.file("runs.sqlite"));
  NewRun run;
  run.name = "bench-64x" + std::to_string(steps);
  run.spec.set_engine(v1::ENGINE_DDP);
  run.spec.set_backend(v1::BACKEND_GLOO);
  run.spec.set_world_size(kRanks);
  int64_t id = store.createRun(run);
  std::mt19937_64 random(1);
  auto start = std::chrono::steady_clock::now();
  std::vector<v1::Record> batch;
  for (int s = 0; s < steps; ++s) {
    auto records = syntheticStep(kRanks, uint64_t(s), 2, random);
    batch.insert(batch.end(), records.begin(), records.end());
    if (batch.size() >= 20000) {
      store.append(id, batch);
      batch.clear();
    }
  }
  store.append(id, batch);
  store.setRunStatus(id, "finished", 1);
  auto counts = store.counts(id);
  std::printf("report: %d ranks x %d steps stored (%lld rows) in %.1f s\n", kRanks, steps,
              (long long)counts.total(), secondsSince(start));

  start = std::chrono::steady_clock::now();
  auto report = console::buildReport(store, id);
  double build = secondsSince(start);
  std::printf("  read + diagnose + charts: %6.2f s (%zu findings, %zu charts)\n", build,
              report.metrics.findings.size(), report.charts.size());
  start = std::chrono::steady_clock::now();
  console::writeHtmlReport(report, out("report.html"), console::PaperSize::A4);
  std::printf("  HTML:                     %6.2f s (%.1f MB)\n", secondsSince(start),
              double(std::filesystem::file_size(out("report.html"))) / 1e6);
  start = std::chrono::steady_clock::now();
  console::writePdfReport(report, out("report.pdf"), console::PaperSize::A4);
  std::printf("  PDF:                      %6.2f s (%.1f MB)\n", secondsSince(start),
              double(std::filesystem::file_size(out("report.pdf"))) / 1e6);
  start = std::chrono::steady_clock::now();
  uint64_t rows = console::writeCsv(store, id, out("run.csv"));
  std::printf("  CSV:                      %6.2f s (%llu rows, %.0f MB)\n", secondsSince(start),
              (unsigned long long)rows, double(std::filesystem::file_size(out("run.csv"))) / 1e6);
  start = std::chrono::steady_clock::now();
  uint64_t events = console::writeTrace(store, id, out("trace.json"));
  std::printf("  trace:                    %6.2f s (%llu events, %.0f MB)\n", secondsSince(start),
              (unsigned long long)events, double(std::filesystem::file_size(out("trace.json"))) / 1e6);
  std::printf("  peak memory %.0f MB\n", double(peakRssBytes()) / 1e6);
  return 0;
}
