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
// "language" setting), with Qt's own catalogue for it where installed. Returns the language in use ("en" when
// none applies).
QString installTranslation(QCoreApplication& app, const QString& language);

// The language of the console's installed translation ("zh_CN"), or "en" when none is installed.
QString languageInUse();

// A language's name in that language ("English", "中文"), for a menu offering it.
QString languageName(const QString& language);

}  // namespace ringmaster::gui
