// SPDX-License-Identifier: GPL-3.0-or-later
// The console end to end, offscreen: real ranks launched from the form through the embedded agent, the dashboard
// fed live, the run in the history; findings leading to their evidence; two stored runs compared; reports
// exported from the dialog; a Horovod timeline imported; and every page rendered to PNG under the build folder
// (build/screenshots) for people to look at.
#include <gtest/gtest.h>

#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QItemSelectionModel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTranslator>

#include "console/comparison_model.h"
#include "gui/compare_page.h"
#include "gui/dashboard_page.h"
#include "gui/launch_page.h"
#include "gui/live_run.h"
#include "gui/main_window.h"
#include "gui/report_dialog.h"
#include "gui/series_chart.h"
#include "gui/simple_pages.h"
#include "gui/timeline_page.h"
#include "gui/timeline_view.h"
#include "gui/translations.h"
#include "tests/gui/gui_test_support.h"

namespace ringmaster::gui {
namespace {

constexpr int kRunTimeoutMs = 180'000;

QString screenshotDir() { return QStringLiteral(RM_BUILD_DIR "/screenshots"); }

class LiveRunTest : public ::testing::Test {
 protected:
  void SetUp() override {
    test::guiApp();
    ASSERT_TRUE(dir.isValid());
    options.storePath = dir.filePath(QStringLiteral("runs.sqlite"));
    options.workerPath = QStringLiteral(RM_BIN_DIR "/ringmaster-worker");
    options.stateDir = dir.filePath(QStringLiteral("agent"));
    ASSERT_TRUE(QFileInfo(options.workerPath).isExecutable()) << "build ringmaster-worker first";
  }

  // Fills the launch form as a user would and presses Launch; returns the run's status when it ends.
  QString launchFromForm(MainWindow& window, const QString& name, int ranks, int steps, const QString& straggler = {},
                         bool timeline = false) {
    LaunchPage* form = window.launchPage();
    auto set = [form](const char* field) { return form->field(QString::fromLatin1(field)); };
    qobject_cast<QLineEdit*>(set("name"))->setText(name);
    qobject_cast<QSpinBox*>(set("world_size"))->setValue(ranks);
    qobject_cast<QComboBox*>(set("model"))->setCurrentText(QStringLiteral("mlp"));
    qobject_cast<QComboBox*>(set("dataset"))->setCurrentText(QStringLiteral("synthetic"));
    qobject_cast<QSpinBox*>(set("hyper.epochs"))->setValue(0);
    qobject_cast<QSpinBox*>(set("hyper.steps"))->setValue(steps);
    qobject_cast<QLineEdit*>(set("faults.stragglers"))->setText(straggler);
    set("timeline")->setProperty("checked", timeline);
    EXPECT_TRUE(form->problems().isEmpty()) << form->problems().join('\n').toStdString();
    QString status;
    auto connection = QObject::connect(&window, &MainWindow::liveRunEnded, [&](const QString& s) { status = s; });
    form->findChild<QPushButton*>(QStringLiteral("launch"))->click();
    EXPECT_TRUE(test::waitUntil([&] { return !status.isEmpty(); }, kRunTimeoutMs)) << "the run did not end";
    QObject::disconnect(connection);
    return status;
  }

  bool waitForRuns(MainWindow& window) {
    bool refreshed = false;
    auto c = QObject::connect(&window, &MainWindow::runsRefreshed, [&] { refreshed = true; });
    window.refreshRuns();
    const bool ok = test::waitUntil([&] { return refreshed; }, 20000);
    QObject::disconnect(c);
    return ok;
  }

  bool openAndWait(MainWindow& window, int64_t runId) {
    bool shown = false;
    auto c = QObject::connect(&window, &MainWindow::runShown, [&](int64_t id) { shown = id == runId; });
    window.openRun(runId);
    const bool ok = test::waitUntil([&] { return shown; }, 60000);
    QObject::disconnect(c);
    return ok;
  }

  QTemporaryDir dir;
  MainWindowOptions options;
};

TEST_F(LiveRunTest, TwoRanksLaunchedFromTheFormFeedTheDashboardAndTheHistory) {
  MainWindow window(options);
  window.show();
  ASSERT_EQ(launchFromForm(window, QStringLiteral("two ranks"), 2, 20), QStringLiteral("finished"));

  // Both ranks' points reached the charts (line 0 of the throughput chart is the total, then rank 0 and 1).
  DashboardPage* dashboard = window.dashboardPage();
  dashboard->redraw();
  SeriesChart* throughput = dashboard->throughputChart();
  ASSERT_EQ(throughput->lineCount(), 3);
  EXPECT_GT(throughput->pointCount(1), 0);
  EXPECT_GT(throughput->pointCount(2), 0);
  for (SeriesChart* chart : {dashboard->memoryChart(), dashboard->latencyChart()}) {
    ASSERT_EQ(chart->lineCount(), 2);
    EXPECT_GT(chart->pointCount(0), 0);
    EXPECT_GT(chart->pointCount(1), 0);
  }
  EXPECT_EQ(window.shownRun()->series.endStep(), 20u);
  EXPECT_EQ(window.shownRun()->series.rank(1, console::RankMetric::Throughput).count(), 20);
  EXPECT_GT(window.logModel()->rowCount(), 0);

  // The history lists it as finished.
  ASSERT_TRUE(waitForRuns(window));
  const int row = window.runsModel()->rowOf(window.liveRun()->runId());
  ASSERT_GE(row, 0);
  EXPECT_EQ(window.runsModel()->run(row)->status, "finished");
  EXPECT_EQ(window.runsModel()->run(row)->name, "two ranks");
  EXPECT_EQ(window.runsModel()->run(row)->worldSize, 2);
}

TEST_F(LiveRunTest, StragglerComparisonReportsImportAndScreenshots) {
  MainWindow window(options);
  window.resize(1440, 900);
  window.show();
  // Run 1: four ranks, rank 2 computes 120 ms more per step (clear of the noise of a busy machine), timeline on.
  ASSERT_EQ(launchFromForm(window, QStringLiteral("straggler on rank 2"), 4, 60, QStringLiteral("2:120"), true),
            QStringLiteral("finished"));
  const int64_t stragglerRun = window.liveRun()->runId();
  const int liveFindings = window.findingsModel()->rowCount();
  const double rank2Backward = window.shownRun()->series.phaseMeans(2, 0, 60)[2];
  const double rank0Backward = window.shownRun()->series.phaseMeans(0, 0, 60)[2];
  // Run 2: the same job without the fault.
  ASSERT_EQ(launchFromForm(window, QStringLiteral("clean baseline"), 4, 60, {}, true), QStringLiteral("finished"));
  const int64_t cleanRun = window.liveRun()->runId();

  // Reopened from the store (offline), the findings view lists rank 2 as the straggler.
  ASSERT_TRUE(openAndWait(window, stragglerRun));
  console::FindingsModel* findings = window.findingsModel();
  int stragglerRow = -1;
  std::string listed;
  for (int r = 0; r < findings->rowCount(); ++r) {
    listed += "\n  " + findings->finding(r)->summary();
    if (findings->finding(r)->kind() == v1::Finding::KIND_STRAGGLER) stragglerRow = r;
  }
  ASSERT_GE(stragglerRow, 0) << "no straggler finding among:" << listed << "\nlive findings " << liveFindings
                             << ", backward ms rank 2 " << rank2Backward << " rank 0 " << rank0Backward;
  EXPECT_EQ(findings->finding(stragglerRow)->rank(), 2);

  // Selecting it highlights rank 2 on the dashboard and moves the timeline to the evidence.
  window.showPage(MainWindow::Findings);
  QTableView* findingsView = window.findingsPage()->view();
  findingsView->selectionModel()->setCurrentIndex(findings->index(stragglerRow, 0),
                                                  QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
  EXPECT_EQ(window.selectedRank(), 2);
  EXPECT_EQ(window.dashboardPage()->highlightedRank(), 2);
  const auto [selBegin, selEnd] = window.timelinePage()->view()->selection();
  EXPECT_LT(selBegin, selEnd) << "the timeline shows the evidence range";
  EXPECT_GE(window.timelinePage()->view()->visibleEnd(), selEnd);
  EXPECT_LE(window.timelinePage()->view()->visibleBegin(), selBegin);

  // Comparing the two stored runs fills the delta table.
  ComparePage* compare = window.comparePage();
  bool compared = false;
  QObject::connect(compare, &ComparePage::compared, [&] { compared = true; });
  compare->compare({cleanRun, stragglerRun});
  ASSERT_TRUE(test::waitUntil([&] { return compared; }, 60000));
  EXPECT_GT(compare->model()->rowCount(), 3);
  EXPECT_EQ(compare->model()->columnCount(), 4);

  // Reports from the dialog: HTML and PDF files appear.
  for (auto [format, name] : {std::pair{ReportDialog::Format::Html, "report.html"},
                              std::pair{ReportDialog::Format::Pdf, "report.pdf"}}) {
    ReportDialog dialog(window.store(), stragglerRun, &window);
    const QString path = dir.filePath(QLatin1String(name));
    dialog.setFormat(format);
    dialog.setPath(path);
    dialog.setCompareWith(QString::number(cleanRun));
    QString error = QStringLiteral("pending");
    QObject::connect(&dialog, &ReportDialog::finished, [&](const QString&, const QString& e) { error = e; });
    dialog.exportNow();
    ASSERT_TRUE(test::waitUntil([&] { return error != QLatin1String("pending"); }, 120000));
    EXPECT_TRUE(error.isEmpty()) << error.toStdString();
    EXPECT_GT(QFileInfo(path).size(), 1000) << name;
    EXPECT_TRUE(dialog.resultText().contains(QStringLiteral("Saved")));
  }

  // Screenshots of every page of the straggler run, rank 2 selected.
  window.selectRank(2);
  const QStringList english = window.saveScreenshots(screenshotDir());
  EXPECT_EQ(english.size(), MainWindow::PageCount);
  // The compare page in the screenshot shows the comparison made above.
  for (const QString& file : english) EXPECT_GT(QFileInfo(file).size(), 10'000) << file.toStdString();
}

TEST_F(LiveRunTest, ChineseScreenshotAndImportedHorovodTimeline) {
  // A Horovod-format timeline, as HOROVOD_TIMELINE writes it: one process per tensor, ticks named by rank.
  const QString path = dir.filePath(QStringLiteral("horovod_timeline.json"));
  {
    QFile file(path);
    ASSERT_TRUE(file.open(QIODevice::WriteOnly));
    QByteArray json = "[\n";
    const char* tensors[] = {"grad.fc1.weight", "grad.fc2.weight"};
    for (int t = 0; t < 2; ++t) {
      json += QStringLiteral("{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": %1, \"args\": {\"name\": \"%2\"}},\n")
                  .arg(t).arg(QLatin1String(tensors[t])).toUtf8();
      for (int step = 0; step < 5; ++step) {
        const int base = step * 10000 + t * 1000;
        json += QStringLiteral("{\"name\": \"NEGOTIATE_ALLREDUCE\", \"ph\": \"B\", \"ts\": %1, \"pid\": %2},\n").arg(base).arg(t).toUtf8();
        for (int rank = 0; rank < 4; ++rank) {
          const int tick = base + 100 + rank * (rank == 3 ? 900 : 50);  // rank 3 is late
          json += QStringLiteral("{\"name\": \"%1\", \"ph\": \"X\", \"ts\": %2, \"dur\": 0, \"pid\": %3},\n")
                      .arg(rank).arg(tick).arg(t).toUtf8();
        }
        json += QStringLiteral("{\"ph\": \"E\", \"ts\": %1, \"pid\": %2},\n").arg(base + 3000).arg(t).toUtf8();
        json += QStringLiteral("{\"name\": \"ALLREDUCE\", \"ph\": \"B\", \"ts\": %1, \"pid\": %2},\n").arg(base + 3000).arg(t).toUtf8();
        json += QStringLiteral("{\"name\": \"GLOO_ALLREDUCE\", \"ph\": \"B\", \"ts\": %1, \"pid\": %2},\n").arg(base + 3100).arg(t).toUtf8();
        json += QStringLiteral("{\"ph\": \"E\", \"ts\": %1, \"pid\": %2},\n").arg(base + 5000).arg(t).toUtf8();
        json += QStringLiteral("{\"ph\": \"E\", \"ts\": %1, \"pid\": %2},\n").arg(base + 5200).arg(t).toUtf8();
      }
    }
    json += "{\"name\": \"end\", \"ph\": \"i\", \"ts\": 60000, \"pid\": 0, \"s\": \"g\"}\n]\n";
    file.write(json);
  }

  // The Chinese interface, as `--lang zh_CN` installs it.
  ASSERT_EQ(installTranslation(*QCoreApplication::instance(), QStringLiteral("zh_CN")), QStringLiteral("zh_CN"));
  MainWindow window(options);
  window.resize(1440, 900);
  window.show();
  EXPECT_EQ(window.pages()->tabText(MainWindow::Timeline), QStringLiteral("时间线"));

  bool shown = false;
  QObject::connect(&window, &MainWindow::runShown, [&] { shown = true; });
  window.importTimeline(path);
  ASSERT_TRUE(test::waitUntil([&] { return shown; }, 60000));
  const console::TimelineModel& timeline = window.shownRun()->timeline;
  const std::vector<int> tensors = timeline.tensorRows();
  ASSERT_EQ(tensors.size(), 2u);
  EXPECT_EQ(window.timelinePage()->view()->rowMode(), TimelineView::RowMode::ByTensor);
  const auto& events = timeline.events(tensors[0]);
  auto negotiate = std::find_if(events.begin(), events.end(), [&](const auto& e) {
    return timeline.name(e.name) == "NEGOTIATE_ALLREDUCE";
  });
  ASSERT_NE(negotiate, events.end());
  EXPECT_EQ(timeline.lateRank(tensors[0], *negotiate), 3);

  window.showPage(MainWindow::Timeline);
  window.timelinePage()->view()->setVisibleRange(0, 12'000'000);  // the first two steps
  const QStringList chinese = window.saveScreenshots(screenshotDir(), QStringLiteral("_zh_CN"));
  EXPECT_EQ(chinese.size(), MainWindow::PageCount);
}

}  // namespace
}  // namespace ringmaster::gui
