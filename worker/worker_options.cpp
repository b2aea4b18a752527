// SPDX-License-Identifier: GPL-3.0-or-later
#include "worker/worker_options.h"

#include <torch/version.h>

#include <CLI/CLI.hpp>
#include <iostream>

#include "common/error.h"
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
