// SPDX-License-Identifier: GPL-3.0-or-later
// The console's languages: English (the source text) and Simplified Chinese, compiled into the program.
#pragma once

#include <QString>
#include <QStringList>

class QCoreApplication;

namespace ringmaster::gui {

// Languages offered besides English, as locale names ("zh_CN").
QStringList availableLanguages();

// Installs the translation for `language` ("zh_CN", "en", or empty for the system locale, then the
// "language" setting). Returns the language in use ("en" when none applies).
QString installTranslation(QCoreApplication& app, const QString& language);

}  // namespace ringmaster::gui
