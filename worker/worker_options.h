// SPDX-License-Identifier: GPL-3.0-or-later
// Command line of one rank: the shared job flags plus what only a rank needs.
#pragma once

#include <string>
#include <vector>

#include "common/job_spec.h"

namespace ringmaster::worker {

struct WorkerOptions {
  v1::JobSpec spec = defaultJobSpec();
  std::string summaryJson;   // --summary-json FILE
  std::string timelineFile;  // --timeline FILE (Chrome trace JSON)
  std::string dumpParams;    // --dump-params FILE: every parameter as raw little-endian float32, in order
  // --allowed-folder DIR (repeatable, set by the agent): the job's data, model and checkpoints are opened
  // only beneath these; none: anywhere.
  std::vector<std::string> allowedFolders;
};

// Outcome of parsing argv: either options to run with, or an exit code (after --help, --version or a usage
// error, whose message has already been printed).
struct ParsedOptions {
  WorkerOptions options;
  bool exit = false;
  int exitCode = 0;
};

ParsedOptions parseWorkerOptions(int argc, char** argv);

// The versions this build links: "ringmaster-worker 0.1.0 (LibTorch 1.13.1, backends: gloo)".
std::string workerVersionText();

}  // namespace ringmaster::worker
