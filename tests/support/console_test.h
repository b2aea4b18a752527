// SPDX-License-Identifier: GPL-3.0-or-later
// A console test in its own sandbox: settings (remembered hosts, the launch form), run history and the
// embedded agent's journals all live in the test's temporary folder, so test programs running at once share
// nothing.
#pragma once

#include <gtest/gtest.h>

#include <QString>
#include <QTemporaryDir>
#include <memory>

#include "gui/main_window.h"
#include "tests/support/gui_app.h"

namespace ringmaster::test {

class ConsoleTest : public ::testing::Test {
 protected:
  // Starts the offscreen application and points the settings, the store and the agent's state into `dir`.
  void SetUp() override;

  QTemporaryDir dir;
  gui::MainWindowOptions options;  // for a MainWindow in the sandbox
};

// A console test against real runs through the embedded agent, in one window at the default size.
class ConsoleWindowTest : public ConsoleTest {
 protected:
  // Also checks that ringmaster-worker is built.
  void SetUp() override;
  void TearDown() override;

  // The window (a new one each call), `status` set when its live run ends.
  gui::MainWindow& openWindow();

  QString status;

 private:
  std::unique_ptr<gui::MainWindow> window_;
};

}  // namespace ringmaster::test
