// SPDX-License-Identifier: GPL-3.0-or-later
// The console as people use it day to day, offscreen, against real runs through the embedded agent: charts
// that keep following a live run after a finding was looked at, a finding that moves other pages only when
// asked, the baseline of a comparison being the run ticked first (as `ringmaster compare A B` takes A), axes
// that start afresh with each run, a Stop that asks first and names who stopped the ranks, and a Chinese
// console whose reports are Chinese too.
#include <gtest/gtest.h>

#include <QApplication>
#include <QCategoryAxis>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QLineSeries>
#include <QListWidget>
#include <QProcess>
#include <QPushButton>
#include <QTableView>
#include <QTranslator>
#include <memory>
#include <set>

#include "console/models/findings_model.h"
#include "console/reports/report.h"
#include "diagnosis/advice.h"
#include "gui/dialogs/report_dialog.h"
#include "gui/main_window.h"
#include "gui/pages/compare_page.h"
#include "gui/pages/dashboard_page.h"
#include "gui/pages/findings_page.h"
#include "gui/pages/logs_page.h"
#include "gui/pages/runs_page.h"
#include "gui/pages/timeline_page.h"
#include "gui/translations.h"
#include "gui/views/heatmap_view.h"
#include "gui/views/series_chart.h"
#include "gui/views/timeline_view.h"
#include "tests/gui/open_run.h"
#include "tests/support/agent_test_support.h"
#include "tests/support/console_test.h"
#include "tests/support/process.h"

namespace ringmaster::gui {
namespace {

constexpr int kRunTimeoutMs = 240'000;

class DailyUseTest : public test::ConsoleWindowTest {
 protected:
  // Launches `spec` and waits for its end; returns the run's id.
  int64_t runToTheEnd(MainWindow& window, const v1::JobSpec& spec) {
    status.clear();
    window.launch(spec);
    EXPECT_TRUE(test::waitUntil([&] { return !status.isEmpty(); }, kRunTimeoutMs)) << "the run did not end";
    EXPECT_EQ(status, QStringLiteral("finished")) << window.bannerText().toStdString();
    return window.liveRun() ? window.liveRun()->runId() : -1;
  }

  // The last step any line of the chart reaches.
  static double lastX(SeriesChart* chart) {
    double last = -1;
    for (int line = 0; line < chart->lineCount(); ++line) {
      const auto* series = chart->lineSeries(line);
      if (series->count() > 0) last = std::max(last, series->at(series->count() - 1).x());
    }
    return last;
  }
};

// Open Findings during a live run, select the straggler, back to the Dashboard: the charts and the heatmap go
// on to the run's last step, and after the run they hold every step. Selecting the finding changed no other
// page; "Show on Dashboard" charts its steps and still follows the run; "Show its logs" filters the Logs
// page, which says when that rank printed nothing.
TEST_F(DailyUseTest, ChartsKeepFollowingALiveRunAfterAFindingWasLookedAt) {
  MainWindow& window = openWindow();
  DashboardPage* page = window.dashboardPage();
  constexpr uint64_t kSteps = 300;
  v1::JobSpec spec = test::smallJob(2, kSteps);
  auto* straggler = spec.mutable_faults()->add_stragglers();
  straggler->set_rank(1);
  straggler->set_extra_ms(40);
  window.launch(spec);

  console::FindingsModel* findings = window.findingsModel();
  // The injected straggler's finding (a noisy step may make another rank's, of information only, first).
  auto stragglerRow = [&] {
    for (int r = 0; r < findings->rowCount(); ++r) {
      if (findings->finding(r)->kind() == v1::Finding::KIND_STRAGGLER && findings->finding(r)->rank() == 1)
        return r;
    }
    return -1;
  };
  ASSERT_TRUE(test::waitUntil([&] { return stragglerRow() >= 0 || !status.isEmpty(); }, kRunTimeoutMs));
  ASSERT_TRUE(status.isEmpty()) << "the run ended before its straggler was found live";
  const uint64_t stepWhenLooked = window.shownRun()->series.endStep();
  ASSERT_LT(stepWhenLooked, kSteps - 20) << "found too late to look at it live";

  // Findings, the straggler selected: its details, and nothing else moved.
  window.showPage(MainWindow::Findings);
  FindingsPage* findingsPage = window.findingsPage();
  findingsPage->view()->selectRow(stragglerRow());
  QCoreApplication::processEvents();
  const QString details = findingsPage->findChild<QLabel*>(QStringLiteral("findingDetails"))->text();
  EXPECT_TRUE(details.contains("rank 1")) << details.toStdString();
  EXPECT_EQ(window.logsPage()->filter()->rank(), -1) << "the Logs page moved to the finding's rank";
  EXPECT_EQ(window.timelinePage()->view()->highlightedRank(), -1) << "the Timeline moved";
  EXPECT_EQ(page->highlightedRank(), -1) << "the Dashboard moved";
  EXPECT_EQ(page->stepRange(), (std::pair<double, double>{0, kSteps}));

  // Back to the Dashboard: it goes on with the run.
  window.showPage(MainWindow::Dashboard);
  ASSERT_TRUE(test::waitUntil([&] { return window.shownRun()->series.endStep() >= stepWhenLooked + 20; },
                              kRunTimeoutMs));
  page->redraw();
  EXPECT_GE(lastX(page->throughputChart()), static_cast<double>(stepWhenLooked + 10));

  // Asked for: the finding's steps on the Dashboard, to the end of the run, the rank emphasised.
  window.showPage(MainWindow::Findings);
  findingsPage->showButton(FindingsPage::Evidence::Dashboard)->click();
  EXPECT_EQ(window.pages()->currentIndex(), MainWindow::Dashboard);
  EXPECT_EQ(page->highlightedRank(), 1);
  const uint64_t since = findings->finding(stragglerRow())->since_step();
  EXPECT_EQ(page->stepRange().first, since > 10 ? since - 10 : 0);
  EXPECT_EQ(page->stepRange().second, kSteps);

  ASSERT_TRUE(test::waitUntil([&] { return !status.isEmpty(); }, kRunTimeoutMs));
  ASSERT_EQ(status, QStringLiteral("finished"));
  page->redraw();
  EXPECT_EQ(page->stepRange().second, kSteps);
  for (SeriesChart* chart : {page->throughputChart(), page->latencyChart(), page->memoryChart()})
    EXPECT_GE(lastX(chart), static_cast<double>(kSteps - 1)) << chart->chart()->title().toStdString();
  EXPECT_EQ(page->heatmapView()->stepRange().second, static_cast<double>(kSteps));

  // Its logs: the Logs page shows rank 1, and says so when rank 1 printed nothing the search finds.
  window.showPage(MainWindow::Findings);
  findingsPage->view()->selectRow(stragglerRow());
  QPushButton* logs = findingsPage->showButton(FindingsPage::Evidence::Logs);
  EXPECT_EQ(logs->text(), QStringLiteral("Show logs of rank 1"));
  logs->click();
  EXPECT_EQ(window.pages()->currentIndex(), MainWindow::Logs);
  EXPECT_EQ(window.logsPage()->filter()->rank(), 1);
  EXPECT_EQ(window.dashboardPage()->highlightedRank(), 1) << "the Dashboard keeps what was asked of it";
  window.logsPage()->findChild<QLineEdit*>()->setText(QStringLiteral("no line says this"));
  EXPECT_TRUE(window.logsPage()->emptyNote().startsWith(QStringLiteral("No line of rank 1 matches")))
      << window.logsPage()->emptyNote().toStdString();
  window.logsPage()->findChild<QLineEdit*>()->clear();
  // Rank 1's own lines, or the note that it printed none while rank 0 did.
  if (window.logsPage()->filter()->rowCount() > 0) {
    EXPECT_TRUE(window.logsPage()->emptyNote().isEmpty()) << window.logsPage()->emptyNote().toStdString();
  } else {
    EXPECT_TRUE(window.logsPage()->emptyNote().startsWith(QStringLiteral("No lines from rank 1 yet; ")))
        << window.logsPage()->emptyNote().toStdString();
  }
  window.logsPage()->findChild<QPushButton*>()->click();
  EXPECT_EQ(window.logsPage()->filter()->rank(), -1);
  EXPECT_GT(window.logsPage()->filter()->rowCount(), 0);
  EXPECT_TRUE(window.logsPage()->emptyNote().isEmpty());
}

// Tick run A, then run B (B newer, listed above A), Compare: A is the baseline, as in `ringmaster compare A
// B`, and every change has the CLI's sign and figure.
TEST_F(DailyUseTest, TheRunTickedFirstIsTheBaselineAsInTheCli) {
  MainWindow& window = openWindow();
  const int64_t a = runToTheEnd(window, test::smallJob(2, 40));
  v1::JobSpec slow = test::smallJob(2, 40);
  auto* straggler = slow.mutable_faults()->add_stragglers();
  straggler->set_rank(1);
  straggler->set_extra_ms(30);
  const int64_t b = runToTheEnd(window, slow);
  ASSERT_GT(b, a);
  bool refreshed = false;
  auto c = QObject::connect(&window, &MainWindow::runsRefreshed, [&] { refreshed = true; });
  window.refreshRuns();
  ASSERT_TRUE(test::waitUntil([&] { return refreshed; }, 20000));
  QObject::disconnect(c);

  ComparePage* compare = window.comparePage();
  QListWidget* list = compare->runList();
  auto itemOf = [&](int64_t id) -> QListWidgetItem* {
    for (int i = 0; i < list->count(); ++i) {
      if (list->item(i)->data(Qt::UserRole).toLongLong() == id) return list->item(i);
    }
    return nullptr;
  };
  ASSERT_TRUE(itemOf(a) && itemOf(b));
  ASSERT_LT(list->row(itemOf(b)), list->row(itemOf(a))) << "the newest run is listed first";
  itemOf(a)->setCheckState(Qt::Checked);
  itemOf(b)->setCheckState(Qt::Checked);
  EXPECT_EQ(compare->ticked(), (std::vector<int64_t>{a, b}));
  EXPECT_TRUE(itemOf(a)->text().endsWith(QStringLiteral(" · baseline"))) << itemOf(a)->text().toStdString();
  EXPECT_FALSE(itemOf(b)->text().contains(QStringLiteral("baseline"))) << itemOf(b)->text().toStdString();
  bool compared = false;
  QObject::connect(compare, &ComparePage::compared, [&] { compared = true; });
  compare->compareButton()->click();
  ASSERT_TRUE(test::waitUntil([&] { return compared; }, 60000));
  ASSERT_EQ(compare->model()->comparisons().size(), 1u);
  const RunComparison& shown = compare->model()->comparisons().front();
  EXPECT_FALSE(compare->verdictText().isEmpty());

  const auto cli = test::runProcess({test::binPath("ringmaster"), "compare", std::to_string(a),
                                     std::to_string(b), "--store", options.storePath.toStdString()},
                                    {}, std::chrono::milliseconds(60'000));
  ASSERT_EQ(cli.exitCode, 0) << cli.err;
  int matched = 0;
  for (const MetricDelta& d : shown.deltas) {
    if (!isEmpty(d.missing)) continue;
    // "  METRIC  UNIT  BASE  OTHER  CHANGE  95% CI": the metric's line of the CLI holds the same change.
    const std::string line = "\n  " + d.metric + std::string(24 - std::min<size_t>(24, d.metric.size()), ' ');
    const size_t at = cli.out.find(line);
    ASSERT_NE(at, std::string::npos) << d.metric << " not in\n" << cli.out;
    const std::string row = cli.out.substr(at + 1, cli.out.find('\n', at + 1) - at - 1);
    EXPECT_NE(row.find(" " + d.changeText() + " "), std::string::npos)
        << d.metric << ": the window says " << d.changeText() << ", the CLI\n"
        << row;
    ++matched;
  }
  EXPECT_GT(matched, 3);
  // B's straggler made it slower than A: its throughput change is negative on both.
  const auto throughput = std::find_if(shown.deltas.begin(), shown.deltas.end(),
                                       [](const MetricDelta& d) { return d.metric == "throughput"; });
  ASSERT_NE(throughput, shown.deltas.end());
  EXPECT_LT(throughput->other, throughput->base);
  EXPECT_EQ(throughput->changeText().front(), '-') << throughput->changeText();

  // Unticking A makes B the first ticked, so the baseline.
  itemOf(a)->setCheckState(Qt::Unchecked);
  EXPECT_TRUE(itemOf(b)->text().endsWith(QStringLiteral(" · baseline")));
}

// A leak run's memory chart reaches gigabytes (its trend line); the next live run's chart starts afresh and
// is drawn on its own scale.
TEST_F(DailyUseTest, TheNextRunsChartsDoNotKeepThePreviousRunsAxes) {
  MainWindow& window = openWindow();
  DashboardPage* page = window.dashboardPage();
  v1::JobSpec leaking = test::smallJob(2, 120);
  auto* leak = leaking.mutable_faults()->add_leaks();
  leak->set_rank(1);
  leak->set_mb_per_step(8);
  runToTheEnd(window, leaking);
  page->redraw();
  const double leakTop = page->memoryChart()->yAxis()->max();

  status.clear();
  window.launch(test::smallJob(2, 120));
  // The new run shown live, a few steps in.
  ASSERT_TRUE(test::waitUntil(
      [&] {
        return (page->titleText().endsWith(QStringLiteral(" · live")) &&
                window.shownRun()->series.endStep() >= 10) ||
               !status.isEmpty();
      },
      kRunTimeoutMs));
  page->redraw();
  auto peakRss = [&] {
    double peak = 0;
    for (int r = 0; r < 2; ++r) {
      const auto e = window.shownRun()->series.rank(r, console::RankMetric::RssMb).extent(0, 1000);
      if (!e.empty()) peak = std::max(peak, static_cast<double>(e.max));
    }
    return peak;
  };
  ASSERT_GT(peakRss(), 0);
  EXPECT_LT(page->memoryChart()->yAxis()->max(), 2 * peakRss())
      << "the clean run is drawn on the leak run's 0.." << leakTop << " MiB";
  ASSERT_TRUE(test::waitUntil([&] { return !status.isEmpty(); }, kRunTimeoutMs));
  page->redraw();
  EXPECT_LT(page->memoryChart()->yAxis()->max(), 2 * peakRss());
  EXPECT_LT(page->memoryChart()->yAxis()->max(), leakTop);
}

// Stop run asks first: "Keep training" keeps it; "Stop the run" stops it, and the ranks read "stopped by the
// user", not failed, not "by the agent".
TEST_F(DailyUseTest, StopAsksFirstAndTheRanksSayTheUserStoppedThem) {
  MainWindow& window = openWindow();
  DashboardPage* page = window.dashboardPage();
  window.launch(test::smallJob(2, 100'000));
  ASSERT_TRUE(test::waitUntil(
      [&] { return (window.shownRun() && window.shownRun()->series.endStep() >= 5) || !status.isEmpty(); },
      kRunTimeoutMs));
  ASSERT_TRUE(status.isEmpty());

  QString asked;
  test::answerNextQuestion(QStringLiteral("Keep training"), &asked);
  page->stopButton()->click();
  EXPECT_TRUE(asked.startsWith(QStringLiteral("Stop run %1?").arg(window.liveRun()->runId())))
      << asked.toStdString();
  const uint64_t at = window.shownRun()->series.endStep();
  ASSERT_TRUE(test::waitUntil([&] { return window.shownRun()->series.endStep() >= at + 5; }, kRunTimeoutMs))
      << "the run stopped though the user kept it";
  EXPECT_TRUE(status.isEmpty());

  test::answerNextQuestion(QStringLiteral("Stop the run"), &asked);
  page->stopButton()->click();
  ASSERT_TRUE(test::waitUntil([&] { return !status.isEmpty(); }, kRunTimeoutMs));
  EXPECT_EQ(status, QStringLiteral("stopped"));
  page->redraw();
  QAbstractItemModel* ranks = page->ranksView()->model();
  ASSERT_EQ(ranks->rowCount(), 2);
  for (int row = 0; row < 2; ++row) {
    EXPECT_EQ(ranks->index(row, console::RanksModel::State).data().toString(),
              QStringLiteral("stopped by the user"));
    EXPECT_FALSE(ranks->index(row, console::RanksModel::Rank).data(Qt::BackgroundRole).isValid());
  }
}

// The Runs page's filter finds runs by what their findings found: "leak" keeps the run that leaked and
// drops the clean one, which the Findings column shows with nothing.
TEST_F(DailyUseTest, TheRunsFilterFindsRunsByTheirFindings) {
  MainWindow& window = openWindow();
  v1::JobSpec leaking = test::smallJob(2, 120);
  leaking.set_name("nightly a");
  auto* leak = leaking.mutable_faults()->add_leaks();
  leak->set_rank(1);
  leak->set_mb_per_step(8);
  const int64_t leakRun = runToTheEnd(window, leaking);
  v1::JobSpec clean = test::smallJob(2, 20);
  clean.set_name("nightly b");
  const int64_t cleanRun = runToTheEnd(window, clean);

  window.showPage(MainWindow::Runs);
  RunsPage* runs = window.runsPage();
  QAbstractItemModel* shown = runs->view()->model();
  auto runIds = [&] {
    std::set<int64_t> ids;
    for (int row = 0; row < shown->rowCount(); ++row)
      ids.insert(shown->index(row, 0).data(console::RunsModel::RunIdRole).toLongLong());
    return ids;
  };
  ASSERT_TRUE(test::waitUntil([&] { return runIds() == std::set<int64_t>{leakRun, cleanRun}; }, 30'000));
  auto findingsOf = [&](int64_t id) {
    for (int row = 0; row < shown->rowCount(); ++row) {
      if (shown->index(row, 0).data(console::RunsModel::RunIdRole).toLongLong() == id)
        return shown->index(row, console::RunsModel::Findings).data().toString();
    }
    return QString();
  };
  EXPECT_EQ(shown->headerData(console::RunsModel::Findings, Qt::Horizontal).toString(),
            QStringLiteral("Findings"));
  EXPECT_TRUE(findingsOf(leakRun).contains(QStringLiteral("Memory leak")))
      << findingsOf(leakRun).toStdString();
  EXPECT_FALSE(findingsOf(cleanRun).contains(QStringLiteral("Memory leak")))
      << findingsOf(cleanRun).toStdString();

  runs->filterField()->setText(QStringLiteral("leak"));
  EXPECT_EQ(runIds(), std::set<int64_t>{leakRun});
  runs->filterField()->setText(QStringLiteral("nightly"));
  EXPECT_EQ(runIds(), (std::set<int64_t>{leakRun, cleanRun}));
}

// The Chinese console speaks Chinese in what it exports too: the report's headings, its findings (summary,
// evidence, advice) as the Findings page says them, its charts and the PDF's footers. A span of time reads in
// one unit wherever it stands (the leak's time to full in the summary and in the evidence). Ringmaster's test
// accuracy after each epoch is drawn beside the loss, and charted in the report.
TEST_F(DailyUseTest, TheChineseConsolesReportIsChineseAndChartsTheTestAccuracy) {
  ASSERT_EQ(installTranslation(*QCoreApplication::instance(), QStringLiteral("zh_CN")),
            QStringLiteral("zh_CN"));
  MainWindow& window = openWindow();
  // 2 ranks of 2048 synthetic samples in batches of 16: 64 steps an epoch, so two epochs and two steps more.
  v1::JobSpec leaking = test::smallJob(2, 130);
  auto* leak = leaking.mutable_faults()->add_leaks();
  leak->set_rank(1);
  leak->set_mb_per_step(8);
  const int64_t runId = runToTheEnd(window, leaking);
  ASSERT_GT(runId, 0);
  DashboardPage* page = window.dashboardPage();
  page->redraw();

  const QLineSeries* accuracy = page->lossChart()->sideLine();
  ASSERT_NE(accuracy, nullptr) << "no test accuracy beside the loss";
  ASSERT_EQ(accuracy->count(), 3);
  EXPECT_EQ(accuracy->at(0).x(), 63);
  EXPECT_EQ(accuracy->at(1).x(), 127);
  EXPECT_EQ(accuracy->at(2).x(), 129);
  const auto& summaries = window.shownRun()->summaries;
  ASSERT_EQ(summaries.count(0), 1u);
  EXPECT_NEAR(accuracy->at(2).y(), 100 * summaries.at(0).test_accuracy(), 1e-9);
  for (const QPointF& p : accuracy->points()) {
    EXPECT_GT(p.y(), 0);
    EXPECT_LE(p.y(), 100);
  }
  EXPECT_EQ(page->lossChart()->sideAxis()->max(), 100);
  EXPECT_NE(accuracy->name(), QStringLiteral("test accuracy (%)"));

  const auto& findings = window.shownRun()->findings;
  const auto found = std::find_if(findings.begin(), findings.end(), [](const v1::Finding& f) {
    return f.kind() == v1::Finding::KIND_MEMORY_LEAK && f.rank() == 1;
  });
  ASSERT_NE(found, findings.end()) << "no leak finding";
  const QString summary = console::FindingsModel::summaryText(*found);
  const QString evidence = console::FindingsModel::evidenceTexts(*found).join(QStringLiteral(" | "));
  const QString timeToFull = QCoreApplication::translate("ringmaster::Evidence", "time to full");
  constexpr const char16_t* kChineseUnits[] = {u" 秒", u" 分钟", u" 小时", u" 天"};
  ASSERT_NE(timeToFull, QStringLiteral("time to full"));
  QString span;
  for (const QString& e : console::FindingsModel::evidenceTexts(*found)) {
    if (e.startsWith(timeToFull + QLatin1Char(' '))) span = e.mid(timeToFull.size() + 1);
  }
  ASSERT_FALSE(span.isEmpty()) << evidence.toStdString();
  EXPECT_TRUE(std::any_of(std::begin(kChineseUnits), std::end(kChineseUnits), [&](const char16_t* unit) {
    return span.endsWith(QString::fromUtf16(unit));
  })) << span.toStdString();
  EXPECT_TRUE(summary.contains(span))
      << summary.toStdString() << " says another time to full than " << span.toStdString();
  EXPECT_FALSE(summary.contains(QStringLiteral(" min"))) << summary.toStdString();
  EXPECT_FALSE(evidence.contains(QStringLiteral(" min"))) << evidence.toStdString();

  auto exportReport = [&](ReportDialog::Format format, const QString& name) {
    ReportDialog dialog(window.store(), runId, &window);
    const QString path = dir.filePath(name);
    dialog.setFormat(format);
    dialog.setPath(path);
    QString error = QStringLiteral("pending");
    QObject::connect(&dialog, &ReportDialog::finished, [&](const QString&, const QString& e) { error = e; });
    dialog.exportNow();
    EXPECT_TRUE(test::waitUntil([&] { return error != QLatin1String("pending"); }, 120'000));
    EXPECT_TRUE(error.isEmpty()) << error.toStdString();
    return path;
  };
  auto said = [](const char* context, const char* text) {
    const QString words = QCoreApplication::translate(context, text);
    EXPECT_NE(words, QString::fromUtf8(text)) << text << " has no Chinese";
    return words;
  };
  QFile html(exportReport(ReportDialog::Format::Html, QStringLiteral("report_zh_CN.html")));
  ASSERT_TRUE(html.open(QIODevice::ReadOnly));
  const QString report = QString::fromUtf8(html.readAll());
  EXPECT_TRUE(report.contains(QStringLiteral("<html lang=\"zh-CN\">")));
  for (const char* heading : {"Summary", "Findings", "Recommendations", "Charts", "Ranks", "Environment"}) {
    EXPECT_TRUE(report.contains(QStringLiteral("<h2>") + said("ringmaster::console::ReportBody", heading) +
                                QStringLiteral("</h2>")))
        << heading;
  }
  EXPECT_FALSE(report.contains(QStringLiteral(">Summary<")));
  EXPECT_TRUE(report.contains(said("ringmaster::console::ReportCharts", "Test accuracy")));
  EXPECT_TRUE(report.contains(span)) << "the leak's time to full";
  EXPECT_TRUE(report.contains(console::FindingsModel::kindText(found->kind())));
  const QString advice =
      console::FindingsModel::adviceText(*found, diagnosis::adviceReaderOf("live", false, runId, true));
  EXPECT_TRUE(report.contains(advice.left(12).toHtmlEscaped())) << advice.toStdString();

  {
    // The report's accuracy chart holds the Dashboard's points, over the run's steps and 0 to 100 %.
    RunStore::Options readOnly;
    readOnly.readOnly = true;
    RunStore store(options.storePath.toStdString(), readOnly);
    const console::Report built = console::buildReport(store, runId);
    const QString title = said("ringmaster::console::ReportCharts", "Test accuracy");
    const auto chart = std::find_if(built.charts.begin(), built.charts.end(),
                                    [&](const console::Chart& c) { return c.title == title.toStdString(); });
    ASSERT_NE(chart, built.charts.end());
    ASSERT_EQ(chart->series.size(), 1u);
    ASSERT_EQ(chart->series[0].points.size(), 3u);
    for (int i = 0; i < 3; ++i) {
      EXPECT_EQ(chart->series[0].points[size_t(i)].first, accuracy->at(i).x());
      EXPECT_NEAR(chart->series[0].points[size_t(i)].second, accuracy->at(i).y(), 1e-9);
    }
    EXPECT_EQ(chart->ySpan, (std::pair<double, double>{0, 100}));
    EXPECT_EQ(chart->xSpan, (std::pair<double, double>{0, 129}));
  }

  const QString pdf = exportReport(ReportDialog::Format::Pdf, QStringLiteral("report_zh_CN.pdf"));
  QProcess pdftotext;
  pdftotext.start(QStringLiteral("pdftotext"),
                  {QStringLiteral("-enc"), QStringLiteral("UTF-8"), pdf, QStringLiteral("-")});
  if (pdftotext.waitForFinished(60'000) && pdftotext.exitCode() == 0) {
    const QString text = QString::fromUtf8(pdftotext.readAllStandardOutput());
    EXPECT_TRUE(text.contains(said("ringmaster::console::ReportBody", "Recommendations")))
        << text.toStdString();
    EXPECT_TRUE(text.contains(said("ringmaster::console::ReportPages", "page %1 of %2").arg(1).left(4)));
    EXPECT_FALSE(text.contains(QStringLiteral("Recommendations")));
  }
  // English again for whatever runs next in this process.
  for (QTranslator* translator : QCoreApplication::instance()->findChildren<QTranslator*>()) {
    QCoreApplication::removeTranslator(translator);
    delete translator;
  }
}

}  // namespace
}  // namespace ringmaster::gui
