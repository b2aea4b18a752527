// SPDX-License-Identifier: GPL-3.0-or-later
// Ringmaster's sentences (findings' summaries, how runs ended, advice, verdicts, validation messages:
// common/sentence.h) in the interface's language, through the installed Qt translators.
#pragma once

#include <QString>

#include "common/sentence.h"

namespace ringmaster::console {

// Each pattern of the sentence looked up in the catalogue under its own context, filled with its figures.
QString translated(const Sentence& sentence);

}  // namespace ringmaster::console
