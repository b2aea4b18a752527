// SPDX-License-Identifier: GPL-3.0-or-later
// The window's menu bar and its languages, offscreen, against real runs through the embedded agent: File
// imports, exports the shown run's report and quits with the usual keys; Language keeps a choice for the next
// start; Help says what Ringmaster is; in Chinese even Qt's own buttons speak Chinese; the report's file
// dialog starts where the last report went, offering the chosen format's files.
#include <gtest/gtest.h>

#include <QFileDialog>
#include <QMenuBar>
#include <QPushButton>
#include <QSettings>
#include <QTabWidget>
#include <QTimer>
#include <QTranslator>
#include <memory>

#include "console/session/store_access.h"
#include "gui/dialogs/report_dialog.h"
#include "gui/main_window.h"
#include "gui/pages/timeline_page.h"
#include "gui/translations.h"
#include "gui/views/timeline_view.h"
#include "ringmaster/version.h"
#include "tests/support/agent_test_support.h"
#include "tests/support/console_test.h"

namespace ringmaster::gui {
namespace {

constexpr int kRunTimeoutMs = 240'000;

class WindowMenusTest : public test::ConsoleWindowTest {
 protected:
  void TearDown() override {
    ConsoleWindowTest::TearDown();
    englishAgain();
  }

  // English again for what follows in this process.
  static void englishAgain() {
    for (QTranslator* translator : QCoreApplication::instance()->findChildren<QTranslator*>()) {
      QCoreApplication::removeTranslator(translator);
      delete translator;
    }
  }

  // The menu bar's action whose text, without its mnemonic, is `text`.
  static QAction* action(MainWindow& window, const QString& text) {
    for (QAction* a : window.menuBar()->findChildren<QAction*>()) {
      if (QString(a->text()).remove(QLatin1Char('&')) == text) return a;
    }
    return nullptr;
  }
};

TEST_F(WindowMenusTest, FileImportsExportsTheShownRunsReportAndQuitsWithTheUsualKeys) {
  MainWindow& window = openWindow();
  QStringList menus;
  for (QAction* menu : window.menuBar()->actions()) menus << QString(menu->text()).remove(QLatin1Char('&'));
  EXPECT_EQ(menus, QStringList({"File", "View", "Language", "Help"}));
  QAction* importTraces = action(window, QStringLiteral("Import traces…"));
  QAction* exportReport = action(window, QStringLiteral("Export report…"));
  QAction* quit = action(window, QStringLiteral("Quit"));
  ASSERT_TRUE(importTraces && exportReport && quit);
  EXPECT_EQ(importTraces->shortcut(), QKeySequence(QStringLiteral("Ctrl+O")));
  EXPECT_EQ(exportReport->shortcut(), QKeySequence(QStringLiteral("Ctrl+E")));
  EXPECT_EQ(quit->shortcut(), QKeySequence(QStringLiteral("Ctrl+Q")));
  EXPECT_FALSE(exportReport->isEnabled()) << "no run is shown yet";
  ASSERT_TRUE(action(window, QStringLiteral("Dashboard")));
  action(window, QStringLiteral("Runs"))->trigger();
  EXPECT_EQ(window.findChild<QTabWidget*>()->currentIndex(), MainWindow::Runs);

  window.launch(test::smallJob(2, 20));
  ASSERT_TRUE(test::waitUntil([&] { return !status.isEmpty(); }, kRunTimeoutMs));
  ASSERT_EQ(status, QStringLiteral("finished")) << window.bannerText().toStdString();
  EXPECT_TRUE(exportReport->isEnabled());
  exportReport->trigger();
  auto* dialog = window.findChild<ReportDialog*>();
  ASSERT_NE(dialog, nullptr);
  EXPECT_TRUE(dialog->windowTitle().endsWith(QString::number(window.liveRun()->runId())))
      << dialog->windowTitle().toStdString();
  dialog->close();

  // No run in progress: Quit closes the window without asking.
  quit->trigger();
  EXPECT_FALSE(window.isVisible());
}

// In Chinese, Qt's own words are Chinese too: quitting during a live run asks with 是 and 否; 否 keeps the
// run.
TEST_F(WindowMenusTest, InChineseQtsOwnButtonsSpeakChineseAndQuittingALiveRunAsksFirst) {
  ASSERT_EQ(installTranslation(*QCoreApplication::instance(), QStringLiteral("zh_CN")),
            QStringLiteral("zh_CN"));
  EXPECT_EQ(languageInUse(), QStringLiteral("zh_CN"));
  MainWindow& window = openWindow();
  QStringList menus;
  for (QAction* menu : window.menuBar()->actions()) menus << menu->text();
  EXPECT_FALSE(menus.contains(QStringLiteral("&File"))) << menus.join(' ').toStdString();

  window.launch(test::smallJob(2, 100'000));
  ASSERT_TRUE(test::waitUntil(
      [&] { return (window.shownRun() && window.shownRun()->series.endStep() >= 3) || !status.isEmpty(); },
      kRunTimeoutMs));
  ASSERT_TRUE(status.isEmpty());
  QStringList buttons;
  QString asked;
  test::answerNextQuestion(QStringLiteral("否(&N)"), &asked, &buttons);
  window.close();
  EXPECT_FALSE(asked.isEmpty()) << "closing during a run asks first";
  EXPECT_TRUE(buttons.contains(QStringLiteral("是(&Y)"))) << buttons.join(' ').toStdString();
  EXPECT_TRUE(buttons.contains(QStringLiteral("否(&N)"))) << buttons.join(' ').toStdString();
  EXPECT_TRUE(window.isVisible());
  EXPECT_TRUE(status.isEmpty()) << "the run goes on after 否";

  test::answerNextQuestion(QStringLiteral("是(&Y)"), &asked);
  window.close();
  EXPECT_FALSE(window.isVisible());
}

TEST_F(WindowMenusTest, TheLanguageMenuKeepsTheChoiceForTheNextStart) {
  MainWindow& window = openWindow();
  QAction* english = action(window, QStringLiteral("English"));
  QAction* chinese = action(window, languageName(QStringLiteral("zh_CN")));
  ASSERT_TRUE(english && chinese);
  EXPECT_EQ(chinese->text(), QStringLiteral("简体中文"));
  EXPECT_TRUE(english->isChecked());
  EXPECT_FALSE(chinese->isChecked());
  chinese->trigger();
  EXPECT_EQ(QSettings().value(QStringLiteral("language")).toString(), QStringLiteral("zh_CN"));
  EXPECT_TRUE(chinese->isChecked());
  EXPECT_TRUE(window.bannerText().contains(QStringLiteral("简体中文"))) << window.bannerText().toStdString();
  // The next start speaks it, as ringmaster-gui does with no --lang.
  EXPECT_EQ(installTranslation(*QCoreApplication::instance(), {}), QStringLiteral("zh_CN"));
  englishAgain();
  QSettings().remove(QStringLiteral("language"));

  QAction* about = action(window, QStringLiteral("About Ringmaster"));
  ASSERT_TRUE(about);
  QString said;
  test::answerNextQuestion(QStringLiteral("OK"), &said);
  about->trigger();
  EXPECT_TRUE(said.contains(QStringLiteral(RINGMASTER_VERSION))) << said.toStdString();
  EXPECT_TRUE(said.contains(QStringLiteral("GNU General Public License"))) << said.toStdString();
}

// Per-rank profiler traces number their steps (ProfilerStep#1, #2, …): the Timeline's legend names them once.
TEST_F(WindowMenusTest, ImportedProfilerStepsAreOneLegendEntry) {
  MainWindow& window = openWindow();
  int64_t shown = -1;
  QObject::connect(&window, &MainWindow::runShown, [&](int64_t id) { shown = id; });
  window.importTraces({QStringLiteral(RM_SOURCE_DIR "/tests/fixtures/pytorch_sleeping_rank")});
  ASSERT_TRUE(test::waitUntil([&] { return shown > 0; }, 60'000)) << window.bannerText().toStdString();
  window.showPage(MainWindow::Timeline);
  TimelineView* view = window.timelinePage()->view();
  ASSERT_TRUE(test::waitUntil([&] { return !view->rows().empty(); }, 30'000));
  view->zoomToFit();
  (void)view->grab();
  const QStringList legend = view->legendEntries();
  EXPECT_EQ(legend.filter(QStringLiteral("ProfilerStep")), QStringList{QStringLiteral("ProfilerStep#N")})
      << legend.join(" | ").toStdString();
}

// The file dialog starts in the folder the last report went to, offering the chosen format's files; an export
// of a real run remembers its folder.
TEST_F(WindowMenusTest, TheReportsFileDialogStartsWhereTheLastReportWentWithItsFormatsFilter) {
  MainWindow& window = openWindow();
  window.launch(test::smallJob(2, 10));
  ASSERT_TRUE(test::waitUntil([&] { return !status.isEmpty(); }, kRunTimeoutMs));
  ASSERT_EQ(status, QStringLiteral("finished")) << window.bannerText().toStdString();
  const int64_t runId = window.liveRun()->runId();

  const QString earlier = dir.filePath(QStringLiteral("reports"));
  ASSERT_TRUE(QDir().mkpath(earlier));
  QSettings().setValue(QStringLiteral("report/folder"), earlier);
  ReportDialog dialog(window.store(), runId, &window);
  dialog.show();
  EXPECT_EQ(QFileInfo(dialog.path()).absolutePath(), earlier) << dialog.path().toStdString();
  dialog.setFormat(ReportDialog::Format::Pdf);
  EXPECT_TRUE(dialog.path().endsWith(QStringLiteral(".pdf"))) << dialog.path().toStdString();

  QString filter, folder;
  QTimer::singleShot(200, [&] {
    auto* files = qobject_cast<QFileDialog*>(QApplication::activeModalWidget());
    if (!files) return;
    filter = files->selectedNameFilter();
    folder = files->directory().absolutePath();
    files->reject();
  });
  dialog.findChild<QPushButton*>(QStringLiteral("browse"))->click();
  EXPECT_EQ(filter, QStringLiteral("PDF documents (*.pdf)"));
  EXPECT_EQ(folder, earlier);

  const QString elsewhere = dir.filePath(QStringLiteral("elsewhere"));
  ASSERT_TRUE(QDir().mkpath(elsewhere));
  dialog.setFormat(ReportDialog::Format::Html);
  dialog.setPath(QDir(elsewhere).filePath(QStringLiteral("run.html")));
  QString error = QStringLiteral("not finished");
  QObject::connect(&dialog, &ReportDialog::finished, [&](const QString&, const QString& e) { error = e; });
  dialog.exportNow();
  ASSERT_TRUE(test::waitUntil([&] { return error != QStringLiteral("not finished"); }, 60'000));
  EXPECT_TRUE(error.isEmpty()) << error.toStdString();
  EXPECT_EQ(QSettings().value(QStringLiteral("report/folder")).toString(), elsewhere);
}

}  // namespace
}  // namespace ringmaster::gui
