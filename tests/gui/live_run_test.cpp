// SPDX-License-Identifier: GPL-3.0-or-later
// The console end to end, offscreen: real ranks launched from the form through the embedded agent, the
// dashboard fed live, the run in the history; findings leading to their evidence; two stored runs compared;
// reports exported from the dialog; a Horovod timeline imported; and every page rendered to PNG under the
// build folder (build/screenshots) for people to look at.
#include "gui/live_run.h"

#include <gtest/gtest.h>

#include <QAction>
#include <QComboBox>
#include <QContextMenuEvent>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QItemSelectionModel>
#include <QLineEdit>
#include <QLineSeries>
#include <QMenu>
#include <QProcess>
#include <QPushButton>
#include <QSet>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>
#include <QXmlStreamReader>

#include "console/models/comparison_model.h"
#include "console/reports/report.h"
#include "gui/dialogs/report_dialog.h"
#include "gui/main_window.h"
#include "gui/pages/compare_page.h"
#include "gui/pages/dashboard_page.h"
#include "gui/pages/findings_page.h"
#include "gui/pages/launch_page.h"
#include "gui/pages/timeline_page.h"
#include "gui/translations.h"
#include "gui/views/chart_export.h"
#include "gui/views/heatmap_view.h"
#include "gui/views/series_chart.h"
#include "gui/views/timeline_view.h"
#include "tests/gui/open_run.h"
#include "tests/support/console_test.h"
#include "tests/support/gui_app.h"

namespace ringmaster::gui {
namespace {

constexpr int kRunTimeoutMs = 180'000;

QString screenshotDir() {
  return QStringLiteral(RM_BUILD_DIR "/screenshots");
}

class LiveRunTest : public test::ConsoleTest {
 protected:
  void SetUp() override {
    ConsoleTest::SetUp();
    ASSERT_TRUE(QFileInfo(options.workerPath).isExecutable()) << "build ringmaster-worker first";
  }

  // Fills the launch form as a user would and presses Launch; returns the run's status when it ends.
  QString launchFromForm(MainWindow& window, const QString& name, int ranks, int steps,
                         const QString& straggler = {}, bool timeline = false) {
    LaunchPage* form = window.launchPage();
    auto set = [form](const char* field) { return form->field(QString::fromLatin1(field)); };
    qobject_cast<QLineEdit*>(set("name"))->setText(name);
    qobject_cast<QLineEdit*>(set("hosts"))->clear();  // this machine, whatever hosts another test's form kept
    qobject_cast<QSpinBox*>(set("world_size"))->setValue(ranks);
    qobject_cast<QComboBox*>(set("model"))->setCurrentText(QStringLiteral("mlp"));
    qobject_cast<QComboBox*>(set("dataset"))->setCurrentText(QStringLiteral("synthetic"));
    qobject_cast<QSpinBox*>(set("hyper.epochs"))->setValue(0);
    qobject_cast<QSpinBox*>(set("hyper.steps"))->setValue(steps);
    qobject_cast<QLineEdit*>(set("faults.stragglers"))->setText(straggler);
    set("timeline")->setProperty("checked", timeline);
    EXPECT_TRUE(form->problems().isEmpty()) << form->problems().join('\n').toStdString();
    QString status;
    auto connection =
        QObject::connect(&window, &MainWindow::liveRunEnded, [&](const QString& s) { status = s; });
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

// Distinct colours of a sample of the image's pixels (a blank image has one).
int coloursIn(const QImage& image) {
  QSet<QRgb> colours;
  for (int y = 0; y < image.height(); y += 2) {
    for (int x = 0; x < image.width(); x += 2) colours.insert(image.pixel(x, y));
  }
  return colours.size();
}

// What an SVG file holds: its elements by name, and its vector strokes (polylines and paths) by colour, which
// QSvgGenerator sets on the group around them. Empty, with `error` set, when it is not well-formed XML.
struct SvgContents {
  QMap<QString, int> elements;
  QMap<QString, int> strokesByColour;
};
SvgContents readSvg(const QString& path, QString& error) {
  SvgContents svg;
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly)) {
    error = file.errorString();
    return {};
  }
  QXmlStreamReader xml(&file);
  QStringList strokes;  // of the enclosing elements
  while (!xml.atEnd()) {
    const auto token = xml.readNext();
    if (token == QXmlStreamReader::StartElement) {
      const QString name = xml.name().toString();
      if (svg.elements.isEmpty() && name != QLatin1String("svg")) error = QStringLiteral("no <svg> root");
      ++svg.elements[name];
      const QString own = xml.attributes().value(QLatin1String("stroke")).toString();
      strokes << (own.isEmpty() ? (strokes.isEmpty() ? QString() : strokes.back()) : own);
      if (name == QLatin1String("polyline") || name == QLatin1String("path"))
        ++svg.strokesByColour[strokes.back()];
    } else if (token == QXmlStreamReader::EndElement) {
      strokes.removeLast();
    }
  }
  if (xml.hasError()) {
    error = xml.errorString();
    return {};
  }
  return svg;
}

TEST_F(LiveRunTest, ChartsOfARealRunSaveAsPngAndSvg) {
  MainWindow window(options);
  window.resize(1440, 900);
  window.show();
  ASSERT_EQ(launchFromForm(window, QStringLiteral("charts"), 2, 12), QStringLiteral("finished"));
  DashboardPage* dashboard = window.dashboardPage();
  dashboard->redraw();
  SeriesChart* chart = dashboard->throughputChart();
  ASSERT_GT(chart->pointCount(1), 0) << "rank 0's throughput reached the chart";

  // A right click on the chart offers both formats.
  QStringList offered;
  QTimer::singleShot(0, [&] {
    if (auto* menu = qobject_cast<QMenu*>(QApplication::activePopupWidget())) {
      for (QAction* action : menu->actions()) offered << action->objectName();
      menu->close();
    }
  });
  const QPoint at(50, 50);
  QContextMenuEvent rightClick(QContextMenuEvent::Mouse, at, chart->viewport()->mapToGlobal(at));
  QApplication::sendEvent(chart->viewport(), &rightClick);
  EXPECT_EQ(offered, (QStringList{QStringLiteral("savePng"), QStringLiteral("saveSvg")}));

  // PNG: the chart as shown, at its size, not blank (background, axes, lines and text).
  const QString png = dir.filePath(QStringLiteral("throughput.png"));
  ASSERT_EQ(saveChart(chart, png, ImageFormat::Png), QString());
  const QImage image(png);
  ASSERT_FALSE(image.isNull()) << "the PNG loads";
  EXPECT_EQ(image.size(), pngSize(chart));
  EXPECT_GE(image.width(), 320);
  EXPECT_GT(coloursIn(image), 2);

  // SVG: well-formed XML, drawn in vectors (Qt writes strokes as <polyline> or <path>, labels as <text>), and
  // every rank's line is there in its own colour rather than as a picture.
  const QString svg = dir.filePath(QStringLiteral("throughput.svg"));
  ASSERT_EQ(saveChart(chart, svg, ImageFormat::Svg), QString());
  QString error;
  const SvgContents contents = readSvg(svg, error);
  ASSERT_TRUE(error.isEmpty()) << error.toStdString();
  EXPECT_GT(
      contents.elements.value(QStringLiteral("polyline")) + contents.elements.value(QStringLiteral("path")),
      0);
  EXPECT_GT(contents.elements.value(QStringLiteral("text")), 0);
  EXPECT_EQ(contents.elements.value(QStringLiteral("image")), 0);
  int linesSeen = 0;
  for (QAbstractSeries* series : chart->chart()->series()) {
    auto* line = qobject_cast<QLineSeries*>(series);
    if (!line || line->count() < 2) continue;
    ++linesSeen;
    EXPECT_GT(contents.strokesByColour.value(line->pen().color().name()), 0) << line->name().toStdString();
  }
  EXPECT_EQ(linesSeen, 3) << "the total and two ranks";

  // The heatmap is a chart too; a folder that does not exist is an error naming the file.
  const QString heatmapPng = dir.filePath(QStringLiteral("heatmap.png"));
  HeatmapView* heatmap = dashboard->findChild<HeatmapView*>();
  ASSERT_NE(heatmap, nullptr);
  ASSERT_EQ(saveChart(heatmap, heatmapPng, ImageFormat::Png), QString());
  EXPECT_GT(coloursIn(QImage(heatmapPng)), 2);
  const QString nowhere = dir.filePath(QStringLiteral("no/such/folder/chart.svg"));
  EXPECT_TRUE(saveChart(chart, nowhere, ImageFormat::Svg).contains(QStringLiteral("chart.svg")));
}

TEST_F(LiveRunTest, StragglerComparisonReportsImportAndScreenshots) {
  MainWindow window(options);
  window.resize(1440, 900);
  window.show();
  // Run 1: four ranks, rank 2 computes 50 ms more per step, timeline on. (On a busy machine a rank's forward
  // pass alone can vary by tens of ms from step to step: the detector judges windows of steps, not each one.)
  ASSERT_EQ(
      launchFromForm(window, QStringLiteral("straggler on rank 2"), 4, 60, QStringLiteral("2:50"), true),
      QStringLiteral("finished"));
  const int64_t stragglerRun = window.liveRun()->runId();
  const int liveFindings = window.findingsModel()->rowCount();
  const double rank2Backward = window.shownRun()->series.phaseMeans(2, 0, 60)[2];
  const double rank0Backward = window.shownRun()->series.phaseMeans(0, 0, 60)[2];
  // Run 2: the same job without the fault.
  ASSERT_EQ(launchFromForm(window, QStringLiteral("clean baseline"), 4, 60, {}, true),
            QStringLiteral("finished"));
  const int64_t cleanRun = window.liveRun()->runId();

  // Reopened from the store (offline), the findings view lists rank 2 as the straggler.
  ASSERT_TRUE(test::openAndWait(window, stragglerRun));
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

  // Selected, then shown on the Dashboard and in the Timeline: rank 2 highlighted, the timeline at the
  // evidence.
  window.showPage(MainWindow::Findings);
  QTableView* findingsView = window.findingsPage()->view();
  findingsView->selectionModel()->setCurrentIndex(
      findings->index(stragglerRow, 0), QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
  window.findingsPage()->showButton(FindingsPage::Evidence::Dashboard)->click();
  EXPECT_EQ(window.dashboardPage()->highlightedRank(), 2);
  window.showPage(MainWindow::Findings);
  window.findingsPage()->showButton(FindingsPage::Evidence::Timeline)->click();
  EXPECT_EQ(window.pages()->currentIndex(), MainWindow::Timeline);
  EXPECT_EQ(window.timelinePage()->view()->highlightedRank(), 2);
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
    dialog.setPaper(console::PaperSize::Letter);
    QString error = QStringLiteral("pending");
    QObject::connect(&dialog, &ReportDialog::finished, [&](const QString&, const QString& e) { error = e; });
    dialog.exportNow();
    ASSERT_TRUE(test::waitUntil([&] { return error != QLatin1String("pending"); }, 120000));
    EXPECT_TRUE(error.isEmpty()) << error.toStdString();
    EXPECT_GT(QFileInfo(path).size(), 1000) << name;
    EXPECT_TRUE(dialog.resultText().contains(QStringLiteral("Saved")));
    if (format == ReportDialog::Format::Pdf) {
      // On the paper chosen in the dialog (when poppler's pdfinfo is there to say).
      QProcess pdfinfo;
      pdfinfo.start(QStringLiteral("pdfinfo"), {path});
      if (pdfinfo.waitForFinished(30000) && pdfinfo.exitCode() == 0) {
        const QString info = QString::fromUtf8(pdfinfo.readAllStandardOutput());
        EXPECT_TRUE(info.contains(QStringLiteral("pts (letter)"))) << info.toStdString();
      }
    }
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
      json += QStringLiteral(
                  "{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": %1, \"args\": {\"name\": \"%2\"}},\n")
                  .arg(t)
                  .arg(QLatin1String(tensors[t]))
                  .toUtf8();
      for (int step = 0; step < 5; ++step) {
        const int base = step * 10000 + t * 1000;
        json +=
            QStringLiteral("{\"name\": \"NEGOTIATE_ALLREDUCE\", \"ph\": \"B\", \"ts\": %1, \"pid\": %2},\n")
                .arg(base)
                .arg(t)
                .toUtf8();
        for (int rank = 0; rank < 4; ++rank) {
          const int tick = base + 100 + rank * (rank == 3 ? 900 : 50);  // rank 3 is late
          json += QStringLiteral("{\"name\": \"%1\", \"ph\": \"X\", \"ts\": %2, \"dur\": 0, \"pid\": %3},\n")
                      .arg(rank)
                      .arg(tick)
                      .arg(t)
                      .toUtf8();
        }
        json +=
            QStringLiteral("{\"ph\": \"E\", \"ts\": %1, \"pid\": %2},\n").arg(base + 3000).arg(t).toUtf8();
        json += QStringLiteral("{\"name\": \"ALLREDUCE\", \"ph\": \"B\", \"ts\": %1, \"pid\": %2},\n")
                    .arg(base + 3000)
                    .arg(t)
                    .toUtf8();
        json += QStringLiteral("{\"name\": \"GLOO_ALLREDUCE\", \"ph\": \"B\", \"ts\": %1, \"pid\": %2},\n")
                    .arg(base + 3100)
                    .arg(t)
                    .toUtf8();
        json +=
            QStringLiteral("{\"ph\": \"E\", \"ts\": %1, \"pid\": %2},\n").arg(base + 5000).arg(t).toUtf8();
        json +=
            QStringLiteral("{\"ph\": \"E\", \"ts\": %1, \"pid\": %2},\n").arg(base + 5200).arg(t).toUtf8();
      }
    }
    json += "{\"name\": \"end\", \"ph\": \"i\", \"ts\": 60000, \"pid\": 0, \"s\": \"g\"}\n]\n";
    file.write(json);
  }

  // The Chinese interface, as `--lang zh_CN` installs it.
  ASSERT_EQ(installTranslation(*QCoreApplication::instance(), QStringLiteral("zh_CN")),
            QStringLiteral("zh_CN"));
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
