// SPDX-License-Identifier: GPL-3.0-or-later
// ringmaster-worker: one rank of a data-parallel training job.
#include <iostream>

#include "common/job_spec.h"
#include "worker/worker_options.h"

int main(int argc, char** argv) {
  auto parsed = ringmaster::worker::parseWorkerOptions(argc, argv);
  if (parsed.exit) return parsed.exitCode;
  auto errors = ringmaster::validateJobSpec(parsed.options.spec);
  if (!errors.empty()) {
    std::cerr << "ringmaster-worker: invalid job: " << ringmaster::describe(errors) << "\n";
    return 2;
  }
  std::cerr << "ringmaster-worker: the training runtime is not part of this build yet\n";
  return 3;
}
