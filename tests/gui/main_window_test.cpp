// SPDX-License-Identifier: GPL-3.0-or-later
#include "gui/main_window.h"

#include <gtest/gtest.h>

#include <QTabWidget>

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

}  // namespace
