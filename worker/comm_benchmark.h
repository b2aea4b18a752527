// SPDX-License-Identifier: GPL-3.0-or-later
// The measuring half of bench/allreduce, kept in rm_train so that LibTorch stays inside worker/: one rank
// times raw collectives and each engine's communication path for a range of message sizes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ringmaster::worker {

struct CommBenchOptions {
  int64_t minBytes = 4 << 10;
  int64_t maxBytes = int64_t{256} << 20;
  double secondsPerCell = 0.4;  // measuring time per (size, path), after warm-up, over all rounds
  int rounds = 3;               // each path measured this many times per size, in turn with the others
  double cycleTimeMs = 1;       // Horovod cycle
};

// One engine's figures for one message size, in seconds (medians).
struct EngineCell {
  double collective =
      0;             // the engine's all-reduce, launched to completed, as its own AllreduceOp records say
  double added = 0;  // the engine's whole step minus the same backward without it (copies, division,
                     // negotiation and the wait included); noisy, since it is a difference of two medians
  double addedFaults =
      0;  // minor page faults per step beyond the bare backward's (all of the rank's threads)
};

// Seconds per all-reduce of one message size on each path; nccl < 0 when there is no NCCL row.
struct CommBenchRow {
  int64_t bytes = 0;
  double raw = 0;               // group->allreduce(tensor)->wait() on Gloo
  double rawAfterBackward = 0;  // the same, each call right after a backward that made the tensor (no engine)
  double bareFaults = 0;        // minor page faults per bare backward (all of the rank's threads)
  EngineCell ddp;               // DDP engine: hook, bucket, all-reduce, wait
  EngineCell horovod;           // Horovod engine: submit, negotiate, (fuse), all-reduce, synchronize
  double nccl = -1;             // raw NCCL all-reduce of the CPU tensor staged through the GPU
};

struct CommBenchResult {
  std::vector<CommBenchRow> rows;
  bool withNccl = false;
  std::string ncclNote;  // why there are no NCCL rows
};

// Runs one rank of the benchmark; ranks meet through a c10d::FileStore at `storePath`. Every rank returns the
// figures it measured (rank 0's are the ones to print). Messages go in powers of 4 from minBytes to maxBytes.
CommBenchResult runCommBenchRank(int rank, int worldSize, const std::string& storePath,
                                 const CommBenchOptions& options);

}  // namespace ringmaster::worker
