// SPDX-License-Identifier: GPL-3.0-or-later
// ringmaster-gui: the desktop console.
#include <QApplication>
#include <QSettings>

#include <cstdio>

#include "common/error.h"
#include "gui/command_line.h"
#include "gui/main_window.h"
#include "gui/translations.h"
#include "ringmaster/version.h"

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QApplication::setApplicationName(QStringLiteral("ringmaster-gui"));
  QApplication::setApplicationVersion(QStringLiteral(RINGMASTER_VERSION));
  QApplication::setOrganizationName(QStringLiteral("Ringmaster"));

  ringmaster::gui::ConsoleCommandLine line;
  try {
    line = ringmaster::gui::parseCommandLine(QApplication::arguments());
  } catch (const ringmaster::InputError& e) {
    std::fprintf(stderr, "ringmaster-gui: %s\n", e.what());
    return 2;
  }
  if (!line.language.isEmpty()) QSettings().setValue(QStringLiteral("language"), line.language);
  ringmaster::gui::installTranslation(app, line.language);

  ringmaster::gui::MainWindow window(line.window);
  window.show();
  ringmaster::gui::startConsole(window, line);
  return QApplication::exec();
}
