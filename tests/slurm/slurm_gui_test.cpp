// SPDX-License-Identifier: GPL-3.0-or-later
// The console window against a real Slurm on this machine (two fake nodes), offscreen: the Hosts page lists
// the cluster, a job submitted from the Launch page waits in the queue with Slurm's reason, trains on both
// nodes and is stored with its job id, and is exactly the job the form's command line describes.
#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>
#include <wordexp.h>

#include <QComboBox>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QTableView>
#include <QTimer>
#include <csignal>
#include <cstdlib>

#include "console/session/run_flags.h"
#include "gui/main_window.h"
#include "gui/pages/dashboard_page.h"
#include "gui/pages/hosts_page.h"
#include "gui/pages/launch_page.h"
#include "history/run_store.h"
#include "tests/slurm/slurm_cluster.h"
#include "tests/support/console_test.h"
#include "tests/support/files.h"

namespace ringmaster::gui {
namespace {

constexpr int kCheckTimeoutMs = 30'000;
constexpr int kRunTimeoutMs = 180'000;

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

class SlurmConsole : public test::ConsoleTest {
 protected:
  void SetUp() override {
    test::ConsoleTest::SetUp();
    ASSERT_TRUE(test::SlurmCluster::installed()) << "Slurm and munge are missing: run scripts/install-deps";
    cluster_ = std::make_unique<test::SlurmCluster>();
    // The console asks Slurm as a user's would: sinfo, sbatch and squeue find the cluster by SLURM_CONF.
    ::setenv("SLURM_CONF", cluster_->conf().c_str(), 1);
    options.agentPath = QString::fromStdString(test::binPath("ringmaster-agent"));
  }
  void TearDown() override {
    cluster_.reset();
    ::unsetenv("SLURM_CONF");
  }

  QString jobs() const { return QString::fromStdString(cluster_->folder() + "/jobs"); }

  // Fills the Launch page with a built-in job of `ranks` ranks and `steps` steps submitted to Slurm.
  static void fillSlurmJob(LaunchPage& form, int ranks, int steps, const QString& partition,
                           const QString& folder) {
    qobject_cast<QLineEdit*>(form.field(QStringLiteral("name")))->setText(QStringLiteral("through slurm"));
    qobject_cast<QSpinBox*>(form.field(QStringLiteral("world_size")))->setValue(ranks);
    qobject_cast<QComboBox*>(form.field(QStringLiteral("model")))->setCurrentText(QStringLiteral("mlp"));
    qobject_cast<QComboBox*>(form.field(QStringLiteral("dataset")))
        ->setCurrentText(QStringLiteral("synthetic"));
    qobject_cast<QSpinBox*>(form.field(QStringLiteral("hyper.epochs")))->setValue(0);
    qobject_cast<QSpinBox*>(form.field(QStringLiteral("hyper.steps")))->setValue(steps);
    qobject_cast<QGroupBox*>(form.field(QStringLiteral("slurm")))->setChecked(true);
    qobject_cast<QSpinBox*>(form.field(QStringLiteral("slurm.nodes")))->setValue(2);
    qobject_cast<QLineEdit*>(form.field(QStringLiteral("slurm.partition")))->setText(partition);
    qobject_cast<QLineEdit*>(form.field(QStringLiteral("slurm.folder")))->setText(folder);
  }

  // Every process this test started is gone within 20 s (the cluster's daemons aside).
  void expectNoStrayProcess() const {
    EXPECT_TRUE(test::waitUntil([this] { return cluster_->strayProcesses().empty(); }, 20'000))
        << test::joinedLines(cluster_->strayProcesses());
  }

  std::unique_ptr<test::SlurmCluster> cluster_;
};

TEST_F(SlurmConsole, TheHostsPageListsThePartitionsAndTheirNodes) {
  MainWindow window(options);
  window.show();
  const console::SlurmPartitionsModel& model = *window.slurmModel();
  ASSERT_TRUE(test::waitUntil([&] { return model.rowCount() > 0; }, kCheckTimeoutMs))
      << "sinfo was not asked";
  auto row = [&](const std::string& name) {
    for (int r = 0; r < model.rowCount(); ++r) {
      if (model.partitions()[static_cast<size_t>(r)].name == name) return r;
    }
    return -1;
  };
  auto cell = [&](int r, int column) { return model.index(r, column).data().toString(); };
  const int main = row("main");
  ASSERT_GE(main, 0);
  EXPECT_EQ(cell(main, console::SlurmPartitionsModel::State), QStringLiteral("up"));
  EXPECT_EQ(cell(main, console::SlurmPartitionsModel::Idle), QStringLiteral("2"));
  EXPECT_EQ(cell(main, console::SlurmPartitionsModel::Allocated), QStringLiteral("0"));
  EXPECT_EQ(cell(main, console::SlurmPartitionsModel::Other), QStringLiteral("0"));
  EXPECT_EQ(cell(main, console::SlurmPartitionsModel::Nodes), QStringLiteral("n[1-2]"));
  ASSERT_GE(row("closed"), 0);
  EXPECT_EQ(cell(row("closed"), console::SlurmPartitionsModel::State), QStringLiteral("down"));
  auto* cluster = window.hostsPage()->findChild<QGroupBox*>(QStringLiteral("slurmCluster"));
  ASSERT_NE(cluster, nullptr);
  EXPECT_TRUE(cluster->isVisibleTo(window.hostsPage()));
  EXPECT_EQ(window.hostsPage()->slurmView()->model()->rowCount(), model.rowCount());

  // A job takes both nodes: asked again, the page shows them allocated.
  auto held = cluster_->command(
      {"sbatch", "--parsable", "-N", "2", "-n", "4", "--output=/dev/null", "--wrap", "sleep 300"});
  ASSERT_EQ(held.exitCode, 0) << held.err;
  ASSERT_TRUE(test::waitUntil(
      [&] { return cluster_->jobState(held.out.substr(0, held.out.find_first_of(";\n"))) == "RUNNING"; },
      kCheckTimeoutMs));
  int checks = 0;
  QObject::connect(&window, &MainWindow::slurmChecked, [&] { ++checks; });
  window.refreshSlurm();
  ASSERT_TRUE(test::waitUntil([&] { return checks > 0; }, kCheckTimeoutMs));
  EXPECT_EQ(cell(row("main"), console::SlurmPartitionsModel::Allocated), QStringLiteral("2"));
  EXPECT_EQ(cell(row("main"), console::SlurmPartitionsModel::Idle), QStringLiteral("0"));

  // Slurm stops answering (its controller hangs): the check ends at its time limit without blocking the
  // window, and the page shows no cluster and no error.
  cluster_->signalController(SIGSTOP);
  int ticks = 0;
  QTimer ticker;
  QObject::connect(&ticker, &QTimer::timeout, [&] { ++ticks; });
  ticker.start(100);
  checks = 0;
  window.refreshSlurm();
  ASSERT_TRUE(test::waitUntil([&] { return checks > 0; }, kCheckTimeoutMs)) << "sinfo was not given up";
  EXPECT_GT(ticks, 2) << "the window waited for sinfo";
  EXPECT_EQ(model.rowCount(), 0);
  EXPECT_FALSE(cluster->isVisibleTo(window.hostsPage()));
  EXPECT_TRUE(window.bannerText().isEmpty()) << window.bannerText().toStdString();
  cluster_->signalController(SIGCONT);
}

TEST_F(SlurmConsole, AJobSubmittedFromTheLaunchPageTrainsOnBothNodesAndIsStoredWithItsJobId) {
  MainWindow window(options);
  window.show();
  LaunchPage* form = window.launchPage();
  fillSlurmJob(*form, 4, 20, QStringLiteral("main"), jobs());
  ASSERT_TRUE(form->problems().isEmpty()) << form->problems().join('\n').toStdString();
  // The Hosts field does not apply: Slurm places the ranks.
  EXPECT_FALSE(form->field(QStringLiteral("hosts"))->isEnabled());
  const QString command = form->commandLine();
  EXPECT_TRUE(command.startsWith(QStringLiteral("ringmaster run -np 4 "))) << command.toStdString();
  for (const QString& part : {QStringLiteral("--slurm"), QStringLiteral("--nodes 2"),
                              QStringLiteral("--partition main"), QStringLiteral("--slurm-dir ") + jobs()}) {
    EXPECT_TRUE(command.contains(part)) << part.toStdString() << " in " << command.toStdString();
  }
  const QString sbatch = form->sbatchLine();
  EXPECT_TRUE(sbatch.startsWith(QStringLiteral("sbatch --parsable --ntasks=4 --nodes=2 --partition=main")))
      << sbatch.toStdString();
  auto* shown = form->findChild<QLabel*>(QStringLiteral("sbatchLine"));
  ASSERT_NE(shown, nullptr);
  EXPECT_TRUE(shown->isVisibleTo(form));
  EXPECT_TRUE(shown->text().contains(sbatch));

  QStringList banners;
  QObject::connect(&window, &MainWindow::bannerChanged, [&](const QString& text) { banners << text; });
  QString status;
  QObject::connect(&window, &MainWindow::liveRunEnded, [&](const QString& s) { status = s; });
  form->findChild<QPushButton*>(QStringLiteral("launch"))->click();
  ASSERT_TRUE(test::waitUntil([&] { return !status.isEmpty(); }, kRunTimeoutMs))
      << banners.join('\n').toStdString() << cluster_->logs();
  ASSERT_EQ(status, QStringLiteral("finished")) << banners.join('\n').toStdString();
  const LiveRun* live = window.liveRun();
  const std::string id = live->slurmJobId().toStdString();
  ASSERT_FALSE(id.empty());
  EXPECT_TRUE(
      banners.filter(QStringLiteral("Submitted Slurm job %1: sbatch ").arg(live->slurmJobId())).size() == 1)
      << banners.join('\n').toStdString();
  EXPECT_FALSE(banners.filter(QStringLiteral("Slurm job %1: RUNNING").arg(live->slurmJobId())).isEmpty())
      << banners.join('\n').toStdString();

  // What ran is what the form showed: the sbatch line, with the job's id, and the run's flags.
  const QString folder = jobs() + QLatin1Char('/') + live->jobId();
  EXPECT_EQ(live->slurmCommand(), QString(sbatch).replace(QStringLiteral("JOB_ID"), live->jobId()));
  std::vector<std::string> submitted;
  {
    const std::string text = test::readFile((folder + QStringLiteral("/run-arguments")).toStdString());
    std::string word;
    for (char c : text) {
      if (c != '\0') {
        word += c;
        continue;
      }
      submitted.push_back(word);
      word.clear();
    }
  }
  const std::vector<std::string> words = shellWords(command);
  ASSERT_GT(words.size(), 2u);
  console::RunFlags ran = console::parseRunFlags(submitted);
  const console::RunFlags shownFlags = console::parseRunFlags({words.begin() + 2, words.end()});
  EXPECT_EQ(ran.jobId, live->jobId().toStdString());
  ran.jobId.clear();  // chosen at submission
  EXPECT_EQ(console::runArguments(ran), console::runArguments(shownFlags));
  std::string differences;
  google::protobuf::util::MessageDifferencer differ;
  differ.ReportDifferencesToString(&differences);
  EXPECT_TRUE(differ.Compare(ran.spec, shownFlags.spec)) << differences;

  // It trained on both nodes, two ranks each, and the history keeps it with its Slurm job id and those nodes
  // as its only hosts.
  for (int rank = 0; rank < 4; ++rank) {
    EXPECT_EQ(window.shownRun()->series.rank(rank, console::RankMetric::Throughput).count(), 20) << rank;
  }
  RunStore store(options.storePath.toStdString());
  const int64_t runId = live->runId();
  const auto info = store.run(runId);
  ASSERT_TRUE(info.has_value());
  EXPECT_EQ(info->status, "finished");
  EXPECT_EQ(info->name, "through slurm");
  EXPECT_EQ(info->environment.count("slurm job") ? info->environment.at("slurm job") : "", id);
  std::vector<std::string> hosts;
  for (const auto& [host, facts] : store.hosts(runId)) hosts.push_back(host);
  EXPECT_EQ(hosts, (std::vector<std::string>{"n1", "n2"}));
  for (const RankInfo& r : store.ranks(runId)) EXPECT_EQ(r.host, r.rank < 2 ? "n1" : "n2") << r.rank;
  // The console ended the agents' step: the job completed.
  EXPECT_TRUE(test::waitUntil([&] { return cluster_->jobState(id) == "COMPLETED"; }, 20'000))
      << cluster_->jobState(id);
  expectNoStrayProcess();
}

TEST_F(SlurmConsole, AWaitingJobShowsSlurmsReasonAndStopCancelsIt) {
  MainWindow window(options);
  window.show();
  LaunchPage* form = window.launchPage();
  fillSlurmJob(*form, 2, 20, QStringLiteral("closed"), jobs());
  ASSERT_TRUE(form->problems().isEmpty()) << form->problems().join('\n').toStdString();
  QString status;
  QObject::connect(&window, &MainWindow::liveRunEnded, [&](const QString& s) { status = s; });
  form->findChild<QPushButton*>(QStringLiteral("launch"))->click();
  ASSERT_TRUE(test::waitUntil(
      [&] { return window.bannerText().contains(QStringLiteral(": PENDING (PartitionDown)")); },
      kCheckTimeoutMs))
      << window.bannerText().toStdString();
  const std::string id = window.liveRun()->slurmJobId().toStdString();
  ASSERT_FALSE(id.empty());
  EXPECT_TRUE(
      window.bannerText().startsWith(QStringLiteral("Slurm job %1").arg(window.liveRun()->slurmJobId())));
  QPushButton* stop = window.dashboardPage()->stopButton();
  ASSERT_TRUE(stop->isEnabled()) << "a waiting job can be cancelled";
  QString asked;
  test::answerNextQuestion(QStringLiteral("Stop the run"), &asked);
  stop->click();
  EXPECT_FALSE(asked.isEmpty()) << "Stop asks before it cancels the job";
  ASSERT_TRUE(test::waitUntil([&] { return !status.isEmpty(); }, kCheckTimeoutMs));
  EXPECT_EQ(status, QStringLiteral("stopped")) << window.bannerText().toStdString();
  EXPECT_TRUE(test::waitUntil([&] { return cluster_->jobState(id) == "CANCELLED"; }, 20'000))
      << cluster_->jobState(id);
  EXPECT_FALSE(stop->isEnabled());
  expectNoStrayProcess();
}

}  // namespace
}  // namespace ringmaster::gui
