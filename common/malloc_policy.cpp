// SPDX-License-Identifier: GPL-3.0-or-later
#include "common/malloc_policy.h"

#include <malloc.h>

#include <climits>

namespace ringmaster {

void keepLargeAllocations(size_t keepFreeBytes) {
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, static_cast<int>(keepFreeBytes > INT_MAX ? INT_MAX : keepFreeBytes));
}

}  // namespace ringmaster
