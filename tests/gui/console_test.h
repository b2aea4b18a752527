// SPDX-License-Identifier: GPL-3.0-or-later
// A console test in its own sandbox: settings (remembered hosts, the launch form), run history and the embedded
// agent's journals all live in the test's temporary folder, so test programs running at once share nothing.
#pragma once

#include <gtest/gtest.h>

#include <QSettings>
#include <QTemporaryDir>

#include "gui/main_window.h"
#include "tests/gui/gui_test_support.h"

namespace ringmaster::test {

class ConsoleTest : public ::testing::Test {
 protected:
  void SetUp() override {
    guiApp();
    ASSERT_TRUE(dir.isValid());
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, dir.filePath(QStringLiteral("settings")));
    options.storePath = dir.filePath(QStringLiteral("runs.sqlite"));
    options.workerPath = QStringLiteral(RM_BIN_DIR "/ringmaster-worker");
    options.stateDir = dir.filePath(QStringLiteral("agent"));
  }

  QTemporaryDir dir;
  gui::MainWindowOptions options;
};

}  // namespace ringmaster::test
