// SPDX-License-Identifier: GPL-3.0-or-later
#include "worker/comm_benchmark.h"

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <torch/csrc/distributed/c10d/FileStore.hpp>
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <vector>

#include "common/quantiles.h"
#include "worker/gradient_engine.h"
#include "worker/nccl_process_group.h"

namespace ringmaster::worker {
namespace {

int64_t minorFaults() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_minflt;
}

double seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void barrier(c10d::ProcessGroup& group) {
  std::vector<at::Tensor> token{torch::zeros({1})};
  group.allreduce(token)->wait();
}

// Every rank runs the same number of iterations: rank 0 decides from its warm-up and tells the others.
int agreeIterations(c10d::ProcessGroup& group, double warmupSeconds, double budget) {
  const auto wanted = static_cast<int64_t>(std::clamp(budget / std::max(warmupSeconds, 1e-6), 3.0, 2000.0));
  std::vector<at::Tensor> message{torch::tensor({wanted}, torch::kInt64)};
  group.broadcast(message, c10d::BroadcastOptions{0})->wait();
  return static_cast<int>(message[0].item<int64_t>());
}

// Times `once` after two warm-up calls: appends each call's seconds to `times` and returns the minor page
// faults per call (this process, all its threads) during the timed calls.
template <typename Once>
double timeLoop(c10d::ProcessGroup& control, double budget, std::vector<double>& times, Once&& once) {
  barrier(control);
  double t0 = seconds();
  once();
  once();
  const int iterations = agreeIterations(control, (seconds() - t0) / 2, budget);
  barrier(control);
  const int64_t faults0 = minorFaults();
  for (int i = 0; i < iterations; ++i) {
    t0 = seconds();
    once();
    times.push_back(seconds() - t0);
  }
  const int64_t faults = minorFaults() - faults0;
  barrier(control);
  return static_cast<double>(faults) / iterations;
}

}  // namespace

CommBenchResult runCommBenchRank(int rank, int worldSize, const std::string& storePath,
                                 const CommBenchOptions& options) {
  torch::set_num_threads(1);  // the ranks share this host's cores
  c10::intrusive_ptr<c10d::Store> store = c10::make_intrusive<c10d::FileStore>(storePath, worldSize);
  auto glooOptions = c10d::ProcessGroupGloo::Options::create();
  glooOptions->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1"));
  c10::intrusive_ptr<c10d::ProcessGroup> group = c10::make_intrusive<c10d::ProcessGroupGloo>(
      c10::make_intrusive<c10d::PrefixStore>("gloo", store), rank, worldSize, glooOptions);

  CommBenchResult result;
  c10::intrusive_ptr<c10d::ProcessGroup> nccl;
  if (!ncclBackendBuilt()) {
    result.ncclNote = "not built (CMake found no CUDA and NCCL)";
  } else {
    try {
      nccl =
          makeNcclProcessGroup(c10::make_intrusive<c10d::PrefixStore>("nccl", store), rank, worldSize, rank);
    } catch (const std::exception& e) {
      result.ncclNote = std::string("skipped: ") + e.what();
    }
  }
  // NCCL rows only when every rank has a communicator.
  std::vector<at::Tensor> ready{torch::tensor({nccl ? 1.0f : 0.0f})};
  group->allreduce(ready)->wait();
  result.withNccl = ready[0].item<float>() == static_cast<float>(worldSize);
  if (!result.withNccl && result.ncclNote.empty())
    result.ncclNote = "skipped: not every rank could start NCCL";

  Probe probe(rank, worldSize, 1 << 12);
  EngineContext context;
  context.group = group;
  context.store = store;
  context.rank = rank;
  context.worldSize = worldSize;
  context.hyper.set_bucket_cap_mb(25);
  context.hyper.set_fusion_threshold_mb(128);
  context.hyper.set_cycle_time_ms(options.cycleTimeMs);
  context.hyper.set_stall_check_s(60);
  context.hyper.set_reduce_op(v1::REDUCE_OP_AVERAGE);
  context.probe = &probe;

  // Every path is measured in each of `rounds` rounds, the backward-based ones in an order that rotates from
  // round to round, and each figure is the median of all its rounds' calls: a burst of other work on a shared
  // machine then falls on every path alike instead of on whichever cell it happened to meet.
  const int rounds = std::max(options.rounds, 1);
  const double budget = options.secondsPerCell / rounds;
  for (int64_t bytes = options.minBytes; bytes <= options.maxBytes; bytes *= 4) {
    CommBenchRow row;
    row.bytes = bytes;
    const int64_t elements = bytes / 4;
    std::vector<at::Tensor> message{torch::full({elements}, 1.0f + rank)};

    // The gradient of sum(param * c) is c: a backward that costs one pass over the message.
    auto param = torch::zeros({elements}, torch::requires_grad());
    auto coefficient = torch::full({elements}, 0.5f + rank);
    auto backward = [&] { (param * coefficient).sum().backward(); };

    std::vector<double> raw, ncclTimes, bare, afterBackward;
    struct EngineSamples {
      std::vector<double> collectives, steps;
      double faults = 0;
    } ddpSamples, horovodSamples;
    double bareFaults = 0;
    // Each engine records its own collectives (AllreduceOp: launched .. completed); their median is the
    // engine's communication time, measured where it happens instead of as a difference of two noisy medians.
    auto step = [&](GradientEngine& engine, std::vector<double>& collectives) {
      engine.beforeBackward(0, true);
      backward();
      engine.finishBackward();
      for (const auto& record : probe.buffer().drain(1 << 12)) {
        if (record.has_allreduce()) {
          collectives.push_back(
              static_cast<double>(record.allreduce().end_ns() - record.allreduce().start_ns()) * 1e-9);
        }
      }
    };
    auto engineRound = [&](GradientEngine& engine, EngineSamples& samples) {
      std::vector<double> collectives;
      samples.faults += timeLoop(*group, budget, samples.steps, [&] { step(engine, collectives); }) / rounds;
      // The warm-up calls' collectives (the first one builds the buckets) are not the engine's steady state.
      const size_t warmup = std::min<size_t>(2, collectives.size());
      samples.collectives.insert(samples.collectives.end(), collectives.begin() + warmup, collectives.end());
    };
    const std::vector<std::function<void()>> backwardPaths{
        [&] { bareFaults += timeLoop(*group, budget, bare, backward) / rounds; },
        // The control for the engines: the same backward, then a raw all-reduce of its gradient, timed alone.
        // It runs where an engine's collective runs (after a backward, the peer maybe still computing),
        // without an engine.
        [&] {
          std::vector<double> calls, collectives;
          timeLoop(*group, budget, calls, [&] {
            backward();
            std::vector<at::Tensor> grad{param.grad()};
            const double t0 = seconds();
            group->allreduce(grad)->wait();
            collectives.push_back(seconds() - t0);
          });
          // The all-reduces of the timed calls (not of the two warm-up calls), without their backward.
          afterBackward.insert(afterBackward.end(), collectives.begin() + 2, collectives.end());
        },
        [&] {
          auto ddp = makeDdpEngine(context, {param});
          engineRound(*ddp, ddpSamples);
        },
        [&] {
          auto horovod = makeHorovodEngine(context, {{"gradient", param}});
          engineRound(*horovod, horovodSamples);
        },
    };
    for (int round = 0; round < rounds; ++round) {
      timeLoop(*group, budget, raw, [&] { group->allreduce(message)->wait(); });
      if (result.withNccl) {
        timeLoop(*group, budget, ncclTimes, [&] { nccl->allreduce(message)->wait(); });
      }
      for (size_t i = 0; i < backwardPaths.size(); ++i) {
        backwardPaths[(i + static_cast<size_t>(round)) % backwardPaths.size()]();
      }
    }
    row.raw = stats::median(raw);
    if (result.withNccl) row.nccl = stats::median(ncclTimes);
    row.rawAfterBackward = stats::median(afterBackward);
    const double bareStep = stats::median(bare);
    row.bareFaults = bareFaults;
    auto finish = [&](const EngineSamples& samples, EngineCell& cell) {
      cell.collective = stats::median(samples.collectives);
      cell.added = stats::median(samples.steps) - bareStep;
      cell.addedFaults = samples.faults - bareFaults;
    };
    finish(ddpSamples, row.ddp);
    finish(horovodSamples, row.horovod);
    result.rows.push_back(row);
    if (rank == 0)
      std::fprintf(stderr, "  %d ranks: %lld bytes done\n", worldSize, static_cast<long long>(bytes));
  }
  return result;
}

}  // namespace ringmaster::worker
