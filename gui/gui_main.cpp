// SPDX-License-Identifier: GPL-3.0-or-later
// ringmaster-gui: the desktop console.
#include <QApplication>
#include <QIcon>
#include <QSettings>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "common/error.h"
#include "gui/command_line.h"
#include "gui/main_window.h"
#include "gui/translations.h"
#include "ringmaster/version.h"

namespace {

// --help or --version among the console's own arguments (not the job's, after "--"): answered without a
// window.
bool onlyAsksForText(int argc, char** argv) {
  for (int i = 1; i < argc && std::strcmp(argv[i], "--") != 0; ++i) {
    for (const char* word : {"-h", "--help", "--help-all", "-v", "--version"}) {
      if (std::strcmp(argv[i], word) == 0) return true;
    }
  }
  return false;
}

// No display to open a window on and no platform chosen: say so rather than Qt's plugin failure.
bool noDisplay() {
  auto unset = [](const char* name) {
    const char* value = std::getenv(name);
    return value == nullptr || *value == '\0';
  };
  return unset("DISPLAY") && unset("WAYLAND_DISPLAY") && unset("QT_QPA_PLATFORM");
}

}  // namespace

int main(int argc, char** argv) {
  const bool textOnly = onlyAsksForText(argc, argv);
  if (!textOnly && noDisplay()) {
    std::fprintf(
        stderr,
        "ringmaster-gui: no display to open a window on (DISPLAY and WAYLAND_DISPLAY are not set). Run it "
        "in a desktop session, use the command line (`ringmaster run`, `ringmaster show`), or set "
        "QT_QPA_PLATFORM=offscreen to render pages with --screenshot.\n");
    return 2;
  }
  std::unique_ptr<QCoreApplication> app;
  if (textOnly) {
    app = std::make_unique<QCoreApplication>(argc, argv);
  } else {
    app = std::make_unique<QApplication>(argc, argv);
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/ringmaster_256.png")));
    QGuiApplication::setDesktopFileName(QStringLiteral(RINGMASTER_APP_ID));
  }
  QCoreApplication::setApplicationName(QStringLiteral("ringmaster-gui"));
  QCoreApplication::setApplicationVersion(QStringLiteral(RINGMASTER_VERSION));
  QCoreApplication::setOrganizationName(QStringLiteral("Ringmaster"));

  ringmaster::gui::ConsoleCommandLine line;
  try {
    line = ringmaster::gui::parseCommandLine(QCoreApplication::arguments());
  } catch (const ringmaster::InputError& e) {
    std::fprintf(stderr, "ringmaster-gui: %s\n", e.what());
    return 2;
  }
  if (textOnly) return 0;  // the parser printed what was asked
  if (!line.language.isEmpty()) QSettings().setValue(QStringLiteral("language"), line.language);
  ringmaster::gui::installTranslation(*app, line.language);

  ringmaster::gui::MainWindow window(line.window);
  window.show();
  ringmaster::gui::startConsole(window, line);
  return QCoreApplication::exec();
}
