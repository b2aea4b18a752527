// SPDX-License-Identifier: GPL-3.0-or-later
#include <gtest/gtest.h>

#include <QApplication>
#include <QTabWidget>

#include "gui/main_window.h"

namespace {

QApplication& app() {
  static int argc = 1;
  static char name[] = "test_gui";
  static char* argv[] = {name, nullptr};
  static QApplication instance(argc, argv);
  return instance;
}

}  // namespace

TEST(MainWindow, OpensOffscreenWithItsPages) {
  app();
  ringmaster::gui::MainWindow window;
  window.show();
  EXPECT_TRUE(window.isVisible());
  EXPECT_NE(qobject_cast<QTabWidget*>(window.centralWidget()), nullptr);
  EXPECT_EQ(window.windowTitle(), "Ringmaster");
}
