// SPDX-License-Identifier: GPL-3.0-or-later
// A sentence for people kept as the message it says (v1::Sentence): a fixed pattern from one of Ringmaster's
// catalogues ("%1: host memory grows %2 MiB per step", context "ringmaster::Finding") and the figures that go
// into its %1 … %9, each typed: a text shown as it is (a name, a log line), a whole number, a decimal with
// its digits, or a sentence of its own. Findings, how runs end, advice, comparisons' verdicts and validation
// messages are made this way: the English is the pattern filled in (toText); the GUI looks each pattern up in
// its catalogue, under the sentence's own context, and fills the translation with the same figures (render).
// The patterns are marked for lupdate where they are written.
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <string>
#include <type_traits>
#include <vector>

#include "ringmaster/v1/records.pb.h"

namespace ringmaster {

using Sentence = v1::Sentence;

// A decimal figure: "8.1" for {8.123, 1}; "+2.0" for {2, 1, true}.
struct Decimal {
  double value = 0;
  int digits = 0;
  bool plusSign = false;
};

// One figure of a sentence, made from what the caller has: a text, a whole number, a Decimal or a sentence.
class Figure {
 public:
  Figure(std::string text);
  Figure(const char* text);
  template <typename Integer,
            std::enable_if_t<std::is_integral_v<Integer> && !std::is_same_v<Integer, bool>, int> = 0>
  Figure(Integer n) {
    arg_.set_integer(static_cast<int64_t>(n));
  }
  Figure(Decimal d);
  Figure(Sentence sentence);

  const Sentence::Arg& arg() const { return arg_; }

 private:
  Sentence::Arg arg_;
};

// The sentence `pattern` (a string literal from a catalogue, with %1 … %9) of `context`, with its figures.
Sentence sentence(const char* context, const char* pattern, const std::vector<Figure>& figures = {});

// Whether the sentence says nothing (no pattern).
inline bool isEmpty(const Sentence& s) {
  return s.pattern().empty();
}

// `pattern` with %1 … %9 replaced by args[0 … 8], in one pass: a figure holding "%2" stays as it is.
std::string fillPattern(const std::string& pattern, const std::vector<std::string>& args);

// A catalogue: the pattern of `context` in the reader's language, or the pattern itself where it has none.
using TranslatePattern = std::function<std::string(const std::string& context, const std::string& pattern)>;

// The sentence in the catalogue's language: its pattern translated and filled with its figures, each
// sentence among them rendered the same way in its own context. Numbers read the same in every language.
std::string render(const Sentence& sentence, const TranslatePattern& translate);
// The English sentence.
std::string toText(const Sentence& sentence);

}  // namespace ringmaster
