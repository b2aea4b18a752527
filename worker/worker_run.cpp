// SPDX-License-Identifier: GPL-3.0-or-later
#include "worker/worker_run.h"

#include <ATen/Parallel.h>

#include <charconv>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <thread>

#include "common/error.h"
#include "common/malloc_policy.h"
#include "worker/datasets.h"
#include "worker/nccl_process_group.h"
#include "worker/rendezvous.h"
#include "worker/telemetry_sender.h"
#include "worker/torch_error.h"
#include "worker/torchscript_model.h"
#include "worker/trainer.h"

namespace ringmaster::worker {
namespace {

int fail(const std::string& who, int code, const std::string& message) {
  std::cerr << "ringmaster-worker: " << who << message << std::endl;
  return code;
}

}  // namespace

int intraOpThreads(int localWorldSize) {
  if (const char* text = std::getenv("OMP_NUM_THREADS"); text && *text) {
    int threads = 0;
    auto [end, ec] = std::from_chars(text, text + std::strlen(text), threads);
    if (ec == std::errc() && *end == '\0' && threads > 0) return threads;
  }
  int cores = static_cast<int>(std::thread::hardware_concurrency());
  return std::max(1, cores / std::max(1, localWorldSize));
}

int runWorker(const WorkerOptions& options) {
  keepLargeAllocations(size_t{1} << 30);  // activation memory stays in the process (common/malloc_policy.h)
  TorchrunEnv env;
  try {
    env = readTorchrunEnv();
  } catch (const InputError& e) {
    return fail("", 2, e.what());
  }
  const std::string who = "rank " + std::to_string(env.rank) + ": ";

  v1::JobSpec spec = options.spec;
  spec.set_world_size(static_cast<uint32_t>(env.worldSize));
  if (auto errors = validateJobSpec(spec); !errors.empty())
    return fail(who, 2, "invalid job: " + describe(errors));
  if (spec.backend() == v1::BACKEND_NCCL && !ncclBackendBuilt()) {
    return fail(who, 2,
                "--backend nccl: this build has no NCCL backend (built backends: gloo); use --backend gloo "
                "or a build with CUDA and NCCL");
  }

  try {
    at::set_num_threads(intraOpThreads(env.localWorldSize));
    const AllowedFolders folders(options.allowedFolders);
    TrainingData data = loadTrainingData(spec, folders);
    std::shared_ptr<Classifier> model = makeTrainingModel(spec, data, folders);

    Probe probe(env.rank, env.worldSize);
    probe.setTimelineOn(spec.timeline());
    // Records go to the agent (RINGMASTER_AGENT) and the --timeline file; what is left is sent when it
    // closes.
    TelemetrySession telemetry(probe, TelemetryOptions::fromEnvironment(options.timelineFile));
    const auto timeout = std::chrono::milliseconds(static_cast<int64_t>(spec.rendezvous_timeout_s() * 1000));
    Rendezvous rendezvous(env, timeout, probe);

    TrainerContext context;
    context.spec = spec;
    context.group = rendezvous.createProcessGroup(spec.backend());
    context.store = rendezvous.store();
    context.probe = &probe;
    // NCCL with a CUDA-enabled LibTorch trains on this rank's GPU; with a CPU-only LibTorch the NCCL process
    // group stages host tensors through the GPU itself.
    if (spec.backend() == v1::BACKEND_NCCL && torch::cuda::is_available()) {
      context.device = torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(env.localRank));
    }
    context.progress = &std::cout;
    context.restartCount = env.restartCount;
    context.folders = &folders;
    if (std::getenv("RINGMASTER_AGENT")) {
      context.control = TrainingControl{[&telemetry] { return telemetry.stopRequested(); },
                                        [&telemetry] { return telemetry.takeCheckpointRequest(); }};
    }

    RunSummary summary;
    {
      Trainer trainer(std::move(context), std::move(data), std::move(model));
      summary = trainer.run();
      if (!options.dumpParams.empty()) dumpParameters(trainer.model(), options.dumpParams);
    }
    summary.clockOffsetNs = rendezvous.clock().offsetNs;
    summary.clockRttNs = rendezvous.clock().rttNs;
    probe.summary(toRecord(summary));
    if (!options.summaryJson.empty()) writeSummaryJson(options.summaryJson, summary);
    rendezvous.finish();
    return 0;
  } catch (const InputError& e) {
    return fail(who, 2, e.what());
  } catch (const RendezvousError& e) {
    return fail(who, 1, e.what());
  } catch (const std::exception& e) {
    return fail(who, 1, "training failed: " + torchErrorReason(e));
  }
}

}  // namespace ringmaster::worker
