// SPDX-License-Identifier: GPL-3.0-or-later
// Sentences of common/ (advice, findings' summaries, validation messages: English patterns with figures,
// common/phrase.h) in the interface's language, through the installed Qt translators.
#pragma once

#include <QString>
#include <string>
#include <vector>

#include "common/phrase.h"

namespace ringmaster::console {

// The phrase's pattern looked up in the catalogue under its context and filled with its figures.
QString translated(const Phrase& phrase);
// `english`, made from one of `table`'s patterns, translated (translateText); as it is when none makes it.
QString translated(const std::string& english, const std::vector<PatternEntry>& table, const char* context);

}  // namespace ringmaster::console
