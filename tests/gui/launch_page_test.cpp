// SPDX-License-Identifier: GPL-3.0-or-later
// The launch form: inline validation with the job spec's messages, the equivalent command line, presets.
#include "gui/launch_page.h"

#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>
#include <wordexp.h>

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTemporaryDir>

#include "common/host_list.h"
#include "console/run_flags.h"
#include "tests/support/gui_app.h"

namespace ringmaster::gui {
namespace {

template <typename W>
W* fieldOf(LaunchPage& page, const char* name) {
  auto* w = qobject_cast<W*>(page.field(QString::fromLatin1(name)));
  EXPECT_NE(w, nullptr) << name;
  return w;
}

// A command line split into words as a POSIX shell splits it (quotes removed, nothing expanded or run).
std::vector<std::string> shellWords(const QString& line) {
  std::vector<std::string> words;
  wordexp_t split;
  const int rc = wordexp(line.toUtf8().constData(), &split, WRDE_NOCMD | WRDE_UNDEF);
  EXPECT_EQ(rc, 0) << "not one command for a shell: " << line.toStdString();
  if (rc != 0) return words;
  for (size_t i = 0; i < split.we_wordc; ++i) words.emplace_back(split.we_wordv[i]);
  wordfree(&split);
  return words;
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

TEST_F(LaunchPageTest, TheCommandLineParsesBackToTheFormsSpec) {
  LaunchPage page;
  // `ringmaster run` checks that the token and CA files exist.
  QTemporaryDir folder;
  ASSERT_TRUE(folder.isValid());
  const QString token = folder.filePath(QStringLiteral("agents' token"));
  const QString ca = folder.filePath(QStringLiteral("ca.pem"));
  for (const QString& path : {token, ca}) {
    QFile file(path);
    ASSERT_TRUE(file.open(QIODevice::WriteOnly)) << path.toStdString();
    file.write("secret\n");
  }
  page.setConnectedHosts(
      {{QStringLiteral("node-a"), 2, 6000, token, ca}, {QStringLiteral("node-b"), 2, 6000, token, ca}});
  page.useConnectedHosts();
  fieldOf<QLineEdit>(page, "name")->setText("resnet18 'horovod' baseline $HOME");
  fieldOf<QSpinBox>(page, "world_size")->setValue(4);
  fieldOf<QComboBox>(page, "engine")->setCurrentText("horovod");
  fieldOf<QComboBox>(page, "model")->setCurrentText("resnet18");
  fieldOf<QComboBox>(page, "dataset")->setCurrentText("cifar10");
  fieldOf<QLineEdit>(page, "data_dir")->setText("/srv/data sets/cifar10");
  fieldOf<QComboBox>(page, "hyper.optimizer")->setCurrentText("adam");
  fieldOf<QDoubleSpinBox>(page, "hyper.lr")->setValue(0.05);
  fieldOf<QDoubleSpinBox>(page, "hyper.fusion_threshold_mb")->setValue(32.5);
  fieldOf<QSpinBox>(page, "hyper.epochs")->setValue(0);
  fieldOf<QSpinBox>(page, "hyper.steps")->setValue(40);
  fieldOf<QCheckBox>(page, "timeline")->setChecked(true);
  fieldOf<QLineEdit>(page, "faults.stragglers")->setText("1:50@5 3:12.5");
  fieldOf<QLineEdit>(page, "faults.leaks")->setText("2:1.5");
  ASSERT_TRUE(page.problems().isEmpty()) << page.problems().join('\n').toStdString();

  const QString line = page.commandLine();
  const std::vector<std::string> words = shellWords(line);
  ASSERT_GT(words.size(), 2u) << line.toStdString();
  EXPECT_EQ(words[0], "ringmaster");
  EXPECT_EQ(words[1], "run");
  const console::RunFlags flags = console::parseRunFlags({words.begin() + 2, words.end()});

  v1::JobSpec expected = page.spec();
  EXPECT_EQ(flags.spec.name(), "resnet18 'horovod' baseline $HOME") << line.toStdString();
  EXPECT_TRUE(flags.spec.timeline()) << "record from the start: " << line.toStdString();
  EXPECT_EQ(flags.ranks, 4);
  EXPECT_EQ(flags.hostList, "node-a:2,node-b:2");
  const std::vector<HostSlots> hosts = parseHostList(flags.hostList);
  ASSERT_EQ(static_cast<int>(hosts.size()), expected.hosts_size());
  for (size_t i = 0; i < hosts.size(); ++i) {
    EXPECT_EQ(hosts[i].host, expected.hosts(static_cast<int>(i)).host());
    EXPECT_EQ(hosts[i].slots, static_cast<int>(expected.hosts(static_cast<int>(i)).slots()));
  }
  EXPECT_EQ(flags.agentPort, 6000);
  EXPECT_EQ(flags.tokenFile, token.toStdString());
  EXPECT_EQ(flags.tlsCa, ca.toStdString());

  expected.clear_hosts();  // `ringmaster run` carries them in -H
  std::string differences;
  google::protobuf::util::MessageDifferencer differ;
  differ.ReportDifferencesToString(&differences);
  EXPECT_TRUE(differ.Compare(flags.spec, expected)) << differences << "\nfrom: " << line.toStdString();
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
