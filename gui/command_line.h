// SPDX-License-Identifier: GPL-3.0-or-later
// ringmaster-gui's command line: language, run history, a stored run to open, screenshots, and
// `--run -- <flags of ringmaster run>` to start that job at once (with --slurm: submit it) and watch it live.
// The job's flags are parsed by console::parseRunFlags, the same words as the CLI's.
#pragma once

#include <QString>
#include <QStringList>
#include <optional>

#include "console/session/launcher.h"
#include "console/session/run_flags.h"
#include "gui/live_run.h"
#include "gui/main_window.h"

namespace ringmaster::gui {

struct ConsoleCommandLine {
  QString language;    // empty: the remembered or the system's
  QString open;        // a stored run: id, name or "last"
  QString screenshot;  // render every page here and exit (after the run with --run)
  bool run = false;    // launch `plan` at start-up, or with --slurm submit `slurm`
  console::LaunchPlan plan;
  std::optional<console::RunFlags> slurm;
  LiveRunFiles files;
  MainWindowOptions window;
};

// Parses `arguments` (the program's name first). --help and --version print and exit, as Qt's parser does; a
// bad argument or job flag throws InputError with the message to print.
ConsoleCommandLine parseCommandLine(const QStringList& arguments);

// Does what the command line asks once the window is up: open a stored run or launch the job, then take the
// screenshots and quit if asked.
void startConsole(MainWindow& window, const ConsoleCommandLine& commandLine);

}  // namespace ringmaster::gui
