// SPDX-License-Identifier: GPL-3.0-or-later
#include "gui/translations.h"

#include <QCoreApplication>
#include <QDir>
#include <QLibraryInfo>
#include <QLocale>
#include <QSettings>
#include <QTranslator>

namespace ringmaster::gui {
namespace {

// Loads `catalogue` for `locale` from `folder` into a translator owned by the application, or none.
QTranslator* installCatalogue(QCoreApplication& app, const QLocale& locale, const QString& catalogue,
                              const QString& folder) {
  auto* translator = new QTranslator(&app);
  if (!translator->load(locale, catalogue, QStringLiteral("_"), folder)) {
    delete translator;
    return nullptr;
  }
  QCoreApplication::installTranslator(translator);
  return translator;
}

}  // namespace

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
  if (wanted == QLatin1String("en")) return wanted;
  // The system's preferred languages, best first (zh_CN, zh_Hans_CN, ... all find ringmaster_zh_CN).
  const QLocale locale = wanted.isEmpty() ? QLocale::system() : QLocale(wanted);
  QTranslator* ours = installCatalogue(app, locale, QStringLiteral("ringmaster"), QStringLiteral(":/i18n"));
  if (!ours) return QStringLiteral("en");
  // Qt's own words (a question's Yes and No, the file dialog) in the same language, where Qt's translations
  // are installed (Debian's qt6-translations-l10n).
  installCatalogue(app, locale, QStringLiteral("qtbase"), QLibraryInfo::path(QLibraryInfo::TranslationsPath));
  return ours->language().isEmpty() ? wanted : ours->language();
}

QString languageInUse() {
  QCoreApplication* app = QCoreApplication::instance();
  if (!app) return QStringLiteral("en");
  for (const QTranslator* translator : app->findChildren<QTranslator*>()) {
    if (translator->filePath().startsWith(QLatin1String(":/i18n/ringmaster_"))) return translator->language();
  }
  return QStringLiteral("en");
}

QString languageName(const QString& language) {
  if (language == QLatin1String("en")) return QStringLiteral("English");
  const QLocale locale(language);
  return locale.nativeLanguageName();
}

}  // namespace ringmaster::gui
