// SPDX-License-Identifier: GPL-3.0-or-later
#include "worker/process_memory.h"

#include <malloc.h>
#include <unistd.h>

#include <cstdio>

namespace ringmaster::worker {

ProcessMemory readProcessMemory() {
  static const uint64_t pageSize = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  static const uint64_t hostTotal = static_cast<uint64_t>(sysconf(_SC_PHYS_PAGES)) * pageSize;
  ProcessMemory memory;
  memory.hostTotalBytes = hostTotal;
  if (FILE* statm = std::fopen("/proc/self/statm", "r")) {
    unsigned long long sizePages = 0;
    unsigned long long residentPages = 0;
    if (std::fscanf(statm, "%llu %llu", &sizePages, &residentPages) == 2)
      memory.rssBytes = residentPages * pageSize;
    std::fclose(statm);
  }
  struct mallinfo2 info = mallinfo2();
  memory.heapBytes = info.uordblks + info.hblkhd;
  return memory;
}

}  // namespace ringmaster::worker
