// SPDX-License-Identifier: GPL-3.0-or-later
#include "console/reports/report.h"

#include <gtest/gtest.h>

#include <QAbstractTextDocumentLayout>
#include <QGuiApplication>
#include <QTextBlock>
#include <QTextCursor>
#include <QTextDocument>
#include <QTextFrame>
#include <QTextLayout>
#include <QTextTable>
#include <QXmlStreamReader>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>

#include "console/models/palette.h"
#include "console/reports/report_pdf.h"
#include "console/session/ingest.h"
#include "tests/support/diagnosis_synthetic.h"
#include "tests/support/files.h"
#include "tests/support/temp_dir.h"
#include "traces/chrome_trace_reader.h"
#include "traces/horovod_timeline_reader.h"

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
  writeHtmlReport(report, path, PaperSize::A4);
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
  for (const char* text : {"Throughput (all ranks)", "Loss (mean over ranks)", "Step phases per rank",
                           "All-reduce latency", "Memory per rank (RSS) with trend lines", "Straggler",
                           "Memory leak", "95% CI", "rank 2 (node-a)", "trend (leak)", "libtorch"}) {
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
    writePdfReport(buildReport(store, id), path, PaperSize::A4);
    FAIL() << "wrote a PDF without a QGuiApplication";
  } catch (const std::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("QGuiApplication"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
  EXPECT_FALSE(std::filesystem::exists(path));
  EXPECT_EQ(QCoreApplication::instance(), nullptr);  // nor did it make one
}

namespace {

// What a command printed, and its exit status (127: not installed).
std::string commandOutput(const std::string& command, int& status) {
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (!pipe) {
    status = -1;
    return {};
  }
  std::string out;
  char buffer[256];
  while (std::fgets(buffer, sizeof buffer, pipe)) out += buffer;
  status = WEXITSTATUS(::pclose(pipe));
  return out;
}

std::vector<QTextTable*> tablesOf(const QTextDocument& document) {
  std::vector<QTextTable*> tables;
  for (QTextFrame* frame : document.rootFrame()->childFrames()) {
    if (auto* table = qobject_cast<QTextTable*>(frame)) tables.push_back(table);
  }
  return tables;
}

QTextBlock cellBlock(QTextTable* table, int row, int column) {
  return table->cellAt(row, column).firstCursorPosition().block();
}

// Where a block's line breaks fall inside a word ("communic|ation"); with `strict`, every break that is not
// at a space or a line break ("MiB/|step").
std::vector<std::string> badBreaks(const QTextBlock& block, bool strict) {
  std::vector<std::string> bad;
  const QTextLayout* layout = block.layout();
  const QString text = block.text();
  for (int i = 0; i + 1 < layout->lineCount(); ++i) {
    const QTextLine line = layout->lineAt(i);
    const int end = line.textStart() + line.textLength();
    if (end <= 0 || end >= text.size()) continue;
    const bool midWord = text[end - 1].isLetterOrNumber() && text[end].isLetterOrNumber();
    if (midWord || (strict && !text[end - 1].isSpace())) {
      bad.push_back((text.left(end).split(QLatin1Char(' ')).last() + "|" +
                     text.mid(end).split(QLatin1Char(' ')).first())
                        .toStdString());
    }
  }
  return bad;
}

// The first line of what a heading introduces: past any headings under it; in a table, its first row under
// the header.
QTextBlock introducedBy(QTextBlock heading) {
  for (QTextBlock block = heading.next(); block.isValid(); block = block.next()) {
    if (block.blockFormat().headingLevel() > 0) continue;
    if (QTextTable* table = QTextCursor(block).currentTable())
      return cellBlock(table, std::min(table->format().headerRowCount(), table->rows() - 1), 0);
    if (!block.text().trimmed().isEmpty() || block.length() > 1) return block;
  }
  return {};
}

struct LineBox {
  QRectF first;      // the block's first line, in document coordinates
  double right = 0;  // where its widest line's content ends
};

LineBox lineBox(const QTextDocument& document, const QTextBlock& block) {
  document.documentLayout()->documentSize();  // laid out to the end
  const QRectF rect = document.documentLayout()->blockBoundingRect(block);
  const QTextLayout* layout = block.layout();
  const QPointF origin = rect.topLeft() - layout->boundingRect().topLeft();
  LineBox box;
  for (int i = 0; i < layout->lineCount(); ++i) {
    const QTextLine line = layout->lineAt(i);
    if (i == 0) box.first = line.rect().translated(origin);
    box.right = std::max(box.right, origin.x() + line.x() + line.naturalTextWidth());
  }
  return box;
}

}  // namespace

TEST_F(ReportTest, PaperSizesByNameAndLocale) {
  EXPECT_EQ(parsePaperSize("a4"), PaperSize::A4);
  EXPECT_EQ(parsePaperSize("Letter"), PaperSize::Letter);
  EXPECT_EQ(parsePaperSize("legal"), std::nullopt);
  EXPECT_STREQ(paperSizeName(PaperSize::Letter), "letter");
  for (const char* locale : {"en_US.UTF-8", "en_CA", "fr_CA.UTF-8", "es_MX.UTF-8", "en_PH"})
    EXPECT_EQ(paperSizeForLocale(locale), PaperSize::Letter) << locale;
  for (const char* locale : {"en_GB.UTF-8", "de_DE@euro", "zh_CN.UTF-8", "C", "POSIX", "C.UTF-8", "en", ""})
    EXPECT_EQ(paperSizeForLocale(locale), PaperSize::A4) << locale;

  // LC_ALL outranks LC_PAPER, which outranks LANG.
  const char* names[] = {"LC_ALL", "LC_PAPER", "LANG"};
  std::map<std::string, std::optional<std::string>> saved;
  for (const char* name : names) {
    if (const char* value = std::getenv(name))
      saved[name] = value;
    else
      saved[name] = std::nullopt;
    ::unsetenv(name);
  }
  EXPECT_EQ(defaultPaperSize(), PaperSize::A4);
  ::setenv("LANG", "en_US.UTF-8", 1);
  EXPECT_EQ(defaultPaperSize(), PaperSize::Letter);
  ::setenv("LC_PAPER", "de_DE.UTF-8", 1);
  EXPECT_EQ(defaultPaperSize(), PaperSize::A4);
  ::setenv("LC_ALL", "en_CA.UTF-8", 1);
  EXPECT_EQ(defaultPaperSize(), PaperSize::Letter);
  for (const auto& [name, value] : saved) {
    if (value)
      ::setenv(name.c_str(), value->c_str(), 1);
    else
      ::unsetenv(name.c_str());
  }
}

TEST_F(ReportTest, ChartsUseTheWindowsColoursAndReadLatencyInMs) {
  int64_t id = ingestRun();
  int64_t other = ingestRun(4, 80, 2);
  RunStore store(store_);
  const Report report = buildReport(store, id, {other});
  std::map<std::string, const Chart*> charts;
  for (const auto& chart : report.charts) charts[chart.title] = &chart;

  // Ranks in their dashboard colours, phases in the timeline's, leak trends as the dashboard draws them.
  const Chart* perRank = charts.at("Per-rank throughput");
  ASSERT_EQ(perRank->series.size(), 4u);
  for (int r = 0; r < 4; ++r) EXPECT_EQ(perRank->series[size_t(r)].color, rankColor(r, 4, false).hex()) << r;
  const Chart* phases = charts.at("Step phases per rank (mean)");
  ASSERT_EQ(phases->segmentColors.size(), phases->segmentNames.size());
  EXPECT_EQ(phases->segmentColors[1], phaseColor("FORWARD").hex());
  EXPECT_EQ(phases->segmentColors[3], phaseColor("COMM_WAIT").hex());
  EXPECT_EQ(phases->segmentColors[5], phaseColor("OTHER").hex());
  bool leakTrend = false;
  for (const auto& s : charts.at("Memory per rank (RSS) with trend lines")->series) {
    if (s.name == "rank 1 trend (leak)") {
      leakTrend = true;
      EXPECT_EQ(s.color, trendColor(rankColor(1, 4, false)).hex());
    }
  }
  EXPECT_TRUE(leakTrend);
  // Two runs in the Compare page's run colours.
  const Chart* throughput = charts.at("Throughput (all ranks)");
  ASSERT_EQ(throughput->series.size(), 2u);
  EXPECT_EQ(throughput->series[1].color, rankColor(1, 2, false).hex());

  // Latency in milliseconds: the chart (about 1 ms per op here), the summary and the comparison.
  const Chart* latency = charts.at("All-reduce latency");
  EXPECT_EQ(latency->yLabel.substr(0, 3), "ms ");
  double highest = 0;
  for (const auto& s : latency->series)
    for (const auto& [x, y] : s.points) highest = std::max(highest, y);
  EXPECT_GT(highest, 0.01);
  EXPECT_LT(highest, 100) << "microseconds drawn as milliseconds";
  const std::string html = renderHtml(report, PaperSize::A4);
  EXPECT_FALSE(std::regex_search(html, std::regex("[0-9] ?us\\b"))) << "a latency in microseconds";
  EXPECT_EQ(html.find("<td>us</td>"), std::string::npos);
  EXPECT_NE(html.find("<td>all-reduce latency p50</td><td>ms</td>"), std::string::npos);
  EXPECT_NE(html.find("@page { size: A4"), std::string::npos);
  EXPECT_NE(renderHtml(report, PaperSize::Letter).find("@page { size: letter"), std::string::npos);
}

TEST_F(ReportTest, ChartAxesHaveRoundTicksAndSiLabels) {
  // Records the tick labels left of the plot.
  class Labels : public ChartCanvas {
   public:
    std::vector<std::string> y;
    void polyline(const std::vector<std::pair<double, double>>&, const std::string&, double, bool) override {}
    void rect(double, double, double, double, const std::string&) override {}
    void text(double, double, const std::string& text, double, const std::string&, Anchor anchor,
              bool) override {
      if (anchor == Anchor::End) y.push_back(text);
    }
  };
  Chart chart;
  chart.title = "Throughput";
  chart.series.push_back({"job", {{0, 1200}, {100, 12345}, {199, 9000}}, "#000000", false});
  Labels labels;
  drawChart(chart, labels, 680, 260);
  EXPECT_EQ(labels.y, (std::vector<std::string>{"0", "5 k", "10 k", "15 k"}));
}

TEST_F(ReportTest, PdfIsLaidOutForA4AndLetter) {
  needGuiApplication();
  // Reports of stored runs with a straggler, a leak and a comparison, on both papers; then on A4 over rank
  // counts whose growing ranks table sweeps the later headings across a page's end.
  int moved = 0;
  std::map<PaperSize, QSizeF> areas;
  std::vector<std::pair<int, PaperSize>> cases{
      {4, PaperSize::A4}, {4, PaperSize::Letter}, {8, PaperSize::Letter}};
  for (int ranks = 22; ranks <= 32; ++ranks) cases.emplace_back(ranks, PaperSize::A4);
  for (const auto& [ranks, paper] : cases) {
    const int64_t id = ingestRun(ranks, 60, uint64_t(ranks));
    const int64_t other = ingestRun(ranks, 60, uint64_t(100 + ranks));
    RunStore store(store_);
    const Report report = buildReport(store, id, {other});
    {
      SCOPED_TRACE(std::string(paperSizeName(paper)) + ", " + std::to_string(ranks) + " ranks");
      PdfReportLayout layout(report, paper);
      const QTextDocument& document = layout.document();
      const QSizeF area = layout.pageArea();
      areas[paper] = area;
      moved += layout.headingsMoved();
      auto page = [&](double y) { return int(std::floor(y / area.height())); };

      // Nothing runs past the right margin; the charts are as wide as the text.
      size_t images = 0;
      for (QTextBlock block = document.begin(); block.isValid(); block = block.next()) {
        EXPECT_LE(lineBox(document, block).right, area.width() + 0.5) << block.text().toStdString();
        for (auto it = block.begin(); !it.atEnd(); ++it) {
          if (!it.fragment().charFormat().isImageFormat()) continue;
          ++images;
          const double width = it.fragment().charFormat().toImageFormat().width();
          EXPECT_LE(width, area.width());
          EXPECT_GE(width, area.width() - 1);
        }
      }
      EXPECT_EQ(images, report.charts.size());

      // Tables fit; headers break only between words, and no word of the findings or ranks is cut.
      const auto tables = tablesOf(document);
      EXPECT_GE(tables.size(), 6u);
      int checked = 0;
      for (QTextTable* table : tables) {
        // (Qt places a table's frame rectangle at its first cell: its width is what tells.)
        EXPECT_LE(document.documentLayout()->frameBoundingRect(table).width(), area.width() + 0.5);
        const QString first = cellBlock(table, 0, 0).text();
        const bool findingsOrRanks = first == QLatin1String("severity") || first == QLatin1String("rank");
        checked += findingsOrRanks;
        for (int row = 0; row < table->rows(); ++row) {
          if (row > 0 && !findingsOrRanks) break;
          for (int column = 0; column < table->columns(); ++column) {
            if (table->cellAt(row, column).column() != column) continue;  // spanned
            const QTextBlock cell = cellBlock(table, row, column);
            const auto bad = badBreaks(cell, row < table->format().headerRowCount());
            EXPECT_TRUE(bad.empty()) << "row " << row << " column " << column << ": " << bad.front();
          }
        }
        if (findingsOrRanks) {
          EXPECT_EQ(table->format().headerRowCount(), 1) << "repeated on each page";
        }
      }
      EXPECT_EQ(checked, 2);

      // Every heading shares its page with the start of what it introduces.
      int headings = 0;
      for (QTextBlock block = document.begin(); block.isValid(); block = block.next()) {
        if (block.blockFormat().headingLevel() == 0) continue;
        ++headings;
        const QTextBlock content = introducedBy(block);
        ASSERT_TRUE(content.isValid()) << block.text().toStdString();
        EXPECT_EQ(page(lineBox(document, block).first.top()),
                  page(lineBox(document, content).first.bottom() - 0.5))
            << block.text().toStdString() << " ends page " << page(lineBox(document, block).first.top());
      }
      EXPECT_GE(headings, 9);

      if (ranks > 8) continue;
      // Printed: the pages laid out, on the paper asked for, with the recommendations and ms latencies.
      const std::string path =
          dir_.file(std::string("report-") + paperSizeName(paper) + "-" + std::to_string(ranks) + ".pdf");
      layout.write(path);
      EXPECT_EQ(test::readFile(path).substr(0, 5), "%PDF-");
      int status = 0;
      const std::string info = commandOutput("pdfinfo '" + path + "'", status);
      if (status == 127) GTEST_SKIP() << "pdfinfo (poppler-utils) is not installed";
      ASSERT_EQ(status, 0) << info;
      EXPECT_NE(info.find(paper == PaperSize::A4 ? "pts (A4)" : "pts (letter)"), std::string::npos) << info;
      const size_t at = info.find("Pages:");
      ASSERT_NE(at, std::string::npos) << info;
      EXPECT_EQ(std::stoi(info.substr(at + 6)), layout.pageCount()) << info;
      EXPECT_GE(layout.pageCount(), 3);
      std::string text = commandOutput("pdftotext -q '" + path + "' -", status);
      ASSERT_EQ(status, 0) << text;
      std::replace(text.begin(), text.end(), '\n', ' ');
      for (const char* words : {"Recommendations", "Rank 2 computes", "loss.item()", "page 1 of "})
        EXPECT_NE(text.find(words), std::string::npos) << words << " in " << text;
      EXPECT_EQ(text.find(" us,"), std::string::npos) << text;
    }
  }
  EXPECT_GT(moved, 0) << "no layout put a heading at the foot of a page: the check above saw no such case";
  // Letter is wider and shorter than A4.
  EXPECT_GT(areas[PaperSize::Letter].width(), areas[PaperSize::A4].width());
  EXPECT_LT(areas[PaperSize::Letter].height(), areas[PaperSize::A4].height());
}

// A user's program is described by its command line and how it ran: instrumented or not, and on
// Ringmaster's Horovod layer when it was.
TEST_F(ReportTest, AProgramsConfigurationSaysWhetherItRanOnTheHorovodLayer) {
  for (const bool horovod : {true, false}) {
    SCOPED_TRACE(horovod ? "horovod" : "plain");
    NewRun run;
    run.name = horovod ? "hvd" : "plain";
    run.spec.set_world_size(2);
    for (const char* word : {"/usr/bin/python3", "train_hvd.py"}) run.spec.mutable_program()->add_argv(word);
    run.spec.mutable_program()->set_horovod(horovod);
    int64_t id = 0;
    {
      RunIngest ingest(store_, run);
      ingest.finish("finished");
      id = ingest.runId();
    }
    RunStore store(store_);
    const std::string html = renderHtml(buildReport(store, id), PaperSize::A4);
    EXPECT_NE(html.find("<td>instrumented</td><td>yes (ringmaster Python package)</td>"), std::string::npos);
    const bool row =
        html.find("<td>horovod layer</td><td>yes (Ringmaster&#39;s horovod.torch)</td>") != std::string::npos;
    EXPECT_EQ(row, horovod) << html.substr(html.find("Job configuration"), 800);
  }
}

TEST_F(ReportTest, UnwritablePathsAreClearErrors) {
  int64_t id = ingestRun(2, 30);
  RunStore store(store_);
  auto report = buildReport(store, id);
  std::string bad = dir_.file("missing/report.html");
  EXPECT_THROW(writeHtmlReport(report, bad, PaperSize::A4), InputError);
  EXPECT_THROW(writeCsv(store, id, bad), InputError);
  needGuiApplication();
  EXPECT_THROW(writePdfReport(report, bad, PaperSize::A4), InputError);
}

TEST_F(ReportTest, AnImportedTimelineReportsWhatItHasAndSaysWhatItLacks) {
  const std::string trace = dir_.file("horovod.json");
  test::writeFile(trace, test::kTinyHorovodTimeline);
  int64_t imported = 0, live = ingestRun();
  {
    RunStore store(store_);
    imported = importTimeline(store, trace).runId;
  }
  RunStore store(store_);
  auto report = buildReport(store, imported);
  EXPECT_TRUE(report.charts.empty()) << report.charts.size() << " charts with nothing to draw";
  EXPECT_FALSE(report.emptyCharts.empty());
  const std::string html = renderHtml(report, PaperSize::A4);
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
  const std::string both = renderHtml(compared, PaperSize::A4);
  EXPECT_NE(both.find("has no step samples"), std::string::npos)
      << "the comparison says what it cannot compare";
  EXPECT_EQ(both.find("-100.0%"), std::string::npos) << "a metric the run lacks shown as a change";
  EXPECT_EQ(both.find("inf%"), std::string::npos);
}
