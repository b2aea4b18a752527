// SPDX-License-Identifier: GPL-3.0-or-later
#include "worker/worker_options.h"

#include <torch/version.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdlib>
#include <iostream>

#include "common/error.h"
#include "common/job_spec.h"
#include "jobflags/job_flags.h"
#include "ringmaster/version.h"

namespace ringmaster::worker {

std::string workerVersionText() {
  std::string backends = "gloo";
#ifdef RINGMASTER_HAVE_NCCL
  backends += ", nccl";
#endif
  return std::string("ringmaster-worker ") + RINGMASTER_VERSION + " (LibTorch " + TORCH_VERSION +
         ", backends: " + backends + ")";
}

namespace {

// The agent tells every rank how often to check its replicas (RINGMASTER_CHECK_REPLICAS_EVERY, steps; 0 =
// never), as it tells a user's program; the job spec's field says the same (0 there is the default).
void checkReplicasEveryFromEnvironment(v1::JobSpec& spec) {
  const char* text = std::getenv("RINGMASTER_CHECK_REPLICAS_EVERY");
  if (!text || !*text) return;
  char* end = nullptr;
  errno = 0;
  const long every = std::strtol(text, &end, 10);
  if (errno != 0 || *end != '\0' || every < 0 || every > kMostCheckReplicasEvery) {
    std::cerr << "ringmaster-worker: RINGMASTER_CHECK_REPLICAS_EVERY=" << text
              << " is not a number of steps from 0 to " << kMostCheckReplicasEvery
              << "; replicas are checked every " << kDefaultCheckReplicasEvery << " steps" << std::endl;
    return;
  }
  spec.set_check_replicas_every(every == 0 ? -1 : static_cast<int32_t>(every));
}

}  // namespace

ParsedOptions parseWorkerOptions(int argc, char** argv) {
  ParsedOptions parsed;
  WorkerOptions& o = parsed.options;
  CLI::App app{
      "One rank of a Ringmaster data-parallel training job.\n"
      "Reads RANK LOCAL_RANK WORLD_SIZE LOCAL_WORLD_SIZE MASTER_ADDR MASTER_PORT as torchrun sets them.",
      "ringmaster-worker"};
  app.set_version_flag("--version", workerVersionText());
  addJobFlags(app, o.spec);
  app.add_option("--summary-json", o.summaryJson, "Write this rank's run summary as JSON to FILE")
      ->type_name("FILE");
  app.add_option("--timeline", o.timelineFile, "Write the timeline as Chrome trace JSON to FILE")
      ->type_name("FILE");
  app.add_option("--dump-params", o.dumpParams,
                 "Write every parameter at the end as raw little-endian float32, in parameter order, to FILE")
      ->type_name("FILE");
  app.add_option("--allowed-folder", o.allowedFolders,
                 "Open the job's data, model and checkpoints only beneath DIR, an absolute folder without "
                 "links (repeatable; the agent gives the folders its owner allows with --allow-folder)")
      ->type_name("DIR")
      ->allow_extra_args(false);
  try {
    app.parse(argc, argv);
    checkReplicasEveryFromEnvironment(o.spec);
  } catch (const CLI::ParseError& e) {
    parsed.exit = true;
    parsed.exitCode = app.exit(e);
    if (parsed.exitCode != 0) parsed.exitCode = 2;
    return parsed;
  } catch (const InputError& e) {
    std::cerr << "ringmaster-worker: " << e.what() << "\nRun with --help for more information.\n";
    parsed.exit = true;
    parsed.exitCode = 2;
  }
  return parsed;
}

}  // namespace ringmaster::worker
