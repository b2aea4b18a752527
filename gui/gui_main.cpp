// SPDX-License-Identifier: GPL-3.0-or-later
// ringmaster-gui: the desktop console.
#include <QApplication>
#include <QCommandLineParser>

#include "gui/main_window.h"
#include "ringmaster/version.h"

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QApplication::setApplicationName(QStringLiteral("ringmaster-gui"));
  QApplication::setApplicationVersion(QStringLiteral(RINGMASTER_VERSION));
  QApplication::setOrganizationName(QStringLiteral("Ringmaster"));

  QCommandLineParser parser;
  parser.setApplicationDescription(
      QStringLiteral("Ringmaster desktop console: launch data-parallel training and watch every rank."));
  parser.addHelpOption();
  parser.addVersionOption();
  parser.process(app);

  ringmaster::gui::MainWindow window;
  window.show();
  return QApplication::exec();
}
