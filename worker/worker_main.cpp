// SPDX-License-Identifier: GPL-3.0-or-later
// ringmaster-worker: one rank of a data-parallel training job.
#include <csignal>

#include "worker/worker_options.h"
#include "worker/worker_run.h"

int main(int argc, char** argv) {
  // A peer that has died closes its sockets; Gloo's next write to it must fail with EPIPE and be reported as
  // this rank's error, not kill this rank by SIGPIPE as if it were the one that crashed.
  std::signal(SIGPIPE, SIG_IGN);
  auto parsed = ringmaster::worker::parseWorkerOptions(argc, argv);
  if (parsed.exit) return parsed.exitCode;
  return ringmaster::worker::runWorker(parsed.options);
}
