// SPDX-License-Identifier: GPL-3.0-or-later
// ringmaster-worker: one rank of a data-parallel training job.
#include "worker/worker_options.h"
#include "worker/worker_run.h"

int main(int argc, char** argv) {
  auto parsed = ringmaster::worker::parseWorkerOptions(argc, argv);
  if (parsed.exit) return parsed.exitCode;
  return ringmaster::worker::runWorker(parsed.options);
}
