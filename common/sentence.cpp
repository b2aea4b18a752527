// SPDX-License-Identifier: GPL-3.0-or-later
#include "common/sentence.h"

#include <algorithm>
#include <cstdio>
#include <utility>

namespace ringmaster {

Figure::Figure(std::string text) {
  arg_.set_text(std::move(text));
}

Figure::Figure(const char* text) {
  arg_.set_text(text);
}

Figure::Figure(Decimal d) {
  auto* decimal = arg_.mutable_decimal();
  decimal->set_value(d.value);
  decimal->set_digits(static_cast<uint32_t>(std::clamp(d.digits, 0, 9)));
  decimal->set_plus_sign(d.plusSign);
}

Figure::Figure(Sentence sentence) {
  *arg_.mutable_sentence() = std::move(sentence);
}

Sentence sentence(const char* context, const char* pattern, const std::vector<Figure>& figures) {
  Sentence s;
  s.set_context(context);
  s.set_pattern(pattern);
  for (const Figure& f : figures) *s.add_args() = f.arg();
  return s;
}

std::string fillPattern(const std::string& pattern, const std::vector<std::string>& args) {
  std::string out;
  out.reserve(pattern.size() + 16 * args.size());
  for (size_t i = 0; i < pattern.size(); ++i) {
    const char next = i + 1 < pattern.size() ? pattern[i + 1] : '\0';
    if (pattern[i] == '%' && next >= '1' && next <= '9' && size_t(next - '1') < args.size()) {
      out += args[size_t(next - '1')];
      ++i;
    } else {
      out += pattern[i];
    }
  }
  return out;
}

namespace {

// Sentences inside sentences go this deep at most; a stored sentence nested deeper (a damaged or hostile
// file) shows its innermost parts as "…".
constexpr int kDeepest = 8;

std::string decimalText(const Sentence::Decimal& d) {
  char text[64];
  const int digits = static_cast<int>(std::min<uint32_t>(d.digits(), 9));
  std::snprintf(text, sizeof text, d.plus_sign() ? "%+.*f" : "%.*f", digits, d.value());
  return text;
}

std::string renderAt(const Sentence& s, const TranslatePattern& translate, int depth) {
  if (depth > kDeepest) return "…";
  std::vector<std::string> args;
  args.reserve(static_cast<size_t>(s.args_size()));
  for (const Sentence::Arg& a : s.args()) {
    switch (a.value_case()) {
      case Sentence::Arg::kText:
        args.push_back(a.text());
        break;
      case Sentence::Arg::kInteger:
        args.push_back(std::to_string(a.integer()));
        break;
      case Sentence::Arg::kDecimal:
        args.push_back(decimalText(a.decimal()));
        break;
      case Sentence::Arg::kSentence:
        args.push_back(renderAt(a.sentence(), translate, depth + 1));
        break;
      case Sentence::Arg::VALUE_NOT_SET:
        args.emplace_back();
        break;
    }
  }
  return fillPattern(translate ? translate(s.context(), s.pattern()) : s.pattern(), args);
}

}  // namespace

std::string render(const Sentence& sentence, const TranslatePattern& translate) {
  return renderAt(sentence, translate, 0);
}

std::string toText(const Sentence& sentence) {
  return renderAt(sentence, nullptr, 0);
}

}  // namespace ringmaster
