// SPDX-License-Identifier: GPL-3.0-or-later
#include "gui/main_window.h"

#include <gtest/gtest.h>

#include <QComboBox>
#include <QStandardItemModel>
#include <QTabWidget>
#include <algorithm>
#include <cstdlib>

#include "console/hosts/host_facts.h"
#include "gui/pages/launch_page.h"
#include "tests/support/console_test.h"
#include "tests/support/gui_app.h"

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

}  // namespace
