// SPDX-License-Identifier: GPL-3.0-or-later
// What a LibTorch error says for a person: its message without the TorchScript traceback or the C++ backtrace
// c10::Error carries.
#pragma once

#include <exception>
#include <string>

namespace ringmaster::worker {

// "mat1 and mat2 shapes cannot be multiplied (2x784 and 100x10)" out of a c10::Error, or the first line of
// any other exception's message; at most about 400 bytes, and UTF-8 (what is not becomes U+FFFD).
std::string torchErrorReason(const std::exception& e);

}  // namespace ringmaster::worker
