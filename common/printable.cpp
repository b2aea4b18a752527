// SPDX-License-Identifier: GPL-3.0-or-later
#include "common/printable.h"

#include <cstdio>

namespace ringmaster {

std::string printable(std::string_view text, bool keepNewlines) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '\t' || (c == '\n' && keepNewlines)) {
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      out += '^';
      out += static_cast<char>(c + 0x40);  // caret notation, as terminals show typed control keys
    } else if (c == 0x7f) {
      out += "^?";
    } else if (c == 0xc2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
               static_cast<unsigned char>(text[i + 1]) <= 0x9f) {
      char escape[8];
      std::snprintf(escape, sizeof escape, "\\u%04x", static_cast<unsigned char>(text[i + 1]));
      out += escape;
      ++i;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

namespace {

// The length of the well-formed sequence at text[i], or 0 with `bad` set to the length of its maximal
// ill-formed part (at least 1): a lead byte that starts nothing, or a lead with the continuation bytes that
// fit it before the first that does not.
size_t sequenceAt(std::string_view text, size_t i, size_t& bad) {
  const auto lead = static_cast<unsigned char>(text[i]);
  bad = 0;
  if (lead < 0x80) return 1;
  // The second byte's range narrows for leads that could start an overlong form, a surrogate (U+D800..DFFF)
  // or a code point past U+10FFFF (Unicode's table of well-formed byte sequences).
  size_t length = 0;
  unsigned char low = 0x80, high = 0xbf;
  if (lead >= 0xc2 && lead <= 0xdf) {
    length = 2;
  } else if (lead >= 0xe0 && lead <= 0xef) {
    length = 3;
    if (lead == 0xe0) low = 0xa0;
    if (lead == 0xed) high = 0x9f;
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    length = 4;
    if (lead == 0xf0) low = 0x90;
    if (lead == 0xf4) high = 0x8f;
  } else {
    bad = 1;
    return 0;
  }
  for (size_t k = 1; k < length; ++k) {
    const bool fits = i + k < text.size() &&
                      static_cast<unsigned char>(text[i + k]) >= (k == 1 ? low : 0x80) &&
                      static_cast<unsigned char>(text[i + k]) <= (k == 1 ? high : 0xbf);
    if (!fits) {
      bad = k;
      return 0;
    }
  }
  return length;
}

}  // namespace

bool isUtf8(std::string_view text) {
  size_t bad = 0;
  for (size_t i = 0; i < text.size();) {
    const size_t length = sequenceAt(text, i, bad);
    if (length == 0) return false;
    i += length;
  }
  return true;
}

std::string validUtf8(std::string_view text) {
  if (isUtf8(text)) return std::string(text);
  std::string out;
  out.reserve(text.size() + 16);
  size_t bad = 0;
  for (size_t i = 0; i < text.size();) {
    const size_t length = sequenceAt(text, i, bad);
    if (length > 0) {
      out.append(text, i, length);
      i += length;
    } else {
      out += "\xEF\xBF\xBD";  // U+FFFD REPLACEMENT CHARACTER
      i += bad;
    }
  }
  return out;
}

size_t utf8Cut(std::string_view text, size_t limit) {
  if (limit >= text.size()) return text.size();
  // Back up over at most three continuation bytes to the lead of the character `limit` falls in.
  size_t start = limit;
  while (start > 0 && limit - start < 3 && (static_cast<unsigned char>(text[start]) & 0xc0) == 0x80) --start;
  size_t bad = 0;
  const size_t length = sequenceAt(text, start, bad);
  return length > 0 && start < limit && start + length > limit ? start : limit;
}

}  // namespace ringmaster
