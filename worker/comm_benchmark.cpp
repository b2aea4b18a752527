// SPDX-License-Identifier: GPL-3.0-or-later
#include "worker/comm_benchmark.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <torch/csrc/distributed/c10d/FileStore.hpp>
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <vector>

#include "worker/gradient_engine.h"
#include "worker/nccl_process_group.h"

namespace ringmaster::worker {
namespace {

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

// The middle value (the upper one of an even count).
double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::nth_element(values.begin(), values.begin() + static_cast<long>(values.size() / 2), values.end());
  return values[values.size() / 2];
}

// Seconds per call of `once` after two warm-up calls: the median of the calls, which shrugs off the scheduler
// hiccups of a machine shared with other work.
template <typename Once>
double timeLoop(c10d::ProcessGroup& control, double budget, Once&& once) {
  barrier(control);
  double t0 = seconds();
  once();
  once();
  const int iterations = agreeIterations(control, (seconds() - t0) / 2, budget);
  barrier(control);
  std::vector<double> times(iterations);
  for (auto& time : times) {
    t0 = seconds();
    once();
    time = seconds() - t0;
  }
  barrier(control);
  return median(std::move(times));
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

  for (int64_t bytes = options.minBytes; bytes <= options.maxBytes; bytes *= 4) {
    CommBenchRow row;
    row.bytes = bytes;
    const int64_t elements = bytes / 4;
    std::vector<at::Tensor> message{torch::full({elements}, 1.0f + rank)};
    row.raw = timeLoop(*group, options.secondsPerCell, [&] { group->allreduce(message)->wait(); });
    if (result.withNccl) {
      row.nccl = timeLoop(*group, options.secondsPerCell, [&] { nccl->allreduce(message)->wait(); });
    }

    // The gradient of sum(param * c) is c: a backward that costs one pass over the message.
    auto param = torch::zeros({elements}, torch::requires_grad());
    auto coefficient = torch::full({elements}, 0.5f + rank);
    auto backward = [&] { (param * coefficient).sum().backward(); };
    const double bare = timeLoop(*group, options.secondsPerCell, backward);
    // The control for the engines: the same backward, then a raw all-reduce of its gradient, timed alone. It
    // runs where an engine's collective runs (after a backward, the peer maybe still computing), without an
    // engine.
    {
      std::vector<double> afterBackward;
      timeLoop(*group, options.secondsPerCell, [&] {
        backward();
        std::vector<at::Tensor> grad{param.grad()};
        const double t0 = seconds();
        group->allreduce(grad)->wait();
        afterBackward.push_back(seconds() - t0);
      });
      row.rawAfterBackward = median(afterBackward);
    }
    // Each engine records its own collectives (AllreduceOp: launched .. completed); their median is the
    // engine's communication time, measured where it happens instead of as a difference of two noisy medians.
    std::vector<double> collectiveSeconds;
    auto step = [&](GradientEngine& engine) {
      engine.beforeBackward(0, true);
      backward();
      engine.finishBackward();
      for (const auto& record : probe.buffer().drain(1 << 12)) {
        if (record.has_allreduce()) {
          collectiveSeconds.push_back(
              static_cast<double>(record.allreduce().end_ns() - record.allreduce().start_ns()) * 1e-9);
        }
      }
    };
    auto engineCell = [&](GradientEngine& engine, EngineCell& cell) {
      collectiveSeconds.clear();
      cell.added = timeLoop(*group, options.secondsPerCell, [&] { step(engine); }) - bare;
      cell.collective = median(collectiveSeconds);
    };
    {
      auto ddp = makeDdpEngine(context, {param});
      engineCell(*ddp, row.ddp);
    }
    {
      auto horovod = makeHorovodEngine(context, {{"gradient", param}});
      engineCell(*horovod, row.horovod);
    }
    result.rows.push_back(row);
    if (rank == 0)
      std::fprintf(stderr, "  %d ranks: %lld bytes done\n", worldSize, static_cast<long long>(bytes));
  }
  return result;
}

}  // namespace ringmaster::worker
