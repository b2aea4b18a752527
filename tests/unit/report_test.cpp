// SPDX-License-Identifier: GPL-3.0-or-later
#include "console/report.h"

#include <gtest/gtest.h>

#include <QGuiApplication>
#include <QXmlStreamReader>
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>

#include "common/chrome_trace_reader.h"
#include "common/horovod_timeline_reader.h"
#include "console/ingest.h"
#include "tests/support/files.h"
#include "tests/support/temp_dir.h"
#include "tests/unit/diagnosis_synthetic.h"

using namespace ringmaster;
using namespace ringmaster::console;

namespace {

class ReportTest : public ::testing::Test {
 protected:
  // Ingests a synthetic 4-rank run with a straggler (rank 2) and a leak (rank 1), the way the launcher would.
  int64_t ingestRun(int ranks = 4, int steps = 80, uint64_t seed = 1) {
    test::SyntheticRun run;
    run.ranks = ranks;
    run.steps = steps;
    run.seed = seed;
    run.slowRank = 2;
    run.slowFrom = 20;
    run.slowCompute = 0.5;
    run.leakRank = 1;
    run.leakMiBPerStep = 2;
    NewRun spec;
    spec.name = "synthetic-" + std::to_string(seed);
    spec.spec.set_engine(v1::ENGINE_DDP);
    spec.spec.set_backend(v1::BACKEND_GLOO);
    spec.spec.set_model(v1::MODEL_CNN);
    spec.spec.set_world_size(uint32_t(ranks));
    spec.environment["libtorch"] = "1.13";
    RunIngest ingest(store_, spec);
    std::vector<v1::Record> batch;
    for (int r = 0; r < ranks; ++r) {
      v1::Record state;
      state.mutable_rank_state()->set_rank(r);
      state.mutable_rank_state()->set_state(v1::RankState::STATE_RUNNING);
      batch.push_back(state);
    }
    for (auto& record : test::generate(run).records) {
      batch.push_back(std::move(record));
      if (batch.size() == 500) {
        ingest.onRecords("job", "node-a", batch);
        batch.clear();
      }
    }
    for (int r = 0; r < ranks; ++r) {
      v1::Record e;
      auto* t = e.mutable_timeline();
      t->set_rank(r);
      t->set_lane("compute");
      t->set_name("FORWARD");
      t->set_start_ns(1000 * r);
      t->set_end_ns(1000 * r + 500);
      batch.push_back(e);
    }
    ingest.onRecords("job", "node-a", batch);
    ingest.finish("finished");
    return ingest.runId();
  }

  test::TempDir dir_{"report"};
  std::string store_ = dir_.file("runs.sqlite");
};

// PDF layout needs the program's QGuiApplication; the tests make one (offscreen: ctest sets QT_QPA_PLATFORM)
// the first time a test writes a PDF, and keep it to the end.
void needGuiApplication() {
  static int argc = 1;
  static char name[] = "test_report";
  static char* argv[] = {name, nullptr};
  static QGuiApplication* application = new QGuiApplication(argc, argv);
  ASSERT_EQ(QCoreApplication::instance(), application);
}

}  // namespace

TEST_F(ReportTest, IngestStoresEverythingAndTheFindings) {
  int64_t id = ingestRun();
  RunStore store(store_);
  auto info = store.run(id);
  EXPECT_EQ(info->status, "finished");
  EXPECT_GT(info->endedUnixNs, 0);
  auto counts = store.counts(id);
  EXPECT_EQ(counts.steps, 4 * 80);
  EXPECT_EQ(counts.allreduceOps, 4 * 80 * 2);
  EXPECT_EQ(counts.memorySamples, 4 * 80);
  EXPECT_EQ(counts.timelineEvents, 4);
  EXPECT_EQ(store.ranks(id).at(0).host, "node-a");  // filled from the agent's host
  std::set<std::pair<int, int>> found;
  for (const auto& f : store.findings(id)) found.insert({f.kind(), f.rank()});
  EXPECT_TRUE(found.count({v1::Finding::KIND_STRAGGLER, 2}));
  EXPECT_TRUE(found.count({v1::Finding::KIND_MEMORY_LEAK, 1}));
}

TEST_F(ReportTest, HtmlIsOneWellFormedFileWithItsCharts) {
  int64_t id = ingestRun();
  int64_t other = ingestRun(4, 80, 2);
  RunStore store(store_);
  auto report = buildReport(store, id, {other});
  std::string path = dir_.file("report.html");
  writeHtmlReport(report, path);
  std::string html = test::readFile(path);

  QXmlStreamReader xml(QByteArray::fromStdString(html));
  int svgs = 0, polylines = 0, tables = 0;
  while (!xml.atEnd()) {
    if (xml.readNext() == QXmlStreamReader::StartElement) {
      svgs += xml.name() == QLatin1String("svg");
      polylines += xml.name() == QLatin1String("polyline");
      tables += xml.name() == QLatin1String("table");
      for (const auto& attribute : xml.attributes()) {
        // Nothing is fetched from anywhere: no external scripts, styles or images.
        EXPECT_FALSE(attribute.name() == QLatin1String("src") || attribute.name() == QLatin1String("href"))
            << attribute.value().toString().toStdString();
      }
    }
  }
  EXPECT_FALSE(xml.hasError()) << xml.errorString().toStdString() << " at line " << xml.lineNumber();
  EXPECT_EQ(svgs, int(report.charts.size()));
  EXPECT_GE(svgs, 7);
  EXPECT_GT(polylines, 20);
  EXPECT_GE(tables, 6);  // summary, findings, comparison, ranks, configuration, environment
  for (const char* text : {"Throughput (all ranks)", "Step phases per rank", "All-reduce latency",
                           "Memory per rank (RSS) with trend lines", "straggler", "memory leak", "95% CI",
                           "rank 2 (node-a)", "trend (leak)", "libtorch"}) {
    EXPECT_NE(html.find(text), std::string::npos) << text;
  }
  EXPECT_EQ(html.find("<script"), std::string::npos);
  // What to do, after what was found; the evidence in words, never as raw keys.
  const size_t recommendations = html.find("<h2>Recommendations</h2>");
  ASSERT_NE(recommendations, std::string::npos);
  EXPECT_GT(recommendations, html.find("<h2>Findings</h2>"));
  for (const char* text : {"Rank 2 computes ", "CPUs or GPU of node-a", "RSS grows ", "loss.item()",
                           "throughput lost ", "growth per step "}) {
    EXPECT_NE(html.find(text), std::string::npos) << text;
  }
  for (const char* key : {"slowdown_pct", "mib_per_step", "limit_mib", "others_wait_ms_per_step"}) {
    EXPECT_EQ(html.find(key), std::string::npos) << key << " shown as a raw key";
  }
}

TEST_F(ReportTest, ManyRanksShowTheSpreadAndTheNamedRanks) {
  int64_t id = ingestRun(24, 40);
  RunStore store(store_);
  auto report = buildReport(store, id);
  const Chart& compute = report.charts.at(2);
  ASSERT_GE(compute.series.size(), 4u);
  EXPECT_EQ(compute.series[0].name, "min of ranks");
  bool straggler = false;
  for (const auto& s : compute.series) straggler |= s.name == "rank 2";
  EXPECT_TRUE(straggler);
}

TEST_F(ReportTest, CsvHasOneRowPerStoredValue) {
  int64_t id = ingestRun();
  RunStore store(store_);
  std::string path = dir_.file("run.csv");
  uint64_t rows = writeCsv(store, id, path);
  auto counts = store.counts(id);
  int64_t evidence = 0;
  for (const auto& f : store.findings(id)) evidence += f.evidence_size();
  const auto& metrics = csvMetrics();
  int64_t expected = counts.steps * int64_t(metrics.at("steps").size()) +
                     counts.allreduceOps * int64_t(metrics.at("allreduce_ops").size()) +
                     counts.memorySamples * int64_t(metrics.at("memory_samples").size()) +
                     counts.timelineEvents + counts.stallReports + evidence;
  EXPECT_EQ(int64_t(rows), expected);
  std::ifstream in(path);
  std::string line;
  int64_t lines = 0;
  std::getline(in, line);
  EXPECT_EQ(line, "run,table,rank,step,time_ns,label,metric,value");
  std::map<std::string, int64_t> perTable;
  while (std::getline(in, line)) {
    ++lines;
    size_t a = line.find(',');
    ++perTable[line.substr(a + 1, line.find(',', a + 1) - a - 1)];
  }
  EXPECT_EQ(lines, expected);
  EXPECT_EQ(perTable["steps"], counts.steps * 9);
  EXPECT_EQ(perTable["memory_samples"], counts.memorySamples * 5);
}

TEST_F(ReportTest, TraceParsesAndHoldsEveryRank) {
  int64_t id = ingestRun();
  RunStore store(store_);
  std::string path = dir_.file("trace.json");
  EXPECT_EQ(writeTrace(store, id, path), 4u);
  std::set<std::string> pids;
  std::ifstream in(path);
  auto summary = readChromeTrace(in, [&](const TraceEvent& e) {
    if (e.phase == 'X') pids.insert(e.pid);
  });
  EXPECT_TRUE(summary.complete);
  EXPECT_EQ(pids, (std::set<std::string>{"0", "1", "2", "3"}));
}

TEST_F(ReportTest, RunsWithoutATimelineGetOneFromTheirSteps) {
  test::SyntheticRun run;
  run.ranks = 3;
  run.steps = 10;
  int64_t id;
  {
    RunStore store(store_);
    id = store.createRun(NewRun{});
    store.append(id, test::generate(run).records);
  }
  RunStore store(store_);
  std::string path = dir_.file("trace.json");
  // 5 phases per step and rank, plus 2 all-reduce ops each.
  EXPECT_EQ(writeTrace(store, id, path), uint64_t(3 * 10 * (5 + 2)));
  std::set<std::string> names;
  std::ifstream in(path);
  readChromeTrace(in, [&](const TraceEvent& e) { names.insert(e.name); });
  for (const char* phase : {"DATA", "FORWARD", "BACKWARD", "OPTIMIZER", "ALLREDUCE"})
    EXPECT_TRUE(names.count(phase));
}

// Declared before every test that makes the QGuiApplication, so that it runs before them in one process too.
TEST_F(ReportTest, PdfWithoutAGuiApplicationIsAClearErrorAndWritesNothing) {
  ASSERT_EQ(QCoreApplication::instance(), nullptr);
  int64_t id = ingestRun(2, 30);
  RunStore store(store_);
  std::string path = dir_.file("report.pdf");
  try {
    writePdfReport(buildReport(store, id), path);
    FAIL() << "wrote a PDF without a QGuiApplication";
  } catch (const std::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("QGuiApplication"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
  EXPECT_FALSE(std::filesystem::exists(path));
  EXPECT_EQ(QCoreApplication::instance(), nullptr);  // nor did it make one
}

TEST_F(ReportTest, PdfHasPages) {
  needGuiApplication();
  int64_t id = ingestRun();
  RunStore store(store_);
  std::string path = dir_.file("report.pdf");
  writePdfReport(buildReport(store, id), path);
  EXPECT_EQ(test::readFile(path).substr(0, 5), "%PDF-");
  FILE* pipe = ::popen(("pdfinfo '" + path + "' 2>&1").c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string info;
  char buffer[256];
  while (std::fgets(buffer, sizeof buffer, pipe)) info += buffer;
  int status = ::pclose(pipe);
  if (WEXITSTATUS(status) == 127) GTEST_SKIP() << "pdfinfo (poppler-utils) is not installed";
  ASSERT_EQ(status, 0) << info;
  size_t at = info.find("Pages:");
  ASSERT_NE(at, std::string::npos) << info;
  EXPECT_GE(std::stoi(info.substr(at + 6)), 3) << info;

  // The PDF's text holds the recommendations the HTML has.
  pipe = ::popen(("pdftotext -q '" + path + "' - 2>&1").c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string text;
  while (std::fgets(buffer, sizeof buffer, pipe)) text += buffer;
  ASSERT_EQ(::pclose(pipe), 0) << text;
  std::replace(text.begin(), text.end(), '\n', ' ');
  EXPECT_NE(text.find("Recommendations"), std::string::npos) << text;
  EXPECT_NE(text.find("Rank 2 computes"), std::string::npos) << text;
  EXPECT_NE(text.find("loss.item()"), std::string::npos) << text;
}

TEST_F(ReportTest, UnwritablePathsAreClearErrors) {
  int64_t id = ingestRun(2, 30);
  RunStore store(store_);
  auto report = buildReport(store, id);
  std::string bad = dir_.file("missing/report.html");
  EXPECT_THROW(writeHtmlReport(report, bad), InputError);
  EXPECT_THROW(writeCsv(store, id, bad), InputError);
  needGuiApplication();
  EXPECT_THROW(writePdfReport(report, bad), InputError);
}

TEST_F(ReportTest, AnImportedTimelineReportsWhatItHasAndSaysWhatItLacks) {
  const std::string trace = dir_.file("horovod.json");
  test::writeFile(trace, R"([
{"name": "process_name", "ph": "M", "pid": 0, "args": {"name": "grad.w"}},
{"name": "NEGOTIATE_ALLREDUCE", "ph": "B", "ts": 100, "pid": 0},
{"name": "0", "ph": "X", "ts": 110, "dur": 0, "pid": 0},
{"name": "1", "ph": "X", "ts": 150, "dur": 0, "pid": 0},
{"ph": "E", "ts": 160, "pid": 0},
{"name": "ALLREDUCE", "ph": "B", "ts": 160, "pid": 0},
{"ph": "E", "ts": 400, "pid": 0}
])");
  int64_t imported = 0, live = ingestRun();
  {
    RunStore store(store_);
    imported = importTimeline(store, trace).runId;
  }
  RunStore store(store_);
  auto report = buildReport(store, imported);
  EXPECT_TRUE(report.charts.empty()) << report.charts.size() << " charts with nothing to draw";
  EXPECT_FALSE(report.emptyCharts.empty());
  const std::string html = renderHtml(report);
  EXPECT_NE(html.find("<td>ranks</td><td>2</td>"), std::string::npos) << "the trace's two ranks";
  EXPECT_NE(html.find("not measured (no step samples)"), std::string::npos);
  EXPECT_NE(html.find("not measured (no all-reduce ops)"), std::string::npos);
  EXPECT_EQ(html.find("0.0 samples/s"), std::string::npos) << "a throughput it never measured";
  EXPECT_NE(html.find("No charts: this run holds nothing to draw them from"), std::string::npos);
  EXPECT_NE(html.find("timeline events are in the Chrome trace export"), std::string::npos);

  // Against a live run: the live run's throughput is drawn; what the import lacks is said, not a change of
  // -100 %.
  auto compared = buildReport(store, imported, {live});
  EXPECT_FALSE(compared.charts.empty());
  const std::string both = renderHtml(compared);
  EXPECT_NE(both.find("has no step samples"), std::string::npos)
      << "the comparison says what it cannot compare";
  EXPECT_EQ(both.find("-100.0%"), std::string::npos) << "a metric the run lacks shown as a change";
  EXPECT_EQ(both.find("inf%"), std::string::npos);
}
