// SPDX-License-Identifier: GPL-3.0-or-later
#include <gtest/gtest.h>

#include <QTabWidget>
#include <QTemporaryDir>

#include "gui/main_window.h"
#include "tests/gui/gui_test_support.h"

namespace {

TEST(MainWindow, OpensOffscreenWithItsPages) {
  ringmaster::test::guiApp();
  QTemporaryDir dir;
  ringmaster::gui::MainWindowOptions options;
  options.storePath = dir.filePath(QStringLiteral("runs.sqlite"));
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

}  // namespace
