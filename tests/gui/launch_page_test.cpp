// SPDX-License-Identifier: GPL-3.0-or-later
// The launch form: inline validation with the job spec's messages, the equivalent command line, presets; and
// the user's own program in place of Ringmaster's training.
#include "gui/pages/launch_page.h"

#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>
#include <wordexp.h>

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFile>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QTemporaryDir>
#include <QWheelEvent>

#include "common/host_list.h"
#include "console/session/run_flags.h"
#include "tests/support/console_test.h"
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

// The same message, or the differences that say why not.
::testing::AssertionResult sameSpec(const google::protobuf::Message& actual,
                                    const google::protobuf::Message& expected) {
  std::string differences;
  google::protobuf::util::MessageDifferencer differ;
  differ.ReportDifferencesToString(&differences);
  if (differ.Compare(actual, expected)) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << differences;
}

// `ringmaster run`'s flags for the page's command line, as a shell hands them over.
console::RunFlags parsedCommandLine(const LaunchPage& page) {
  const QString line = page.commandLine();
  const std::vector<std::string> words = shellWords(line);
  EXPECT_GT(words.size(), 2u) << line.toStdString();
  if (words.size() < 2) return {};
  EXPECT_EQ(words[0], "ringmaster");
  EXPECT_EQ(words[1], "run");
  return console::parseRunFlags({words.begin() + 2, words.end()});
}

// Each test in its own sandbox: presets and remembered fields are saved in settings of its own, never the
// user's.
class LaunchPageTest : public test::ConsoleTest {};

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
  fieldOf<QSpinBox>(page, "stall_timeout_s")->setValue(120);
  fieldOf<QSpinBox>(page, "max_restarts")->setValue(3);
  fieldOf<QSpinBox>(page, "min_ranks")->setValue(2);
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
  EXPECT_EQ(flags.spec.stall_timeout_s(), 120) << line.toStdString();
  EXPECT_EQ(flags.spec.max_restarts(), 3u) << line.toStdString();
  EXPECT_EQ(flags.spec.min_ranks(), 2u) << line.toStdString();
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

TEST_F(LaunchPageTest, WithSlurmTheCommandLineAndTheSubmissionAreTheFormsFlags) {
  LaunchPage page;
  QSignalSpy launched(&page, &LaunchPage::launchRequested);
  QSignalSpy submitted(&page, &LaunchPage::slurmSubmitRequested);
  fieldOf<QLineEdit>(page, "hosts")->setText("node-a:4");
  fieldOf<QSpinBox>(page, "world_size")->setValue(8);
  fieldOf<QComboBox>(page, "engine")->setCurrentText("horovod");
  fieldOf<QSpinBox>(page, "hyper.epochs")->setValue(0);
  fieldOf<QSpinBox>(page, "hyper.steps")->setValue(40);
  EXPECT_TRUE(page.sbatchLine().isEmpty());
  EXPECT_FALSE(page.findChild<QLabel*>(QStringLiteral("sbatchLine"))->isVisibleTo(&page));
  fieldOf<QGroupBox>(page, "slurm")->setChecked(true);
  fieldOf<QSpinBox>(page, "slurm.nodes")->setValue(2);
  fieldOf<QLineEdit>(page, "slurm.partition")->setText("gpu");
  fieldOf<QLineEdit>(page, "slurm.time")->setText("01:00:00");
  fieldOf<QLineEdit>(page, "slurm.account")->setText("ml");
  fieldOf<QLineEdit>(page, "slurm.qos")->setText("high");
  fieldOf<QLineEdit>(page, "slurm.constraint")->setText("a100");
  fieldOf<QLineEdit>(page, "slurm.gres")->setText("gpu:4");
  fieldOf<QLineEdit>(page, "slurm.extra")->setText("--mem=8G \"--comment=two words\"");
  fieldOf<QLineEdit>(page, "slurm.folder")->setText("/shared/ring master");
  ASSERT_TRUE(page.problems().isEmpty()) << page.problems().join('\n').toStdString();
  // Slurm places the ranks: the hosts the field names do not go with the job.
  EXPECT_FALSE(fieldOf<QLineEdit>(page, "hosts")->isEnabled());
  EXPECT_EQ(page.spec().hosts_size(), 0);

  const console::RunFlags flags = parsedCommandLine(page);
  EXPECT_TRUE(flags.slurm.submit);
  EXPECT_EQ(flags.ranks, 8);
  EXPECT_TRUE(flags.hostList.empty());
  EXPECT_EQ(flags.slurm.nodes, 2);
  EXPECT_EQ(flags.slurm.partition, "gpu");
  EXPECT_EQ(flags.slurm.time, "01:00:00");
  EXPECT_EQ(flags.slurm.account, "ml");
  EXPECT_EQ(flags.slurm.qos, "high");
  EXPECT_EQ(flags.slurm.constraint, "a100");
  EXPECT_EQ(flags.slurm.gres, "gpu:4");
  EXPECT_EQ(flags.slurm.extra, (std::vector<std::string>{"--mem=8G", "--comment=two words"}));
  EXPECT_EQ(flags.slurm.folder, "/shared/ring master");
  // The same spec, an empty message field and an absent one alike.
  google::protobuf::util::MessageDifferencer equivalent;
  equivalent.set_message_field_comparison(google::protobuf::util::MessageDifferencer::EQUIVALENT);
  std::string differences;
  equivalent.ReportDifferencesToString(&differences);
  EXPECT_TRUE(equivalent.Compare(flags.spec, page.spec())) << differences;

  // The sbatch line it will run, shown under the command line.
  const QString sbatch = page.sbatchLine();
  EXPECT_EQ(
      sbatch.toStdString(),
      "sbatch --parsable --ntasks=8 --nodes=2 --partition=gpu --time=01:00:00 --account=ml --qos=high "
      "--constraint=a100 --gres=gpu:4 --no-requeue --mem=8G '--comment=two words' --job-name=ringmaster "
      "'--output=/shared/ring master/JOB_ID/slurm-%j.out' '/shared/ring master/JOB_ID/job.sh'");
  auto* shown = page.findChild<QLabel*>(QStringLiteral("sbatchLine"));
  EXPECT_TRUE(shown->isVisibleTo(&page));
  EXPECT_TRUE(shown->text().contains(sbatch)) << shown->text().toStdString();

  // Submit hands over what the command line says.
  auto* launch = page.findChild<QPushButton*>(QStringLiteral("launch"));
  ASSERT_TRUE(launch->isEnabled());
  launch->click();
  EXPECT_EQ(launched.count(), 0);
  ASSERT_EQ(submitted.count(), 1);
  const auto handed = submitted.front().front().value<console::RunFlags>();
  EXPECT_EQ(console::runArguments(handed), console::runArguments(flags));

  // More nodes than ranks is Slurm's own flags' problem, named on the form.
  fieldOf<QSpinBox>(page, "slurm.nodes")->setValue(9);
  EXPECT_TRUE(page.problems().join('\n').contains("-N 9 asks for more nodes than -np 8"))
      << page.problems().join('\n').toStdString();
  EXPECT_FALSE(launch->isEnabled());

  // Without Slurm the hosts are back.
  fieldOf<QGroupBox>(page, "slurm")->setChecked(false);
  EXPECT_TRUE(fieldOf<QLineEdit>(page, "hosts")->isEnabled());
  EXPECT_EQ(page.spec().hosts_size(), 1);
  EXPECT_FALSE(page.commandLine().contains("--slurm")) << page.commandLine().toStdString();
}

// A host's facts as an agent reports them: `gpus` GPUs, a worker built with gloo and nccl.
v1::HostInfo hostWith(int gpus) {
  v1::HostInfo info;
  info.add_backends(v1::BACKEND_GLOO);
  info.add_backends(v1::BACKEND_NCCL);
  for (int i = 0; i < gpus; ++i) info.add_gpus()->set_name("GPU");
  return info;
}

TEST_F(LaunchPageTest, NcclIsOfferedOnlyWhereTheChosenHostsHaveAGpu) {
  LaunchPage page;
  auto* backend = fieldOf<QComboBox>(page, "backend");
  auto* choices = qobject_cast<QStandardItemModel*>(backend->model());
  ASSERT_NE(choices, nullptr);
  const int nccl = backend->findText("nccl");
  ASSERT_GE(nccl, 0);
  // Nothing known of the hosts yet: offered.
  EXPECT_TRUE(choices->item(nccl)->isEnabled());

  v1::HostInfo noBackendNccl;
  noBackendNccl.add_backends(v1::BACKEND_GLOO);
  page.setKnownHosts({{QString(), hostWith(0)},
                      {"gpu-node", hostWith(2)},
                      {"cpu-node", hostWith(0)},
                      {"old-node", noBackendNccl}});
  // This machine has no GPU.
  EXPECT_FALSE(choices->item(nccl)->isEnabled());
  EXPECT_EQ(choices->item(nccl)->toolTip().toStdString(), "nccl cannot run on this machine: no GPU");
  EXPECT_TRUE(choices->item(backend->findText("gloo"))->isEnabled());
  // A preset may still choose it: the form says why it cannot launch.
  backend->setCurrentText("nccl");
  EXPECT_TRUE(page.problems().contains("Backend: nccl cannot run on this machine: no GPU"))
      << page.problems().join('\n').toStdString();
  EXPECT_FALSE(page.findChild<QPushButton*>(QStringLiteral("launch"))->isEnabled());

  // On the host with GPUs it can run.
  fieldOf<QLineEdit>(page, "hosts")->setText("gpu-node:2");
  EXPECT_TRUE(choices->item(nccl)->isEnabled());
  EXPECT_TRUE(page.problems().isEmpty()) << page.problems().join('\n').toStdString();
  // Every chosen host must have one; the tooltip names those that do not.
  fieldOf<QSpinBox>(page, "world_size")->setValue(3);
  fieldOf<QLineEdit>(page, "hosts")->setText("gpu-node:1,cpu-node:1,old-node:1");
  EXPECT_FALSE(choices->item(nccl)->isEnabled());
  EXPECT_EQ(choices->item(nccl)->toolTip().toStdString(),
            "nccl cannot run on cpu-node: no GPU; old-node: its worker was built without nccl");
  // A host nobody checked is not judged.
  fieldOf<QLineEdit>(page, "hosts")->setText("gpu-node:1,elsewhere:2");
  EXPECT_TRUE(choices->item(nccl)->isEnabled());
  // Slurm's nodes are not known before they are allocated.
  fieldOf<QLineEdit>(page, "hosts")->clear();
  EXPECT_FALSE(choices->item(nccl)->isEnabled());
  fieldOf<QGroupBox>(page, "slurm")->setChecked(true);
  EXPECT_TRUE(choices->item(nccl)->isEnabled());
}

TEST_F(LaunchPageTest, BadInputIsNamedAndBlocksTheLaunch) {
  LaunchPage page;
  QSignalSpy launched(&page, &LaunchPage::launchRequested);
  fieldOf<QSpinBox>(page, "world_size")->setValue(2);
  fieldOf<QLineEdit>(page, "faults.stragglers")->setText("5:50");
  fieldOf<QLineEdit>(page, "hosts")->setText("node-a:1");
  const QStringList problems = page.problems();
  ASSERT_EQ(problems.size(), 2) << problems.join('\n').toStdString();
  // Named by their labels on the form, not by the spec's field names.
  EXPECT_TRUE(problems.join('\n').contains("Straggler: rank 5 is outside 0..1"))
      << problems.join('\n').toStdString();
  EXPECT_TRUE(problems.join('\n').contains("Hosts: offer 1 slots for world_size 2"))
      << problems.join('\n').toStdString();
  EXPECT_FALSE(problems.join('\n').contains("faults.")) << problems.join('\n').toStdString();
  EXPECT_TRUE(page.findChild<QLabel*>(QStringLiteral("problems"))->text().contains("rank 5 is outside"));
  auto* launch = page.findChild<QPushButton*>(QStringLiteral("launch"));
  EXPECT_FALSE(launch->isEnabled());
  launch->click();
  EXPECT_EQ(launched.count(), 0);

  fieldOf<QLineEdit>(page, "faults.stragglers")->setText("1:fast");
  EXPECT_TRUE(page.problems().join('\n').startsWith("Fault injection:"))
      << page.problems().join('\n').toStdString();
}

// However tall the form, Launch and Tune stay in sight: they are below the scrolled part, not in it.
TEST_F(LaunchPageTest, LaunchAndTuneStayInSightWhenTheFormScrolls) {
  LaunchPage page;
  page.resize(1440, 500);
  page.show();
  QApplication::processEvents();
  auto* scroll = page.findChild<QScrollArea*>();
  ASSERT_NE(scroll, nullptr);
  ASSERT_GT(scroll->widget()->height(), scroll->viewport()->height())
      << "the form does not scroll at this size";
  for (const char* name : {"launch", "tune"}) {
    auto* button = page.findChild<QPushButton*>(QString::fromLatin1(name));
    ASSERT_NE(button, nullptr) << name;
    EXPECT_FALSE(scroll->widget()->isAncestorOf(button)) << name << " scrolls with the form";
    const QRect shown(button->mapTo(&page, QPoint(0, 0)), button->size());
    EXPECT_TRUE(page.rect().contains(shown)) << name;
    EXPECT_FALSE(button->visibleRegion().isEmpty()) << name;
  }
}

// The mouse wheel over a field the user has not focused scrolls the form: "Checkpoint every" stays "only at
// the end". Once focused, the field takes the wheel.
TEST_F(LaunchPageTest, TheWheelScrollsTheFormAndChangesOnlyAFocusedField) {
  LaunchPage page;
  page.resize(1024, 500);
  page.show();
  QApplication::setActiveWindow(&page);
  QApplication::processEvents();
  auto* scroll = page.findChild<QScrollArea*>();
  ASSERT_NE(scroll, nullptr);
  auto* every = fieldOf<QSpinBox>(page, "checkpoint_every");
  ASSERT_EQ(every->value(), 0);
  ASSERT_EQ(every->text(), QStringLiteral("only at the end"));
  scroll->ensureWidgetVisible(every);
  QApplication::processEvents();
  const int scrolledTo = scroll->verticalScrollBar()->value();
  auto wheel = [](QWidget* w, int delta) {
    const QPointF at(w->width() / 2.0, w->height() / 2.0);
    QWheelEvent event(at, w->mapToGlobal(at), QPoint(), QPoint(0, delta), Qt::NoButton, Qt::NoModifier,
                      Qt::NoScrollPhase, false);
    QApplication::sendEvent(w, &event);
    QApplication::processEvents();
  };
  // Scrolling down over the field, then up again: the form moves, the value does not.
  for (int i = 0; i < 3; ++i) wheel(every, -120);
  EXPECT_EQ(every->value(), 0);
  EXPECT_EQ(every->text(), QStringLiteral("only at the end"));
  EXPECT_NE(scroll->verticalScrollBar()->value(), scrolledTo) << "the form did not scroll";
  for (auto* combo : {fieldOf<QComboBox>(page, "model"), fieldOf<QComboBox>(page, "engine")}) {
    const QString before = combo->currentText();
    wheel(combo, -120);
    EXPECT_EQ(combo->currentText(), before) << combo->objectName().toStdString();
  }
  // Focused, it takes the wheel as a spin box does.
  scroll->ensureWidgetVisible(every);
  every->setFocus(Qt::MouseFocusReason);
  QApplication::processEvents();
  ASSERT_TRUE(every->hasFocus());
  wheel(every, 120);
  EXPECT_EQ(every->value(), 1);
}

// A problem that stops the launch is in sight beside the greyed button, however the form is scrolled, and the
// button's tooltip says it too.
TEST_F(LaunchPageTest, WhatStopsALaunchIsInSightBesideTheButton) {
  LaunchPage page;
  page.resize(1024, 500);
  page.show();
  QApplication::processEvents();
  auto* scroll = page.findChild<QScrollArea*>();
  fieldOf<QLineEdit>(page, "faults.stragglers")->setText("7:50");
  scroll->verticalScrollBar()->setValue(0);
  QApplication::processEvents();
  auto* launch = page.findChild<QPushButton*>(QStringLiteral("launch"));
  auto* problems = page.findChild<QLabel*>(QStringLiteral("problems"));
  ASSERT_FALSE(launch->isEnabled());
  EXPECT_FALSE(scroll->widget()->isAncestorOf(problems)) << "the problems scroll away with the form";
  EXPECT_TRUE(problems->isVisible());
  EXPECT_FALSE(problems->visibleRegion().isEmpty());
  EXPECT_TRUE(problems->text().contains(QStringLiteral("rank 7 is outside")))
      << problems->text().toStdString();
  EXPECT_TRUE(launch->toolTip().contains(QStringLiteral("rank 7 is outside")))
      << launch->toolTip().toStdString();
  fieldOf<QLineEdit>(page, "faults.stragglers")->clear();
  EXPECT_TRUE(launch->isEnabled());
  EXPECT_EQ(problems->text(), QStringLiteral("Ready to launch."));
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

TEST_F(LaunchPageTest, PresetsKeepTheSlurmOptions) {
  LaunchPage page;
  fieldOf<QSpinBox>(page, "world_size")->setValue(8);
  fieldOf<QGroupBox>(page, "slurm")->setChecked(true);
  fieldOf<QSpinBox>(page, "slurm.nodes")->setValue(2);
  fieldOf<QLineEdit>(page, "slurm.partition")->setText("gpu");
  fieldOf<QLineEdit>(page, "slurm.time")->setText("00:30:00");
  fieldOf<QLineEdit>(page, "slurm.extra")->setText("--mem=8G --exclusive");
  page.savePreset("on the cluster");
  const QString sbatch = page.sbatchLine(), command = page.commandLine();
  ASSERT_FALSE(sbatch.isEmpty());
  fieldOf<QGroupBox>(page, "slurm")->setChecked(false);
  page.savePreset("here");

  LaunchPage other;
  ASSERT_TRUE(other.loadPreset("on the cluster"));
  EXPECT_TRUE(other.submitsToSlurm());
  EXPECT_EQ(fieldOf<QSpinBox>(other, "slurm.nodes")->value(), 2);
  EXPECT_EQ(fieldOf<QLineEdit>(other, "slurm.partition")->text(), "gpu");
  EXPECT_EQ(other.sbatchLine(), sbatch);
  EXPECT_EQ(other.commandLine(), command);

  // A preset without Slurm turns it off again, and one saved before presets kept Slurm options loads too.
  ASSERT_TRUE(other.loadPreset("here"));
  EXPECT_FALSE(other.submitsToSlurm());
  EXPECT_TRUE(other.sbatchLine().isEmpty());
  QSettings().remove("presetSlurm/here");
  fieldOf<QGroupBox>(other, "slurm")->setChecked(true);
  ASSERT_TRUE(other.loadPreset("here"));
  EXPECT_FALSE(other.submitsToSlurm());
  EXPECT_EQ(other.spec().world_size(), 8u);
}

// Your program: an executable, its arguments split as QProcess::splitCommand splits them (double quotes keep
// spaces, three of them make a quote), a working folder made absolute, NAME=value lines, instrumentation off.
class ProgramFormTest : public LaunchPageTest {
 protected:
  void chooseProgram(LaunchPage& page) {
    ASSERT_FALSE(fieldOf<QRadioButton>(page, "program")->isChecked()) << "Ringmaster's training comes first";
    EXPECT_EQ(fieldOf<QLineEdit>(page, "program.argv")->text(), "/usr/bin/python3");
    EXPECT_TRUE(fieldOf<QCheckBox>(page, "program.instrumented")->isChecked());
    fieldOf<QRadioButton>(page, "program")->setChecked(true);
  }
};

TEST_F(ProgramFormTest, TheFormGivesTheProgramsSpec) {
  LaunchPage page;
  fieldOf<QLineEdit>(page, "faults.stragglers")->setText("1:50");  // for Ringmaster's training only
  chooseProgram(page);
  fieldOf<QLineEdit>(page, "name")->setText("my ddp script");
  fieldOf<QSpinBox>(page, "world_size")->setValue(2);
  fieldOf<QLineEdit>(page, "program.arguments")
      ->setText(R"(train.py  --epochs 3 --note "two words" --quote """x""" --empty-looking "")");
  fieldOf<QLineEdit>(page, "program.working_dir")->setText("runs/../runs/today");
  fieldOf<QPlainTextEdit>(page, "program.environment")
      ->setPlainText("OMP_NUM_THREADS=2\n\n  DATA=/srv/my data  \n");
  fieldOf<QCheckBox>(page, "program.instrumented")->setChecked(false);
  ASSERT_TRUE(page.problems().isEmpty()) << page.problems().join('\n').toStdString();

  const v1::JobSpec spec = page.spec();
  ASSERT_TRUE(isUserProgram(spec));
  const auto& program = spec.program();
  EXPECT_EQ(std::vector<std::string>(program.argv().begin(), program.argv().end()),
            (std::vector<std::string>{"/usr/bin/python3", "train.py", "--epochs", "3", "--note", "two words",
                                      "--quote", "\"x\"", "--empty-looking"}));
  EXPECT_EQ(program.working_dir(), QDir::current().absoluteFilePath("runs/today").toStdString());
  EXPECT_EQ(std::vector<std::string>(program.environment().begin(), program.environment().end()),
            (std::vector<std::string>{"OMP_NUM_THREADS=2", "DATA=/srv/my data"}));
  EXPECT_TRUE(program.uninstrumented());
  EXPECT_EQ(spec.name(), "my ddp script");
  EXPECT_EQ(spec.world_size(), 2u);
  EXPECT_EQ(spec.faults().stragglers_size(), 0)
      << "the training's fault injection does not go with a program";
  EXPECT_TRUE(sameSpec(spec.hyper(), defaultJobSpec().hyper())) << "the training fields do not apply";

  fieldOf<QCheckBox>(page, "program.instrumented")->setChecked(true);
  fieldOf<QLineEdit>(page, "program.working_dir")->clear();
  EXPECT_FALSE(page.spec().program().uninstrumented());
  EXPECT_EQ(page.spec().program().working_dir(), "") << "empty: the folder the ranks start in is the agent's";
}

// A Horovod script runs on Ringmaster's layer, which is part of the instrumentation: the box is there only
// while the program is instrumented, and its choice goes into the spec and the command line.
TEST_F(ProgramFormTest, TheHorovodBoxSetsTheLayerOnlyWhileInstrumented) {
  LaunchPage page;
  chooseProgram(page);
  auto* instrumented = fieldOf<QCheckBox>(page, "program.instrumented");
  auto* horovod = fieldOf<QCheckBox>(page, "program.horovod");
  EXPECT_FALSE(horovod->isChecked());
  EXPECT_TRUE(horovod->isEnabled());
  EXPECT_FALSE(horovod->toolTip().isEmpty());
  EXPECT_FALSE(page.spec().program().horovod());
  fieldOf<QSpinBox>(page, "world_size")->setValue(2);
  fieldOf<QLineEdit>(page, "program.arguments")->setText("train_hvd.py");
  horovod->setChecked(true);
  ASSERT_TRUE(page.problems().isEmpty()) << page.problems().join('\n').toStdString();
  EXPECT_TRUE(page.spec().program().horovod());
  EXPECT_EQ(page.commandLine(), "ringmaster run -np 2 --horovod -- /usr/bin/python3 train_hvd.py");
  EXPECT_TRUE(sameSpec(parsedCommandLine(page).spec, page.spec())) << page.commandLine().toStdString();

  instrumented->setChecked(false);
  EXPECT_FALSE(horovod->isEnabled());
  EXPECT_FALSE(page.spec().program().horovod()) << "no layer without the package it is part of";
  EXPECT_TRUE(page.problems().isEmpty()) << page.problems().join('\n').toStdString();
  EXPECT_FALSE(page.commandLine().contains("--horovod")) << page.commandLine().toStdString();
  instrumented->setChecked(true);
  EXPECT_TRUE(horovod->isEnabled());
  EXPECT_TRUE(page.spec().program().horovod()) << "the choice is kept while the box is off";

  // A spec sets the box, and one without the instrumentation leaves it off.
  v1::JobSpec spec = page.spec();
  LaunchPage other;
  other.setSpec(spec);
  EXPECT_TRUE(fieldOf<QCheckBox>(other, "program.horovod")->isChecked());
  EXPECT_TRUE(sameSpec(other.spec(), spec));
  spec.mutable_program()->set_horovod(false);
  spec.mutable_program()->set_uninstrumented(true);
  other.setSpec(spec);
  EXPECT_FALSE(fieldOf<QCheckBox>(other, "program.horovod")->isChecked());
  EXPECT_FALSE(fieldOf<QCheckBox>(other, "program.horovod")->isEnabled());
}

TEST_F(ProgramFormTest, TheCommandLineEndsWithTheProgramAndParsesBackToIt) {
  LaunchPage page;
  chooseProgram(page);
  fieldOf<QSpinBox>(page, "world_size")->setValue(2);
  fieldOf<QLineEdit>(page, "program.arguments")->setText("train.py --epochs 3");
  const QString simple = page.commandLine();
  EXPECT_EQ(simple, "ringmaster run -np 2 -- /usr/bin/python3 train.py --epochs 3");
  EXPECT_EQ(page.findChild<QPlainTextEdit*>(QStringLiteral("commandLine"))->toPlainText(), simple);

  // Everything a program carries, with words a shell must have quoted.
  fieldOf<QLineEdit>(page, "name")->setText("it's \"mine\"");
  fieldOf<QCheckBox>(page, "timeline")->setChecked(true);
  fieldOf<QLineEdit>(page, "program.argv")->setText("/opt/my tools/train");
  fieldOf<QLineEdit>(page, "program.arguments")
      ->setText(R"(--data "/srv/data sets/a" --tag $HOME --flag=-x it's)");
  fieldOf<QLineEdit>(page, "program.working_dir")->setText("/srv/runs/it's here");
  fieldOf<QPlainTextEdit>(page, "program.environment")->setPlainText("GREETING=hello world\nEMPTY=");
  fieldOf<QCheckBox>(page, "program.instrumented")->setChecked(false);
  ASSERT_TRUE(page.problems().isEmpty()) << page.problems().join('\n').toStdString();
  const QString line = page.commandLine();
  EXPECT_TRUE(line.endsWith(
      R"( -- '/opt/my tools/train' --data '/srv/data sets/a' --tag '$HOME' --flag=-x 'it'\''s')"))
      << line.toStdString();
  const console::RunFlags flags = parsedCommandLine(page);
  EXPECT_EQ(flags.ranks, 2);
  EXPECT_TRUE(sameSpec(flags.spec.program(), page.spec().program())) << "from: " << line.toStdString();
  EXPECT_TRUE(sameSpec(flags.spec, page.spec())) << "from: " << line.toStdString();
}

TEST_F(ProgramFormTest, ProblemsNameTheFieldAndLineAndBlockTheLaunch) {
  LaunchPage page;
  QSignalSpy launched(&page, &LaunchPage::launchRequested);
  chooseProgram(page);
  auto* launch = page.findChild<QPushButton*>(QStringLiteral("launch"));
  ASSERT_TRUE(page.problems().isEmpty()) << page.problems().join('\n').toStdString();
  EXPECT_TRUE(launch->isEnabled());

  auto* environment = fieldOf<QPlainTextEdit>(page, "program.environment");
  environment->setPlainText("OMP_NUM_THREADS=2\n\nnot an entry\nRANK=3");
  QStringList problems = page.problems();
  ASSERT_EQ(problems.size(), 2) << problems.join('\n').toStdString();
  EXPECT_TRUE(problems[0].startsWith("Environment, line 3: write NAME=value")) << problems[0].toStdString();
  EXPECT_TRUE(problems[0].contains("'not an entry'")) << problems[0].toStdString();
  EXPECT_EQ(problems[1], "Environment, line 4: RANK is set by Ringmaster for every rank and cannot be given");
  EXPECT_TRUE(page.findChild<QLabel*>(QStringLiteral("problems"))->text().contains("Environment, line 3"));
  EXPECT_TRUE(environment->styleSheet().contains("border")) << "the box is marked";
  EXPECT_TRUE(environment->toolTip().contains("line 4")) << environment->toolTip().toStdString();
  EXPECT_FALSE(launch->isEnabled());
  launch->click();
  EXPECT_EQ(launched.count(), 0);

  environment->setPlainText("OMP_NUM_THREADS=2");
  auto* program = fieldOf<QLineEdit>(page, "program.argv");
  program->setText("   ");
  fieldOf<QLineEdit>(page, "program.arguments")->setText("train.py");
  problems = page.problems();
  EXPECT_EQ(problems, QStringList{"Program: must name the program to run"});
  EXPECT_TRUE(program->styleSheet().contains("border"));
  EXPECT_TRUE(environment->styleSheet().isEmpty());
  EXPECT_FALSE(launch->isEnabled());

  program->setText("/usr/bin/python3");
  EXPECT_TRUE(page.problems().isEmpty()) << page.problems().join('\n').toStdString();
  EXPECT_TRUE(program->styleSheet().isEmpty());
  v1::JobSpec requested;
  QObject::connect(&page, &LaunchPage::launchRequested,
                   [&requested](const v1::JobSpec& s) { requested = s; });
  launch->click();
  EXPECT_EQ(launched.count(), 1);
  EXPECT_TRUE(sameSpec(requested, page.spec()));
  EXPECT_EQ(requested.program().argv_size(), 2);
}

TEST_F(ProgramFormTest, TheTrainingFieldsGoAwayForAProgramAndComeBack) {
  LaunchPage page;
  const char* training[] = {"engine",         "backend",          "model",       "dataset",
                            "data_dir",       "hyper.batch_size", "hyper.steps", "hyper.fusion_threshold_mb",
                            "checkpoint_dir", "faults.stragglers"};
  const char* shared[] = {"name", "world_size", "hosts", "timeline"};
  const char* programs[] = {"program.argv",        "program.arguments",    "program.working_dir",
                            "program.environment", "program.instrumented", "program.horovod"};
  for (const char* f : training)
    EXPECT_TRUE(page.field(f)->isEnabled() && page.field(f)->isVisibleTo(&page)) << f;
  for (const char* f : programs) EXPECT_FALSE(page.field(f)->isVisibleTo(&page)) << f;

  chooseProgram(page);
  for (const char* f : training) {
    EXPECT_FALSE(page.field(f)->isEnabled()) << f;
    EXPECT_FALSE(page.field(f)->isVisibleTo(&page)) << f;
  }
  for (const char* f : shared)
    EXPECT_TRUE(page.field(f)->isEnabled() && page.field(f)->isVisibleTo(&page)) << f;
  for (const char* f : programs)
    EXPECT_TRUE(page.field(f)->isEnabled() && page.field(f)->isVisibleTo(&page)) << f;

  page.findChild<QRadioButton*>(QStringLiteral("builtIn"))->setChecked(true);
  for (const char* f : training)
    EXPECT_TRUE(page.field(f)->isEnabled() && page.field(f)->isVisibleTo(&page)) << f;
  for (const char* f : programs) EXPECT_FALSE(page.field(f)->isVisibleTo(&page)) << f;
  EXPECT_FALSE(isUserProgram(page.spec()));
  EXPECT_EQ(page.commandLine(), "ringmaster run -np 1");
}

// Tune searches the bucket cap or fusion threshold of Ringmaster's own engines: for a program it is greyed
// before anything is pressed, saying why, and back for Ringmaster's models.
TEST_F(ProgramFormTest, TuneIsOffForAProgramAndSaysWhy) {
  LaunchPage page;
  auto* tune = page.findChild<QPushButton*>(QStringLiteral("tune"));
  ASSERT_TRUE(tune->isEnabled());
  QSignalSpy asked(&page, &LaunchPage::tuneRequested);
  chooseProgram(page);
  fieldOf<QLineEdit>(page, "program.arguments")->setText("train.py");
  ASSERT_TRUE(page.problems().isEmpty()) << page.problems().join('\n').toStdString();
  EXPECT_FALSE(tune->isEnabled());
  EXPECT_TRUE(tune->toolTip().contains(QStringLiteral("your program"))) << tune->toolTip().toStdString();
  tune->click();
  EXPECT_EQ(asked.count(), 0);
  page.findChild<QRadioButton*>(QStringLiteral("builtIn"))->setChecked(true);
  EXPECT_TRUE(tune->isEnabled());
}

TEST_F(ProgramFormTest, PresetsKeepTheProgram) {
  LaunchPage page;
  chooseProgram(page);
  fieldOf<QLineEdit>(page, "name")->setText("script");
  fieldOf<QSpinBox>(page, "world_size")->setValue(3);
  fieldOf<QLineEdit>(page, "program.arguments")->setText(R"(-u "my train.py" --say """hi""" --steps 5)");
  fieldOf<QLineEdit>(page, "program.working_dir")->setText("/srv/runs");
  fieldOf<QPlainTextEdit>(page, "program.environment")->setPlainText("A=1\nB=two words");
  fieldOf<QCheckBox>(page, "program.instrumented")->setChecked(false);
  ASSERT_TRUE(page.problems().isEmpty()) << page.problems().join('\n').toStdString();
  page.savePreset("my script");

  LaunchPage other;
  fieldOf<QComboBox>(other, "model")->setCurrentText("mlp");
  ASSERT_TRUE(other.loadPreset("my script"));
  EXPECT_TRUE(fieldOf<QRadioButton>(other, "program")->isChecked());
  EXPECT_TRUE(sameSpec(other.spec(), page.spec()));
  EXPECT_EQ(other.spec().program().argv(2), "my train.py");
  EXPECT_EQ(other.spec().program().argv(4), "\"hi\"");
  EXPECT_EQ(other.commandLine(), page.commandLine());

  // The program's preset left the training fields as they were; a training preset brings the training back.
  other.findChild<QRadioButton*>(QStringLiteral("builtIn"))->setChecked(true);
  EXPECT_EQ(other.spec().model(), v1::MODEL_MLP);
  ASSERT_TRUE(other.loadPreset("my script"));
  page.findChild<QRadioButton*>(QStringLiteral("builtIn"))->setChecked(true);
  page.savePreset("training");
  ASSERT_TRUE(other.loadPreset("training"));
  EXPECT_FALSE(fieldOf<QRadioButton>(other, "program")->isChecked());
  EXPECT_FALSE(isUserProgram(other.spec()));
  EXPECT_EQ(other.spec().model(), defaultJobSpec().model());
}

// A preset saved to disk keeps a secret-looking variable's name, not its value: loaded, it shows *** to type
// again. The form itself launches with the value.
TEST_F(ProgramFormTest, PresetsKeepNoSecretValues) {
  LaunchPage page;
  chooseProgram(page);
  fieldOf<QPlainTextEdit>(page, "program.environment")
      ->setPlainText("API_TOKEN=abc-secret\nDb_Password=hunter2\nOMP_NUM_THREADS=2");
  ASSERT_TRUE(page.problems().isEmpty()) << page.problems().join('\n').toStdString();
  EXPECT_EQ(page.spec().program().environment(0), "API_TOKEN=abc-secret");
  page.savePreset("secrets");
  const QString saved = QSettings().value(QStringLiteral("presets/secrets")).toString();
  EXPECT_FALSE(saved.contains(QStringLiteral("abc-secret"))) << saved.toStdString();
  EXPECT_FALSE(saved.contains(QStringLiteral("hunter2"))) << saved.toStdString();

  LaunchPage other;
  ASSERT_TRUE(other.loadPreset("secrets"));
  const v1::JobSpec loaded = other.spec();
  const auto& environment = loaded.program().environment();
  EXPECT_EQ(std::vector<std::string>(environment.begin(), environment.end()),
            (std::vector<std::string>{"API_TOKEN=***", "Db_Password=***", "OMP_NUM_THREADS=2"}));
}

}  // namespace
}  // namespace ringmaster::gui
