// SPDX-License-Identifier: GPL-3.0-or-later
// The Tune dialog against real runs, offscreen: the Launch form's job tuned with 4 short trials of 2 ranks
// through the embedded agent, every trial in the table, on the chart and in the history with the session's
// tag, and the recommendation the session makes; Stop stopping a session mid-way, and closing the window
// stopping it first, in the Chinese interface.
// The dialog is saved to PNG under the build folder (build/screenshots) in both languages.
#include "gui/dialogs/tune_dialog.h"

#include <gtest/gtest.h>

#include <QComboBox>
#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QPointer>
#include <QPushButton>
#include <QRegularExpression>
#include <QScatterSeries>
#include <QSpinBox>
#include <QTableWidget>
#include <algorithm>

#include "console/models/runs_model.h"
#include "console/tune/tune_search.h"
#include "gui/main_window.h"
#include "gui/pages/launch_page.h"
#include "gui/translations.h"
#include "tests/support/console_test.h"
#include "tests/support/gui_app.h"

namespace ringmaster::gui {
namespace {

constexpr int kSessionTimeoutMs = 600'000;

QString screenshot(const QString& name) {
  QDir().mkpath(QStringLiteral(RM_BUILD_DIR "/screenshots"));
  return QStringLiteral(RM_BUILD_DIR "/screenshots/") + name;
}

class TuneDialogTest : public test::ConsoleTest {
 protected:
  void SetUp() override {
    ConsoleTest::SetUp();
    ASSERT_TRUE(QFileInfo(options.workerPath).isExecutable()) << "build ringmaster-worker first";
  }

  // Fills the Launch form with a tiny job as a user would and presses "Tune…".
  TuneDialog* openTune(MainWindow& window, const QString& name) {
    LaunchPage* form = window.launchPage();
    auto set = [form](const char* field) { return form->field(QString::fromLatin1(field)); };
    qobject_cast<QLineEdit*>(set("name"))->setText(name);
    qobject_cast<QLineEdit*>(set("hosts"))->clear();
    qobject_cast<QSpinBox*>(set("world_size"))->setValue(2);
    qobject_cast<QComboBox*>(set("model"))->setCurrentText(QStringLiteral("mlp"));
    qobject_cast<QComboBox*>(set("dataset"))->setCurrentText(QStringLiteral("synthetic"));
    qobject_cast<QSpinBox*>(set("hyper.epochs"))->setValue(0);
    qobject_cast<QSpinBox*>(set("hyper.steps"))->setValue(12);
    EXPECT_TRUE(form->problems().isEmpty()) << form->problems().join('\n').toStdString();
    form->findChild<QPushButton*>(QStringLiteral("tune"))->click();
    TuneDialog* dialog = window.tuneDialog();
    if (dialog) dialog->trialsBox()->setValue(4);
    return dialog;
  }

  static bool waitForEnd(TuneDialog* dialog) {
    bool ended = false;
    auto c = QObject::connect(dialog, &TuneDialog::sessionEnded, [&] { ended = true; });
    const bool ok = test::waitUntil([&] { return ended; }, kSessionTimeoutMs);
    QObject::disconnect(c);
    return ok;
  }
};

TEST_F(TuneDialogTest, FourTrialsFillTheTableTheChartAndTheHistoryAndEndWithTheBestSetting) {
  MainWindow window(options);
  window.show();
  TuneDialog* dialog = openTune(window, QStringLiteral("tiny"));
  ASSERT_NE(dialog, nullptr);
  EXPECT_EQ(dialog->targetBox()->currentData().toInt(), static_cast<int>(console::TuneTarget::BucketCap))
      << "the ddp engine's setting by default";
  int trialSignals = 0;
  QObject::connect(dialog, &TuneDialog::trialEnded, [&] { ++trialSignals; });
  dialog->startButton()->click();
  EXPECT_TRUE(dialog->running());
  EXPECT_FALSE(dialog->startButton()->isEnabled());
  ASSERT_TRUE(waitForEnd(dialog)) << "the session did not end";
  EXPECT_FALSE(dialog->running());
  EXPECT_TRUE(dialog->statusLabel()->styleSheet().isEmpty()) << dialog->statusLabel()->text().toStdString();

  // Four trials, each a row and a point as it ended.
  const auto& trials = dialog->trials();
  ASSERT_EQ(trials.size(), 4u);
  EXPECT_EQ(trialSignals, 4);
  EXPECT_EQ(dialog->table()->rowCount(), 4);
  ASSERT_EQ(dialog->points()->count(), 4);
  for (int i = 0; i < 4; ++i) {
    const auto& t = trials[static_cast<size_t>(i)];
    ASSERT_TRUE(t.measured()) << "trial " << i + 1 << ": " << t.status << " " << toText(t.failure);
    EXPECT_EQ(dialog->points()->at(i), QPointF(i + 1, t.metrics.throughput));
    EXPECT_EQ(dialog->table()->item(i, 6)->text().toLongLong(), t.runId);
    EXPECT_EQ(t.isDefault, i == 0) << "the default runs first";
    if (i > 0) {
      ASSERT_TRUE(t.againstDefault && t.againstDefault->interval) << "trial " << i + 1;
      EXPECT_TRUE(dialog->table()->item(i, 5)->text().contains(QLatin1Char('['))) << "its 95 % interval";
    }
  }

  // The recommendation is the session's, made from the trial with the best throughput, with its interval.
  const QString shown = dialog->recommendationLabel()->text();
  EXPECT_EQ(shown.toStdString(), console::recommendation(trials));
  const auto best = std::max_element(trials.begin(), trials.end(), [](const auto& a, const auto& b) {
    return a.metrics.throughput < b.metrics.throughput;
  });
  if (best->isDefault) {
    EXPECT_TRUE(shown.startsWith(QStringLiteral("the default is as good as any trial")))
        << shown.toStdString();
  } else {
    EXPECT_TRUE(shown.contains(QString::fromStdString(best->setting.flags()))) << shown.toStdString();
  }
  EXPECT_TRUE(shown.contains(
      QRegularExpression(QStringLiteral("[+-]\\d+\\.\\d % \\[[+-]\\d+\\.\\d, [+-]\\d+\\.\\d\\]"))))
      << shown.toStdString();
  const auto recommended = console::recommendedSetting(trials);
  EXPECT_EQ(dialog->recommendedSetting(), recommended);
  EXPECT_EQ(dialog->useButton()->isEnabled(), recommended.has_value());
  if (recommended) {
    EXPECT_EQ(recommended->values, best->setting.values);
    dialog->useButton()->click();
    EXPECT_EQ(console::currentSetting(recommended->target, window.launchPage()->spec()), *recommended);
  }

  // Every trial is a run in the history, tagged with the session.
  bool refreshed = false;
  QObject::connect(&window, &MainWindow::runsRefreshed, [&] { refreshed = true; });
  window.refreshRuns();
  ASSERT_TRUE(test::waitUntil([&] { return refreshed; }, 20000));
  for (const auto& t : trials) {
    const int row = window.runsModel()->rowOf(t.runId);
    ASSERT_GE(row, 0) << "run " << t.runId;
    const auto& tags = window.runsModel()->run(row)->tags;
    EXPECT_NE(std::find(tags.begin(), tags.end(), "tune:tiny"), tags.end()) << "run " << t.runId;
    EXPECT_EQ(window.runsModel()->run(row)->status, "finished");
  }
  dialog->grab().save(screenshot(QStringLiteral("tune.png")));
}

TEST_F(TuneDialogTest, StopEndsARunningSessionInTheChineseInterface) {
  ASSERT_EQ(installTranslation(*QCoreApplication::instance(), QStringLiteral("zh_CN")),
            QStringLiteral("zh_CN"));
  MainWindow window(options);
  window.show();
  TuneDialog* dialog = openTune(window, QStringLiteral("stopped"));
  ASSERT_NE(dialog, nullptr);
  EXPECT_EQ(dialog->startButton()->text(), QStringLiteral("开始"));
  int ended = 0;
  QObject::connect(dialog, &TuneDialog::trialEnded, [&] { ++ended; });
  dialog->startButton()->click();
  ASSERT_TRUE(test::waitUntil([&] { return ended >= 1; }, kSessionTimeoutMs));
  EXPECT_TRUE(dialog->running());
  ASSERT_TRUE(dialog->stopButton()->isEnabled());
  dialog->stopButton()->click();
  EXPECT_FALSE(dialog->stopButton()->isEnabled());
  ASSERT_TRUE(waitForEnd(dialog));
  EXPECT_FALSE(dialog->running());
  EXPECT_LT(dialog->trials().size(), 4u) << "no trial starts after Stop";
  EXPECT_EQ(dialog->table()->rowCount(), static_cast<int>(dialog->trials().size()));
  // Each trial's run status in the table is the Chinese word the Runs page uses.
  const int statusColumn = dialog->table()->columnCount() - 1;
  EXPECT_EQ(dialog->table()->horizontalHeaderItem(statusColumn)->text(), TuneDialog::tr("Status"));
  for (int row = 0; row < dialog->table()->rowCount(); ++row) {
    const std::string& status = dialog->trials()[static_cast<size_t>(row)].status;
    const QString shown = dialog->table()->item(row, statusColumn)->text();
    EXPECT_EQ(shown, console::RunsModel::statusText(QString::fromStdString(status))) << status;
    EXPECT_NE(shown, QString::fromStdString(status)) << "row " << row << " shows the English word";
  }
  EXPECT_EQ(dialog->table()->item(0, statusColumn)->text(), QStringLiteral("已完成"));
  EXPECT_TRUE(dialog->startButton()->isEnabled());
  EXPECT_TRUE(dialog->recommendationLabel()->text().contains(QStringLiteral("默认配置")))
      << "the session's recommendation in Chinese: " << dialog->recommendationLabel()->text().toStdString();
  dialog->grab().save(screenshot(QStringLiteral("tune_zh_CN.png")));

  // Closing a running session's window stops it first, then closes.
  QPointer<TuneDialog> guard(dialog);
  const int before = ended;
  dialog->startButton()->click();
  ASSERT_TRUE(test::waitUntil([&] { return ended > before; }, kSessionTimeoutMs));
  ASSERT_TRUE(dialog->running());
  EXPECT_FALSE(dialog->close()) << "not while its trial runs";
  EXPECT_TRUE(dialog->isVisible());
  EXPECT_FALSE(dialog->stopButton()->isEnabled()) << "it is stopping";
  EXPECT_TRUE(test::waitUntil([&] { return !guard || !guard->isVisible(); }, kSessionTimeoutMs));
  installTranslation(*QCoreApplication::instance(), QStringLiteral("en"));
}

}  // namespace
}  // namespace ringmaster::gui
