// SPDX-License-Identifier: GPL-3.0-or-later
// Command lines as a person reads them and a POSIX shell takes them back.
#pragma once

#include <string>
#include <vector>

namespace ringmaster {

// `word` as a shell reads it back: as it is when it holds only letters, digits and -_./=:,+@%, else in single
// quotes (a quote inside as '\'').
std::string shellQuoted(const std::string& word);

// The words joined by spaces, each shellQuoted().
std::string shellLine(const std::vector<std::string>& words);

}  // namespace ringmaster
