// SPDX-License-Identifier: GPL-3.0-or-later
#include "console/models/translated.h"

#include <QCoreApplication>

namespace ringmaster::console {

QString translated(const Sentence& sentence) {
  const TranslatePattern lookUp = [](const std::string& context, const std::string& pattern) {
    return QCoreApplication::translate(context.c_str(), pattern.c_str()).toStdString();
  };
  return QString::fromStdString(render(sentence, lookUp));
}

}  // namespace ringmaster::console
