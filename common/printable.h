// SPDX-License-Identifier: GPL-3.0-or-later
// Text from outside (rank output, trace contents, run names, findings quoting them) on its way to a terminal
// or a report: control characters would move the cursor, clear the screen or retitle the window, so they are
// shown, not obeyed.
#pragma once

#include <string>
#include <string_view>

namespace ringmaster {

// `text` with every control character (C0 but tab, DEL, and C1 in UTF-8) written as a visible escape: ESC as
// "^[", BEL as "^G", U+009B as "\u009b". Line breaks are kept only with `keepNewlines`.
std::string printable(std::string_view text, bool keepNewlines = false);

// Whether `text` is well-formed UTF-8 (no overlong forms, surrogates or code points past U+10FFFF), as
// protobuf requires of every string field.
bool isUtf8(std::string_view text);

}  // namespace ringmaster
