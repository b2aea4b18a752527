// SPDX-License-Identifier: GPL-3.0-or-later
// A TCP port free on this machine's loopback right now (bound to port 0 and let go): for rank 0's MASTER_PORT
// on this machine, or a number to name an agent that serves no TCP port.
#pragma once

namespace ringmaster {

// 0 when the system gives none.
int freeLoopbackPort();

}  // namespace ringmaster
