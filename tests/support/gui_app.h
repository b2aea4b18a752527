// SPDX-License-Identifier: GPL-3.0-or-later
// The offscreen GUI tests' one QApplication, with settings and data kept in Qt's test sandbox, and a wait
// that keeps the event loop running.
#pragma once

#include <QApplication>
#include <QString>
#include <QStringList>
#include <functional>

namespace ringmaster::test {

QApplication& guiApp();

// Runs the event loop until `done` holds or `timeoutMs` passes; returns whether it held.
bool waitUntil(const std::function<bool()>& done, int timeoutMs);

// Answers the next modal message box, as a user would, with the button whose text is `answer` (or rejects it
// when it has none) and keeps the box's text in `*asked`. Call it before the click that asks; it gives up
// when no box opens within 30 s. `buttons`, when given, gets the texts of the box's buttons.
void answerNextQuestion(const QString& answer, QString* asked, QStringList* buttons = nullptr);

}  // namespace ringmaster::test
