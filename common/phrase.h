// SPDX-License-Identifier: GPL-3.0-or-later
// A sentence for people made of a fixed pattern and the figures that go into it (%1 … %9). Diagnosis writes
// its advice and evidence labels this way so that English and the GUI's translations come from one text: the
// English sentence is the pattern filled in; the GUI looks the same pattern up in its catalogue (the patterns
// are marked for lupdate where they are written, in common/) and fills the translation with the same figures.
#pragma once

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

}  // namespace ringmaster
