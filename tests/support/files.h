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

// A Horovod timeline of one tensor on two ranks: a negotiation (rank 0 ready at 110 µs, rank 1 at 150 µs) and
// an all-reduce, and no steps.
inline constexpr std::string_view kTinyHorovodTimeline = R"([
{"name": "process_name", "ph": "M", "pid": 0, "args": {"name": "grad.w"}},
{"name": "NEGOTIATE_ALLREDUCE", "ph": "B", "ts": 100, "pid": 0},
{"name": "0", "ph": "X", "ts": 110, "dur": 0, "pid": 0},
{"name": "1", "ph": "X", "ts": 150, "dur": 0, "pid": 0},
{"ph": "E", "ts": 160, "pid": 0},
{"name": "ALLREDUCE", "ph": "B", "ts": 160, "pid": 0},
{"ph": "E", "ts": 400, "pid": 0}
])";

}  // namespace ringmaster::test
