// SPDX-License-Identifier: GPL-3.0-or-later
// A rank's end-of-run summary, written with --summary-json FILE for people, scripts and tests.
#pragma once

#include <cstdint>
#include <string>

#include "ringmaster/v1/records.pb.h"

namespace ringmaster::worker {

// Mean time per optimizer step in each phase (milliseconds).
struct PhaseMeans {
  double dataMs = 0;
  double forwardMs = 0;
  double backwardMs = 0;
  double commWaitMs = 0;
  double optimizerMs = 0;
  double totalMs = 0;
};

struct RunSummary {
  int rank = 0;
  int worldSize = 1;
  std::string engine;
  std::string backend;
  std::string model;
  std::string dataset;
  int threads = 1;               // intra-op threads of this rank
  uint64_t firstStep = 0;        // step the run started from (above 0 after --resume)
  uint64_t steps = 0;            // optimizer steps completed in all (including those before a resume)
  uint32_t epochs = 0;           // epochs completed
  uint64_t samples = 0;          // samples this rank trained on in this run
  double trainSeconds = 0;       // wall time of this run's steps (evaluation and checkpoints excluded)
  double samplesPerS = 0;        // this rank's samples / trainSeconds
  double steadySamplesPerS = 0;  // the same without the first tenth of the steps (warm-up, bucket rebuild)
  PhaseMeans phases;
  double finalLoss = 0;
  double testAccuracy = -1;   // fraction 0..1; negative when not evaluated
  std::string paramChecksum;  // FNV-1a 64 of the float32 parameters in order, hex
  uint64_t collectives = 0;   // gradient all-reduce calls the engine issued
  uint64_t bytesReduced = 0;
  uint64_t bucketRebuilds = 0;
  uint64_t negotiations = 0;  // Horovod cycles that answered tensors through the coordinator
  uint64_t cachedCycles = 0;  // Horovod cycles that answered tensors from the response cache
  int64_t clockOffsetNs = 0;  // to rank 0, measured at rendezvous
  int64_t clockRttNs = 0;
  uint64_t peakRssBytes = 0;
};

std::string summaryJson(const RunSummary& summary);
// Throws InputError naming `path` when it cannot be written.
void writeSummaryJson(const std::string& path, const RunSummary& summary);

// The part of the summary that travels as telemetry.
v1::RankSummary toRecord(const RunSummary& summary);

}  // namespace ringmaster::worker
