// SPDX-License-Identifier: GPL-3.0-or-later
// The launch form: inline validation with the job spec's messages, the equivalent command line, presets.
#include <gtest/gtest.h>

#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>

#include "gui/launch_page.h"
#include "tests/gui/gui_test_support.h"

namespace ringmaster::gui {
namespace {

template <typename W>
W* fieldOf(LaunchPage& page, const char* name) {
  auto* w = qobject_cast<W*>(page.field(QString::fromLatin1(name)));
  EXPECT_NE(w, nullptr) << name;
  return w;
}

class LaunchPageTest : public ::testing::Test {
 protected:
  void SetUp() override {
    test::guiApp();
    QSettings().remove(QStringLiteral("presets"));
  }
};

TEST_F(LaunchPageTest, DefaultsAreValidAndTheCommandLineIsShort) {
  LaunchPage page;
  EXPECT_TRUE(page.problems().isEmpty()) << page.problems().join('\n').toStdString();
  EXPECT_EQ(page.commandLine(), "ringmaster run -np 1");
  EXPECT_TRUE(page.findChild<QPushButton*>(QStringLiteral("launch"))->isEnabled());
}

TEST_F(LaunchPageTest, FillingTheFormUpdatesTheSpecAndTheCommand) {
  LaunchPage page;
  fieldOf<QSpinBox>(page, "world_size")->setValue(2);
  fieldOf<QComboBox>(page, "model")->setCurrentText("mlp");
  fieldOf<QComboBox>(page, "dataset")->setCurrentText("synthetic");
  fieldOf<QSpinBox>(page, "hyper.epochs")->setValue(0);
  fieldOf<QSpinBox>(page, "hyper.steps")->setValue(20);
  fieldOf<QLineEdit>(page, "faults.stragglers")->setText("1:50");
  const v1::JobSpec spec = page.spec();
  EXPECT_EQ(spec.world_size(), 2u);
  EXPECT_EQ(spec.model(), v1::MODEL_MLP);
  EXPECT_EQ(spec.hyper().steps(), 20u);
  ASSERT_EQ(spec.faults().stragglers_size(), 1);
  EXPECT_DOUBLE_EQ(spec.faults().stragglers(0).extra_ms(), 50);
  const QString command = page.findChild<QPlainTextEdit*>(QStringLiteral("commandLine"))->toPlainText();
  EXPECT_EQ(command, page.commandLine());
  EXPECT_TRUE(command.startsWith("ringmaster run -np 2 ")) << command.toStdString();
  for (const char* part : {"--model mlp", "--data synthetic", "--steps 20", "--inject-straggler 1:50@0"}) {
    EXPECT_TRUE(command.contains(QLatin1String(part))) << part << " in " << command.toStdString();
  }
  EXPECT_FALSE(command.contains(QLatin1String("--batch-size"))) << "defaults are left out";
}

TEST_F(LaunchPageTest, BadInputIsNamedAndBlocksTheLaunch) {
  LaunchPage page;
  QSignalSpy launched(&page, &LaunchPage::launchRequested);
  fieldOf<QSpinBox>(page, "world_size")->setValue(2);
  fieldOf<QLineEdit>(page, "faults.stragglers")->setText("5:50");
  fieldOf<QLineEdit>(page, "hosts")->setText("node-a:1");
  const QStringList problems = page.problems();
  ASSERT_EQ(problems.size(), 2) << problems.join('\n').toStdString();
  EXPECT_TRUE(problems.join('\n').contains("faults.stragglers[0].rank: rank 5 is outside 0..1"));
  EXPECT_TRUE(problems.join('\n').contains("hosts: offer 1 slots for world_size 2"));
  EXPECT_TRUE(page.findChild<QLabel*>(QStringLiteral("problems"))->text().contains("rank 5 is outside"));
  auto* launch = page.findChild<QPushButton*>(QStringLiteral("launch"));
  EXPECT_FALSE(launch->isEnabled());
  launch->click();
  EXPECT_EQ(launched.count(), 0);

  fieldOf<QLineEdit>(page, "faults.stragglers")->setText("1:fast");
  EXPECT_TRUE(page.problems().join('\n').startsWith("Fault injection:")) << page.problems().join('\n').toStdString();
}

TEST_F(LaunchPageTest, PresetsRoundTrip) {
  LaunchPage page;
  fieldOf<QSpinBox>(page, "world_size")->setValue(4);
  fieldOf<QComboBox>(page, "engine")->setCurrentText("horovod");
  fieldOf<QLineEdit>(page, "name")->setText("horovod four");
  page.savePreset("four ranks");
  EXPECT_EQ(page.presetNames(), QStringList{"four ranks"});

  LaunchPage other;
  EXPECT_EQ(other.spec().world_size(), 1u);
  ASSERT_TRUE(other.loadPreset("four ranks"));
  EXPECT_EQ(other.spec().world_size(), 4u);
  EXPECT_EQ(other.spec().engine(), v1::ENGINE_HOROVOD);
  EXPECT_EQ(other.spec().name(), "horovod four");
  EXPECT_FALSE(other.loadPreset("no such preset"));
}

}  // namespace
}  // namespace ringmaster::gui
