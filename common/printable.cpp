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

}  // namespace ringmaster
