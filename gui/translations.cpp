// SPDX-License-Identifier: GPL-3.0-or-later
#include "gui/translations.h"

#include <QCoreApplication>
#include <QDir>
#include <QLocale>
#include <QSettings>
#include <QTranslator>

namespace ringmaster::gui {

QStringList availableLanguages() {
  QStringList languages;
  for (const QString& file : QDir(QStringLiteral(":/i18n")).entryList({QStringLiteral("ringmaster_*.qm")})) {
    languages << file.mid(11, file.size() - 11 - 3);  // "ringmaster_" ... ".qm"
  }
  return languages;
}

QString installTranslation(QCoreApplication& app, const QString& language) {
  QString wanted = language;
  if (wanted.isEmpty()) wanted = QSettings().value(QStringLiteral("language")).toString();
  auto* translator = new QTranslator(&app);
  bool loaded = false;
  if (wanted.isEmpty()) {
    // The system's preferred languages, best first (zh_CN, zh_Hans_CN, ... all find ringmaster_zh_CN).
    loaded = translator->load(QLocale::system(), QStringLiteral("ringmaster"), QStringLiteral("_"),
                              QStringLiteral(":/i18n"));
  } else if (wanted != QLatin1String("en")) {
    loaded = translator->load(QLocale(wanted), QStringLiteral("ringmaster"), QStringLiteral("_"),
                              QStringLiteral(":/i18n"));
  }
  if (!loaded) {
    delete translator;
    return QStringLiteral("en");
  }
  QCoreApplication::installTranslator(translator);
  return translator->language().isEmpty() ? wanted : translator->language();
}

}  // namespace ringmaster::gui
