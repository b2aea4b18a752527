// SPDX-License-Identifier: GPL-3.0-or-later
// The user's own program from the Launch page, offscreen: a real PyTorch DDP script (Debian's python3 and
// torch, gloo) chosen under "Your program", launched through the embedded agent, instrumented by the
// ringmaster Python package and shown on the dashboard rank by rank. The form is also rendered, in English
// and in Chinese, under the build folder (build/screenshots) for people to look at.
#include <gtest/gtest.h>

#include <QCheckBox>
#include <QDir>
#include <QGroupBox>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QSpinBox>
#include <QTranslator>

#include "gui/main_window.h"
#include "gui/pages/dashboard_page.h"
#include "gui/pages/launch_page.h"
#include "gui/views/series_chart.h"
#include "history/run_store.h"
#include "tests/support/console_test.h"

namespace ringmaster::gui {
namespace {

constexpr int kRunTimeoutMs = 300'000;
const QString kPython =
    QStringLiteral("/usr/bin/python3");  // Debian's, the one python3-torch is installed for

QString program() {
  return QStringLiteral(RM_TEST_PROGRAMS "/fashion_ddp.py");
}

// Chooses "Your program" on the form and fills it: the script in double quotes, as a path with spaces would
// be.
void fillProgram(LaunchPage& form, const QString& name, int ranks, int steps) {
  auto field = [&form](const char* name) { return form.field(QString::fromLatin1(name)); };
  qobject_cast<QRadioButton*>(field("program"))->setChecked(true);
  qobject_cast<QLineEdit*>(field("name"))->setText(name);
  qobject_cast<QLineEdit*>(field("hosts"))->clear();
  qobject_cast<QSpinBox*>(field("world_size"))->setValue(ranks);
  qobject_cast<QLineEdit*>(field("program.argv"))->setText(kPython);
  qobject_cast<QLineEdit*>(field("program.arguments"))
      ->setText(QStringLiteral("\"%1\" --steps %2").arg(program()).arg(steps));
}

using LiveProgramTest = test::ConsoleTest;

TEST_F(LiveProgramTest, APythonDdpScriptLaunchedFromTheFormFeedsTheDashboard) {
  MainWindow window(options);
  window.resize(1440, 900);
  window.show();
  LaunchPage* form = window.launchPage();
  fillProgram(*form, QStringLiteral("fashion script"), 2, 20);
  ASSERT_TRUE(form->problems().isEmpty()) << form->problems().join('\n').toStdString();
  QString status;
  QObject::connect(&window, &MainWindow::liveRunEnded, [&](const QString& s) { status = s; });
  form->findChild<QPushButton*>(QStringLiteral("launch"))->click();
  // Steps of one rank on the shown run's dashboard.
  auto steps = [&window](int rank) -> int64_t {
    const console::RunData* run = window.shownRun();
    return run && run->series.rankCount() > rank
               ? run->series.rank(rank, console::RankMetric::Throughput).count()
               : 0;
  };

  // Steps of both ranks reach the dashboard, and the run ends as the script does.
  ASSERT_TRUE(test::waitUntil([&] { return steps(0) > 0 && steps(1) > 0; }, kRunTimeoutMs))
      << "no steps from both ranks: " << window.bannerText().toStdString();
  EXPECT_EQ(window.pages()->currentWidget(), window.dashboardPage());
  ASSERT_TRUE(test::waitUntil([&] { return !status.isEmpty(); }, kRunTimeoutMs)) << "the run did not end";
  ASSERT_EQ(status, QStringLiteral("finished")) << window.bannerText().toStdString();
  EXPECT_EQ(steps(0), 20);
  EXPECT_EQ(steps(1), 20);
  // The script was told --steps 20: the dashboard counts towards it.
  EXPECT_EQ(window.dashboardPage()->progressText(), QStringLiteral("Step 20 of 20"));
  // The dashboard says how the run ended, and offers no Stop for it.
  const QString title = window.dashboardPage()->findChild<QLabel*>(QStringLiteral("runTitle"))->text();
  EXPECT_TRUE(title.endsWith(QStringLiteral("· fashion script · finished"))) << title.toStdString();
  EXPECT_FALSE(window.dashboardPage()->findChild<QPushButton*>(QStringLiteral("stopRun"))->isEnabled());
  // Every rank's line has points on the charts (the throughput chart's first line is the total).
  DashboardPage* dashboard = window.dashboardPage();
  dashboard->redraw();
  for (SeriesChart* chart :
       {dashboard->throughputChart(), dashboard->memoryChart(), dashboard->latencyChart()}) {
    const int first = chart == dashboard->throughputChart() ? 1 : 0;
    ASSERT_EQ(chart->lineCount(), first + 2);
    for (int rank = 0; rank < 2; ++rank) EXPECT_GT(chart->pointCount(first + rank), 0) << "rank " << rank;
  }

  // Stored under its name with the program as the form gave it.
  RunStore store(options.storePath.toStdString());
  const auto runs = store.runs();
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].status, "finished");
  EXPECT_EQ(runs[0].name, "fashion script");
  EXPECT_EQ(runs[0].worldSize, 2);
  const auto& argv = runs[0].spec.program().argv();
  EXPECT_EQ(std::vector<std::string>(argv.begin(), argv.end()),
            (std::vector<std::string>{kPython.toStdString(), program().toStdString(), "--steps", "20"}));
  EXPECT_FALSE(runs[0].spec.program().uninstrumented());
  QDir().mkpath(QStringLiteral(RM_BUILD_DIR "/screenshots"));
  window.grab().save(QStringLiteral(RM_BUILD_DIR "/screenshots/program-run.png"));
}

// The program's form as a person sees it, in English and in Chinese: rendered to PNG, and in Chinese every
// label of the new group comes from the catalogue.
TEST_F(LiveProgramTest, TheProgramFormRendersInEnglishAndChinese) {
  QDir().mkpath(QStringLiteral(RM_BUILD_DIR "/screenshots"));
  QStringList titles;
  for (const QString& language : {QStringLiteral("en"), QStringLiteral("zh_CN")}) {
    QTranslator translator;
    if (language != QLatin1String("en")) {
      ASSERT_TRUE(translator.load(QStringLiteral(":/i18n/ringmaster_%1.qm").arg(language)));
      ASSERT_TRUE(QCoreApplication::installTranslator(&translator));
    }
    {
      LaunchPage page;
      page.resize(1100, 720);
      fillProgram(page, QStringLiteral("fashion script"), 2, 20);
      page.show();
      QCoreApplication::processEvents();
      auto* group = page.findChild<QGroupBox*>(QStringLiteral("programGroup"));
      ASSERT_NE(group, nullptr);
      titles << group->title() + QLatin1Char('|') +
                    qobject_cast<QCheckBox*>(page.field(QStringLiteral("program.instrumented")))->text();
      const QImage image = page.grab().toImage();
      EXPECT_FALSE(image.isNull());
      image.save(QStringLiteral(RM_BUILD_DIR "/screenshots/launch-program-%1.png").arg(language));
    }
    QCoreApplication::removeTranslator(&translator);
  }
  ASSERT_EQ(titles.size(), 2);
  EXPECT_EQ(titles[0], QStringLiteral("Your program|Instrument with the ringmaster Python package"));
  EXPECT_NE(titles[1], titles[0]) << "the Chinese form is in Chinese";
}

}  // namespace
}  // namespace ringmaster::gui
