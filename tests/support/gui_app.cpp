// SPDX-License-Identifier: GPL-3.0-or-later
#include "tests/support/gui_app.h"

#include <QAbstractButton>
#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QMessageBox>
#include <QStandardPaths>
#include <QTimer>

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

namespace {

void answerWhenAsked(const QString& answer, QString* asked, QStringList* buttons, int triesLeft) {
  QTimer::singleShot(50, [answer, asked, buttons, triesLeft] {
    auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
    if (!box) {
      if (triesLeft > 0) answerWhenAsked(answer, asked, buttons, triesLeft - 1);
      return;
    }
    *asked = box->text();
    if (buttons) {
      buttons->clear();
      for (QAbstractButton* button : box->buttons()) *buttons << button->text();
    }
    for (QAbstractButton* button : box->buttons()) {
      if (button->text() == answer) {
        button->click();
        return;
      }
    }
    box->reject();
  });
}

}  // namespace

void answerNextQuestion(const QString& answer, QString* asked, QStringList* buttons) {
  answerWhenAsked(answer, asked, buttons, 600);
}

}  // namespace ringmaster::test
