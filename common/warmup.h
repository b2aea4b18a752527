// SPDX-License-Identifier: GPL-3.0-or-later
// The warm-up of a run: its leading steps (or samples) measure start-up, not the steady state (allocators and
// caches filling, the first batches, lazy initialisation), so throughput, step times and memory growth leave
// them out. One rule for the worker's own figures, the run summary, autotune's trials and the leak detector.
#pragma once

#include <cstdint>

namespace ringmaster {

// Of `count` steps, how many lead as warm-up: the first tenth (rounded up), at least 5, never more than half.
uint64_t warmupSteps(uint64_t count);

}  // namespace ringmaster
