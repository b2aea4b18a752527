// SPDX-License-Identifier: GPL-3.0-or-later
#include "gui/main_window.h"

#include <gtest/gtest.h>

#include <QComboBox>
#include <QStandardItemModel>
#include <QTabWidget>
#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "console/hosts/host_facts.h"
#include "gui/pages/launch_page.h"
#include "tests/support/console_test.h"
#include "tests/support/files.h"
#include "tests/support/gui_app.h"
#include "tests/support/record_files.h"

namespace {

using MainWindow = ringmaster::test::ConsoleTest;

TEST_F(MainWindow, OpensOffscreenWithItsPages) {
  ringmaster::gui::MainWindow window(options);
  window.show();
  EXPECT_TRUE(window.isVisible());
  ASSERT_EQ(window.pages()->count(), ringmaster::gui::MainWindow::PageCount);
  EXPECT_EQ(window.pages()->tabText(ringmaster::gui::MainWindow::Timeline), "Timeline");
  EXPECT_EQ(window.windowTitle(), "Ringmaster");
  // The empty store answers (off the GUI thread) with no runs.
  bool refreshed = false;
  QObject::connect(&window, &ringmaster::gui::MainWindow::runsRefreshed, [&] { refreshed = true; });
  window.refreshRuns();
  EXPECT_TRUE(ringmaster::test::waitUntil([&] { return refreshed; }, 10000));
  EXPECT_EQ(window.runsModel()->rowCount(), 0);
}

// The Launch page offers nccl on this machine exactly when the Hosts page's check of it says nccl can run
// here (console::usableBackends: a worker built with it and a GPU).
TEST_F(MainWindow, TheLaunchFormOffersTheBackendsThisMachineCanRun) {
  ringmaster::gui::MainWindow window(options);
  const ringmaster::console::HostsModel& hosts = *window.hostsModel();
  ASSERT_TRUE(ringmaster::test::waitUntil([&] { return hosts.host(0).hasInfo; }, 30000))
      << "this machine was not checked";
  auto* backend = qobject_cast<QComboBox*>(window.launchPage()->field(QStringLiteral("backend")));
  ASSERT_NE(backend, nullptr);
  auto* choices = qobject_cast<QStandardItemModel*>(backend->model());
  QStandardItem* nccl = choices->item(backend->findText(QStringLiteral("nccl")));
  const auto usable = ringmaster::console::usableBackends(hosts.host(0).info);
  const bool ncclRuns = std::find(usable.begin(), usable.end(), ringmaster::v1::BACKEND_NCCL) != usable.end();
  EXPECT_EQ(nccl->isEnabled(), ncclRuns);
  EXPECT_EQ(nccl->toolTip().isEmpty(), ncclRuns) << nccl->toolTip().toStdString();
  if (!ncclRuns) {
    EXPECT_TRUE(nccl->toolTip().startsWith(QStringLiteral("nccl cannot run on this machine: ")))
        << nccl->toolTip().toStdString();
  }
  EXPECT_TRUE(choices->item(backend->findText(QStringLiteral("gloo")))->isEnabled());
  // A Slurm that cannot be asked (here: no configuration) is no cluster and no error.
  ::setenv("SLURM_CONF", dir.filePath(QStringLiteral("no-such-slurm.conf")).toUtf8().constData(), 1);
  bool checked = false;
  QObject::connect(&window, &ringmaster::gui::MainWindow::slurmChecked, [&] { checked = true; });
  window.refreshSlurm();
  ASSERT_TRUE(ringmaster::test::waitUntil([&] { return checked; }, 30000));
  EXPECT_EQ(window.slurmModel()->rowCount(), 0);
  EXPECT_TRUE(window.bannerText().isEmpty()) << window.bannerText().toStdString();
  ::unsetenv("SLURM_CONF");
}

// The window's Import takes a folder of ranks' record files (RINGMASTER_RECORD_DIR) as `ringmaster import`
// does: one run of both ranks, shown with its ranks' ends and the rank that ended it, and the banner saying
// so.
TEST_F(MainWindow, ImportsAFolderOfRecordFilesAsOneRun) {
  ringmaster::test::SyntheticRun run;
  run.ranks = 2;
  run.steps = 40;
  const auto records = ringmaster::test::rankRecords(run, {40, 25}, {"node-a", "node-b"});
  const std::string folder = dir.filePath(QStringLiteral("run1")).toStdString();
  std::filesystem::create_directories(folder);
  ringmaster::test::writeFile(folder + "/rank0-node-a-100.rmrecs",
                              ringmaster::test::recordFile("job-1", 0, 2, "node-a", 100, records[0], true));
  ringmaster::test::writeFile(folder + "/rank1-node-b-101.rmrecs",
                              ringmaster::test::recordFile("job-1", 1, 2, "node-b", 101, records[1], false));

  ringmaster::gui::MainWindow window(options);
  window.show();
  int64_t shownId = -1;
  QObject::connect(&window, &ringmaster::gui::MainWindow::runShown, [&](int64_t id) { shownId = id; });
  window.importTraces({QString::fromStdString(folder)});
  ASSERT_TRUE(ringmaster::test::waitUntil([&] { return shownId >= 0; }, 60000))
      << window.bannerText().toStdString();
  const ringmaster::console::RunData& shown = *window.shownRun();
  ASSERT_TRUE(shown.info);
  EXPECT_EQ(shown.info->status, "failed");
  const auto rows = shown.rankRows();
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].steps, 40u);
  EXPECT_EQ(rows[0].state, ringmaster::v1::RankState::STATE_EXITED);
  EXPECT_EQ(rows[1].steps, 25u);
  EXPECT_EQ(rows[1].state, ringmaster::v1::RankState::STATE_LOST);
  EXPECT_EQ(rows[1].host, "node-b");
  const auto crash = std::find_if(shown.findings.begin(), shown.findings.end(), [](const auto& f) {
    return f.kind() == ringmaster::v1::Finding::KIND_CRASH;
  });
  ASSERT_NE(crash, shown.findings.end());
  EXPECT_EQ(crash->rank(), 1);
  EXPECT_TRUE(window.bannerText().contains(QStringLiteral("as one run of 2 ranks from their record files")))
      << window.bannerText().toStdString();
  EXPECT_TRUE(window.bannerText().contains(QStringLiteral("1 rank(s) stopped without recording their end")))
      << window.bannerText().toStdString();
}

}  // namespace
