// SPDX-License-Identifier: GPL-3.0-or-later
// ringmaster-gui: the desktop console.
#include <QApplication>
#include <QCommandLineParser>
#include <QSettings>
#include <QTimer>

#include <cstdio>

#include "gui/main_window.h"
#include "gui/store_access.h"
#include "gui/translations.h"
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
  const QCommandLineOption lang(QStringLiteral("lang"),
                                QStringLiteral("Language of the interface: en or zh_CN (default: the system's; "
                                               "the choice is remembered)."),
                                QStringLiteral("LANG"));
  const QCommandLineOption store(QStringLiteral("store"), QStringLiteral("Run history file (default: the user's)."),
                                 QStringLiteral("FILE"));
  const QCommandLineOption open(QStringLiteral("open"), QStringLiteral("Open a stored run: its id, a name or 'last'."),
                                QStringLiteral("RUN"));
  const QCommandLineOption screenshot(
      QStringLiteral("screenshot"),
      QStringLiteral("Render every page to DIR/<page>.png and exit (with --open, of that run)."), QStringLiteral("DIR"));
  parser.addOptions({lang, store, open, screenshot});
  parser.process(app);

  const QString language = parser.value(lang);
  if (!language.isEmpty() && language != QLatin1String("en") && language != QLatin1String("zh_CN")) {
    std::fprintf(stderr, "ringmaster-gui: --lang %s: use en or zh_CN\n", qPrintable(language));
    return 2;
  }
  if (!language.isEmpty()) QSettings().setValue(QStringLiteral("language"), language);
  ringmaster::gui::installTranslation(app, language);

  ringmaster::gui::MainWindowOptions options;
  options.storePath = parser.value(store);
  ringmaster::gui::MainWindow window(options);
  window.show();

  if (parser.isSet(open)) {
    // Resolved on the store's thread like every store access; a bad name is reported and the window stays.
    const std::string text = parser.value(open).toStdString();
    window.store()->post<int64_t>(&window, [text](ringmaster::RunStore& s) { return s.resolveRun(text); },
                                  [&window](int64_t id) { window.openRun(id); });
    QObject::connect(&window, &ringmaster::gui::MainWindow::problem, &app, [&](const QString& message) {
      std::fprintf(stderr, "ringmaster-gui: %s\n", qPrintable(message));
      if (parser.isSet(screenshot)) QApplication::exit(1);
    });
  }
  if (parser.isSet(screenshot)) {
    const QString dir = parser.value(screenshot);
    auto shoot = [&window, dir] {
      // Let layouts and charts settle before grabbing.
      QTimer::singleShot(500, &window, [&window, dir] {
        const QStringList files = window.saveScreenshots(dir);
        for (const QString& f : files) std::printf("%s\n", qPrintable(f));
        QApplication::exit(files.isEmpty() ? 1 : 0);
      });
    };
    if (parser.isSet(open)) {
      QObject::connect(&window, &ringmaster::gui::MainWindow::runShown, &window, shoot);
    } else {
      shoot();
    }
  }
  return QApplication::exec();
}
