// SPDX-License-Identifier: GPL-3.0-or-later
#include "gui/command_line.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QTimer>
#include <cstdio>

#include "common/error.h"
#include "console/session/run_flags.h"
#include "console/session/store_access.h"

namespace ringmaster::gui {

ConsoleCommandLine parseCommandLine(const QStringList& arguments) {
  QCommandLineParser parser;
  parser.setApplicationDescription(
      QStringLiteral("Ringmaster desktop console: launch data-parallel training and watch every rank."));
  const QCommandLineOption help = parser.addHelpOption();
  const QCommandLineOption version = parser.addVersionOption();
  const QCommandLineOption lang(
      QStringLiteral("lang"),
      QStringLiteral("Language of the interface: en or zh_CN (default: the system's; "
                     "the choice is remembered)."),
      QStringLiteral("LANG"));
  const QCommandLineOption store(QStringLiteral("store"),
                                 QStringLiteral("Run history file (default: the user's)."),
                                 QStringLiteral("FILE"));
  const QCommandLineOption open(QStringLiteral("open"),
                                QStringLiteral("Open a stored run: its id, a name or 'last'."),
                                QStringLiteral("RUN"));
  const QCommandLineOption screenshot(
      QStringLiteral("screenshot"),
      QStringLiteral(
          "Render every page to DIR/<page>.png and exit (with --open, of that run; with --run, when the "
          "run has ended)."),
      QStringLiteral("DIR"));
  const QCommandLineOption run(
      QStringLiteral("run"),
      QStringLiteral(
          "Launch a job at once and watch it live; its flags follow '--', as for `ringmaster run`: "
          "ringmaster-gui --run -- -np 4 --model cnn --data fashion-mnist --steps 200"));
  parser.addOptions({lang, store, open, screenshot, run});
  parser.addPositionalArgument(QStringLiteral("-- FLAGS"),
                               QStringLiteral("With --run: the flags of `ringmaster run`."));
  if (!parser.parse(arguments)) throw InputError(parser.errorText().toStdString());
  if (parser.isSet(help)) parser.showHelp(0);
  if (parser.isSet(version)) parser.showVersion();

  ConsoleCommandLine line;
  line.language = parser.value(lang);
  if (!line.language.isEmpty() && line.language != QLatin1String("en") &&
      line.language != QLatin1String("zh_CN")) {
    throw InputError("--lang " + line.language.toStdString() + ": use en or zh_CN");
  }
  line.open = parser.value(open);
  line.screenshot = parser.value(screenshot);
  line.window.storePath = parser.value(store);
  line.run = parser.isSet(run);
  const QStringList flags = parser.positionalArguments();
  if (!line.run) {
    if (!flags.isEmpty()) {
      throw InputError("unexpected argument '" + flags.front().toStdString() +
                       "': job flags go after --run --");
    }
    return line;
  }
  if (!line.open.isEmpty()) throw InputError("give --run or --open, not both");

  std::vector<std::string> words;
  for (const QString& f : flags) words.push_back(f.toStdString());
  const console::RunFlags runFlags = console::parseRunFlags(words);
  if (runFlags.noStore) {
    throw InputError("--no-store: the console keeps every run it shows in the history; leave it out");
  }
  const QString runStore = QString::fromStdString(runFlags.store);
  if (!runStore.isEmpty() && !line.window.storePath.isEmpty() && runStore != line.window.storePath) {
    throw InputError("--store is given twice with different files: give it once");
  }
  if (!runStore.isEmpty()) line.window.storePath = runStore;
  line.window.workerPath = QString::fromStdString(runFlags.worker);
  line.window.stateDir = QString::fromStdString(runFlags.stateDir);
  if (runFlags.slurm.submit) line.slurm = runFlags;
  line.plan = console::launchPlan(runFlags);
  line.files.summaryJson = runFlags.summaryJson;
  line.files.timeline = runFlags.timeline;
  return line;
}

void startConsole(MainWindow& window, const ConsoleCommandLine& line) {
  const bool quitOnProblem = !line.screenshot.isEmpty();
  QObject::connect(&window, &MainWindow::problem, &window, [quitOnProblem](const QString& message) {
    std::fprintf(stderr, "ringmaster-gui: %s\n", qPrintable(message));
    if (quitOnProblem) QApplication::exit(1);
  });
  if (!line.open.isEmpty()) {
    // Resolved on the store's thread like every store access; a bad name is reported and the window stays.
    const std::string text = line.open.toStdString();
    window.store()->post<int64_t>(
        &window, [text](RunStore& s) { return s.resolveRun(text); },
        [&window](int64_t id) { window.openRun(id); });
  }
  if (line.run) {
    // The window opens on the job it runs: the Dashboard at once, not the page the last session left, and the
    // Launch form holding the job, to change and run again.
    window.showPage(MainWindow::Dashboard);
    window.launchPage()->setSpec(line.slurm ? line.slurm->spec : line.plan.spec);
  }
  if (line.run && line.slurm) {
    window.submitToSlurm(*line.slurm);
  } else if (line.run) {
    window.launch(line.plan, line.files);
  }
  if (line.screenshot.isEmpty()) return;

  const QString dir = line.screenshot;
  auto shoot = [&window, dir] {
    // Let layouts and charts settle before grabbing.
    QTimer::singleShot(500, &window, [&window, dir] {
      const QStringList files = window.saveScreenshots(dir);
      for (const QString& f : files) std::printf("%s\n", qPrintable(f));
      QApplication::exit(files.isEmpty() ? 1 : 0);
    });
  };
  if (line.run) {
    QObject::connect(&window, &MainWindow::liveRunEnded, &window, shoot, Qt::SingleShotConnection);
  } else if (!line.open.isEmpty()) {
    QObject::connect(&window, &MainWindow::runShown, &window, shoot, Qt::SingleShotConnection);
  } else {
    shoot();
  }
}

}  // namespace ringmaster::gui
