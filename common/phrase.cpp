// SPDX-License-Identifier: GPL-3.0-or-later
#include "common/phrase.h"

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

}  // namespace ringmaster
