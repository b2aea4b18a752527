// SPDX-License-Identifier: GPL-3.0-or-later
#include "tests/support/gui_app.h"

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QStandardPaths>

namespace ringmaster::test {

QApplication& guiApp() {
  static int argc = 1;
  static char name[] = "ringmaster-gui-test";
  static char* argv[] = {name, nullptr};
  // Settings and data go to ~/.qttest, never to the user's own files.
  QStandardPaths::setTestModeEnabled(true);
  QCoreApplication::setOrganizationName(QStringLiteral("RingmasterTest"));
  QCoreApplication::setApplicationName(QStringLiteral("ringmaster-gui-test"));
  // Never destroyed: QTest's input devices are children of the application, and tearing it down among the
  // other static destructors at exit crashes in Qt 6.4.
  static QApplication* instance = new QApplication(argc, argv);
  return *instance;
}

bool waitUntil(const std::function<bool()>& done, int timeoutMs) {
  QDeadlineTimer deadline(timeoutMs);
  while (!done()) {
    if (deadline.hasExpired()) return false;
    QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
  }
  return true;
}

}  // namespace ringmaster::test
