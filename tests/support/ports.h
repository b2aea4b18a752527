// SPDX-License-Identifier: GPL-3.0-or-later
// Loopback ports for the agents, ranks and rendezvous that tests and benchmarks start.
#pragma once

namespace ringmaster::test {

// A TCP port on 127.0.0.1 that was free a moment ago (the kernel's pick); throws std::runtime_error when the
// kernel offers none.
int freePort();

}  // namespace ringmaster::test
