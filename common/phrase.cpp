// SPDX-License-Identifier: GPL-3.0-or-later
#include "common/phrase.h"

#include <map>
#include <string_view>

namespace ringmaster {

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

// A pattern cut into fixed text and figures: literal, figure, literal, …, figure, literal (either literal may
// be empty).
struct Pieces {
  std::vector<std::string> literals;
  std::vector<int> figures;  // 0 for %1
};

Pieces cut(std::string_view pattern) {
  Pieces p;
  p.literals.emplace_back();
  for (size_t i = 0; i < pattern.size(); ++i) {
    const char next = i + 1 < pattern.size() ? pattern[i + 1] : '\0';
    if (pattern[i] == '%' && next >= '1' && next <= '9') {
      p.figures.push_back(next - '1');
      p.literals.emplace_back();
      ++i;
    } else {
      p.literals.back() += pattern[i];
    }
  }
  return p;
}

// Sentences inside sentences go this deep at most.
constexpr int kDeepest = 8;

struct Matcher {
  const std::vector<PatternEntry>& table;
  const char* context;
  const TranslatePattern& translate;

  // Each text is looked at once: a part is tried at every place its sentence might end.
  mutable std::map<std::string, std::optional<std::string>, std::less<>> seen;

  std::optional<std::string> sentence(std::string_view text, int depth) const {
    if (depth > kDeepest) return std::nullopt;
    if (auto it = seen.find(text); it != seen.end()) return it->second;
    auto found = firstLook(text, depth);
    seen.emplace(std::string(text), found);
    return found;
  }

  // Whether the fixed pieces of `pieces` occur in `text` in their order, the first at its start and the
  // last at its end: a pattern that fails this cannot make the text.
  static bool mayMake(const Pieces& pieces, std::string_view text) {
    const std::string& first = pieces.literals.front();
    const std::string& last = pieces.literals.back();
    if (text.substr(0, first.size()) != first) return false;
    if (pieces.figures.empty()) return text == first;
    if (text.size() < first.size() + last.size() || text.substr(text.size() - last.size()) != last)
      return false;
    size_t at = first.size();
    for (size_t i = 1; i + 1 < pieces.literals.size(); ++i) {
      at = text.find(pieces.literals[i], at);
      if (at == std::string_view::npos) return false;
      at += pieces.literals[i].size();
    }
    return at <= text.size() - last.size();
  }

  std::optional<std::string> firstLook(std::string_view text, int depth) const {
    std::optional<std::string> best;
    size_t bestFixed = 0;
    for (const PatternEntry& entry : table) {
      const Pieces pieces = cut(entry.pattern);
      size_t fixed = 0;
      for (const auto& l : pieces.literals) fixed += l.size();
      if (best && fixed <= bestFixed) continue;
      if (!mayMake(pieces, text)) continue;
      std::vector<std::optional<std::string>> args(9);
      if (!figures(entry, pieces, 0, text, pieces.literals[0].size(), args, depth)) continue;
      std::vector<std::string> filled;
      for (auto& a : args) filled.push_back(a ? *a : std::string());
      while (!filled.empty() && !args[filled.size() - 1]) filled.pop_back();
      best = fillPattern(translate(context, entry.pattern), filled);
      bestFixed = fixed;
    }
    return best;
  }

  // Matches figures[k] onwards against text[at…]: each figure ends where the next literal is found (the
  // nearest place first), the last literal at the end of the text.
  bool figures(const PatternEntry& entry, const Pieces& pieces, size_t k, std::string_view text, size_t at,
               std::vector<std::optional<std::string>>& args, int depth) const {
    if (k == pieces.figures.size()) return at == text.size();
    const std::string& after = pieces.literals[k + 1];
    const bool last = k + 1 == pieces.figures.size();
    const int figure = pieces.figures[k];
    const bool part = (entry.parts >> figure) & 1u;
    for (size_t end = at;; ++end) {
      if (last) {
        end = text.size() >= after.size() ? text.size() - after.size() : std::string_view::npos;
        if (end == std::string_view::npos || end < at || text.substr(end) != after) return false;
      } else {
        end = text.find(after, end);
        if (end == std::string_view::npos) return false;
      }
      const std::string_view value = text.substr(at, end - at);
      std::optional<std::string> shown;
      if (part) {
        shown = value.empty() ? std::nullopt : sentence(value, depth + 1);
      } else {
        shown = std::string(value);
      }
      // A figure that appears twice must be the same text both times.
      if (shown) {
        const auto saved = args[size_t(figure)];
        if (!saved || *saved == *shown) {
          args[size_t(figure)] = shown;
          if (figures(entry, pieces, k + 1, text, end + after.size(), args, depth)) return true;
          args[size_t(figure)] = saved;
        }
      }
      if (last) return false;
    }
  }
};

}  // namespace

std::optional<std::string> translateText(const std::string& text, const std::vector<PatternEntry>& table,
                                         const char* context, const TranslatePattern& translate) {
  return Matcher{table, context, translate, {}}.sentence(text, 0);
}

}  // namespace ringmaster
