// SPDX-License-Identifier: GPL-3.0-or-later
#include "console/models/translated.h"

#include <QCoreApplication>

namespace ringmaster::console {

namespace {

std::string lookUp(const char* context, const char* pattern) {
  return QCoreApplication::translate(context, pattern).toStdString();
}

}  // namespace

QString translated(const Phrase& phrase) {
  return QString::fromStdString(fillPattern(lookUp(phrase.context, phrase.pattern), phrase.args));
}

QString translated(const std::string& english, const std::vector<PatternEntry>& table, const char* context) {
  return QString::fromStdString(translateText(english, table, context, lookUp).value_or(english));
}

}  // namespace ringmaster::console
