// SPDX-License-Identifier: GPL-3.0-or-later
// Opens a stored run in the window as a user does from the Runs page, and waits until every view shows it.
#pragma once

#include <QObject>

#include "gui/main_window.h"
#include "tests/support/gui_app.h"

namespace ringmaster::test {

inline bool openAndWait(gui::MainWindow& window, int64_t runId) {
  bool shown = false;
  auto c = QObject::connect(&window, &gui::MainWindow::runShown, [&](int64_t id) { shown = id == runId; });
  window.openRun(runId);
  const bool ok = waitUntil([&] { return shown; }, 60000);
  QObject::disconnect(c);
  return ok;
}

}  // namespace ringmaster::test
