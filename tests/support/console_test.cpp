// SPDX-License-Identifier: GPL-3.0-or-later
#include "tests/support/console_test.h"

#include <QFileInfo>
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

void ConsoleWindowTest::SetUp() {
  ConsoleTest::SetUp();
  ASSERT_TRUE(QFileInfo(options.workerPath).isExecutable()) << "build ringmaster-worker first";
}

void ConsoleWindowTest::TearDown() {
  window_.reset();
}

gui::MainWindow& ConsoleWindowTest::openWindow() {
  window_ = std::make_unique<gui::MainWindow>(options);
  window_->resize(1440, 900);
  window_->show();
  QObject::connect(window_.get(), &gui::MainWindow::liveRunEnded, [this](const QString& s) { status = s; });
  return *window_;
}

}  // namespace ringmaster::test
