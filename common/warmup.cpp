// SPDX-License-Identifier: GPL-3.0-or-later
#include "common/warmup.h"

#include <algorithm>

namespace ringmaster {

uint64_t warmupSteps(uint64_t count) {
  constexpr uint64_t kAtLeast = 5;
  const uint64_t tenth = count / 10 + (count % 10 != 0 ? 1 : 0);
  return std::min(std::max(kAtLeast, tenth), count / 2);
}

}  // namespace ringmaster
