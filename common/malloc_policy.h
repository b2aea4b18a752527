// SPDX-License-Identifier: GPL-3.0-or-later
// How our processes ask glibc's malloc to treat large blocks.
//
// Training frees and allocates the same large activation buffers every step, and the telemetry path the same
// large message buffers every batch (a 4096-record request is ~160 KiB). By default glibc hands big blocks
// back to the kernel (mmap/munmap below its adaptive threshold, heap trimming above 128 KiB free) and the
// next use faults them in again: a third of a ResNet step on our VMs, half the agent's CPU at a million
// records a second. A fixed mmap threshold of 32 MiB (glibc's ceiling) and a high trim threshold keep them in
// the process.
#pragma once

#include <cstddef>

namespace ringmaster {

// Call once at start of main, before threads. `keepFreeBytes`: free memory at the top of the heap kept rather
// than trimmed (the process's steady working set is a good value).
void keepLargeAllocations(size_t keepFreeBytes);

}  // namespace ringmaster
