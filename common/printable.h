// SPDX-License-Identifier: GPL-3.0-or-later
// Text from outside (rank output, trace contents, run names, findings quoting them) on its way into a record
// or to a terminal or a report. Bytes that are not UTF-8 would make a record that protobuf refuses to parse
// (every string field is UTF-8), so they become U+FFFD where text enters a record; control characters would
// move the cursor, clear the screen or retitle the window, so they are shown, not obeyed.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace ringmaster {

// `text` with every control character (C0 but tab, DEL, and C1 in UTF-8) written as a visible escape: ESC as
// "^[", BEL as "^G", U+009B as "\u009b". Line breaks are kept only with `keepNewlines`.
std::string printable(std::string_view text, bool keepNewlines = false);

// Whether `text` is well-formed UTF-8 (no overlong forms, surrogates or code points past U+10FFFF), as
// protobuf requires of every string field.
bool isUtf8(std::string_view text);

// `text` as well-formed UTF-8: each byte sequence that is not (a stray byte, a character cut short, an
// overlong form, a surrogate) becomes U+FFFD, one for each maximal ill-formed part, as Unicode recommends
// (and as Qt, Python and browsers decode). Well-formed text comes back unchanged.
std::string validUtf8(std::string_view text);

// The longest length of at most `limit` bytes that does not end inside a character of `text`: where to cut
// a long line. Only a well-formed character is kept whole; ill-formed bytes may be cut anywhere.
size_t utf8Cut(std::string_view text, size_t limit);

}  // namespace ringmaster
