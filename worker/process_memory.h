// SPDX-License-Identifier: GPL-3.0-or-later
// The memory figures a rank reports every step.
#pragma once

#include <cstdint>

namespace ringmaster::worker {

struct ProcessMemory {
  uint64_t rssBytes = 0;   // resident set size, from /proc/self/statm
  uint64_t heapBytes = 0;  // bytes the allocator has handed out (mallinfo2: arena + mmap'd blocks in use)
  uint64_t hostTotalBytes = 0;  // physical memory of the host
};

ProcessMemory readProcessMemory();
// Its parts: the RSS costs a read of /proc; the heap walks the allocator's free lists (tens of microseconds
// in a busy process), so a caller sampling every step may read it less often.
uint64_t readRssBytes();
uint64_t readHeapBytes();
uint64_t hostTotalBytes();

}  // namespace ringmaster::worker
