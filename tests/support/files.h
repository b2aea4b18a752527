// SPDX-License-Identifier: GPL-3.0-or-later
// Whole files as strings: what a test writes for the code under test, and what a program leaves behind.
#pragma once

#include <string>
#include <string_view>

namespace ringmaster::test {

// The bytes of `path`; empty when it is missing or cannot be read.
std::string readFile(const std::string& path);

// Replaces `path` with `bytes`; throws std::runtime_error naming the file when it cannot be written.
void writeFile(const std::string& path, std::string_view bytes);

}  // namespace ringmaster::test
