// SPDX-License-Identifier: GPL-3.0-or-later
#include "tests/support/console_test.h"

#include <QSettings>

#include "tests/support/gui_app.h"

namespace ringmaster::test {

void ConsoleTest::SetUp() {
  guiApp();
  ASSERT_TRUE(dir.isValid());
  QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, dir.filePath(QStringLiteral("settings")));
  options.storePath = dir.filePath(QStringLiteral("runs.sqlite"));
  options.workerPath = QStringLiteral(RM_BIN_DIR "/ringmaster-worker");
  options.stateDir = dir.filePath(QStringLiteral("agent"));
}

}  // namespace ringmaster::test
