// SPDX-License-Identifier: GPL-3.0-or-later
// The offscreen GUI tests' one QApplication, with settings and data kept in Qt's test sandbox, and a wait
// that keeps the event loop running.
#pragma once

#include <QApplication>
#include <functional>

namespace ringmaster::test {

QApplication& guiApp();

// Runs the event loop until `done` holds or `timeoutMs` passes; returns whether it held.
bool waitUntil(const std::function<bool()>& done, int timeoutMs);

}  // namespace ringmaster::test
