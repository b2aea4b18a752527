// SPDX-License-Identifier: GPL-3.0-or-later
// A sentence for people made of a fixed pattern and the figures that go into it (%1 … %9). Diagnosis writes
// its advice, findings' summaries and evidence labels this way so that English and the GUI's translations
// come from one text: the English sentence is the pattern filled in; the GUI looks the same pattern up in its
// catalogue (the patterns are marked for lupdate where they are written, in common/) and fills the
// translation with the same figures.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace ringmaster {

struct Phrase {
  const char* context = "";  // the catalogue's context for the pattern
  const char* pattern = "";  // a string literal with %1 … %9
  std::vector<std::string> args;
};

// `pattern` with %1 … %9 replaced by args[0 … 8], in one pass: a figure holding "%2" stays as it is.
std::string fillPattern(const std::string& pattern, const std::vector<std::string>& args);

// The English sentence.
inline std::string toText(const Phrase& phrase) {
  return fillPattern(phrase.pattern, phrase.args);
}

// One pattern of a table of sentences. A figure marked in `parts` (bit i for %(i+1)) is itself a sentence of
// the same table ("rank 2 (node2)", "the others wait 8.1 ms per step, …"), translated in its turn; the others
// (numbers, names, a log line) stay as they are.
struct PatternEntry {
  const char* pattern;
  unsigned parts = 0;
};

// Looks a pattern up in a catalogue: its translation, or the pattern itself where there is none.
using TranslatePattern = std::function<std::string(const char* context, const char* pattern)>;

// `text`, an English sentence made from one of `table`'s patterns (context `context`), in the catalogue's
// language: the pattern that makes exactly `text` (the one with the most fixed text where several do)
// translated and filled with the same figures, its parts translated the same way. Nothing when no pattern
// of the table makes `text`; the caller then shows it as it is. Sentences stored before a pattern existed,
// or written by something else, stay English that way.
std::optional<std::string> translateText(const std::string& text, const std::vector<PatternEntry>& table,
                                         const char* context, const TranslatePattern& translate);

}  // namespace ringmaster
