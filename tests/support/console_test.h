// SPDX-License-Identifier: GPL-3.0-or-later
// A console test in its own sandbox: settings (remembered hosts, the launch form), run history and the
// embedded agent's journals all live in the test's temporary folder, so test programs running at once share
// nothing.
#pragma once

#include <gtest/gtest.h>

#include <QTemporaryDir>

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

}  // namespace ringmaster::test
