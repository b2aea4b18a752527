// SPDX-License-Identifier: GPL-3.0-or-later
// One rank from start to finish, behind a header without LibTorch (so that ringmaster-worker's main stays
// cheap).
#pragma once

#include "worker/worker_options.h"

namespace ringmaster::worker {

// Reads the torchrun environment, validates, loads the data, meets the other ranks, trains and writes the
// summary. Returns the exit code: 0 done, 1 the job failed (rendezvous, network, training), 2 bad input
// (flags, environment, data files, checkpoint). Messages go to stderr, rank 0's progress to stdout.
int runWorker(const WorkerOptions& options);

// Intra-op threads for a rank: OMP_NUM_THREADS when set, else the cores shared out among the host's ranks.
int intraOpThreads(int localWorldSize);

}  // namespace ringmaster::worker
