// SPDX-License-Identifier: GPL-3.0-or-later
// The training loop of one rank: data through the sampler, forward, backward with the gradient engine's
// hooks, the engine's wait, the optimizer; the learning-rate schedule, accumulation, evaluation at each
// epoch's end, checkpoints, injected faults, and a StepSample / MemorySample / timeline events per step
// through the Probe.
#pragma once

#include <torch/torch.h>

#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <torch/csrc/distributed/c10d/Store.hpp>
#include <vector>

#include "common/job_spec.h"
#include "worker/checkpoint.h"
#include "worker/datasets.h"
#include "worker/distributed_sampler.h"
#include "worker/gradient_engine.h"
#include "worker/models.h"
#include "worker/probe.h"
#include "worker/run_summary.h"

namespace ringmaster::worker {

// Requests from the console (through the agent and the telemetry sender). Each rank may see a request at a
// different step, so the trainer agrees on them with a small all-reduce every few steps and acts at the same
// step everywhere.
struct TrainingControl {
  std::function<bool()> stopRequested;  // stop after the current step (saving a checkpoint if configured)
  std::function<bool()> takeCheckpointRequest;  // true once per "checkpoint now"
};

struct TrainerContext {
  v1::JobSpec spec;  // world_size matches the group's
  c10::intrusive_ptr<c10d::ProcessGroup> group;
  c10::intrusive_ptr<c10d::Store> store;
  Probe* probe = nullptr;
  torch::Device device = torch::kCPU;
  std::ostream* progress = nullptr;        // where rank 0 prints its progress lines; null for none
  std::optional<TrainingControl> control;  // none: no console is listening
  int restartCount = 0;  // a restart (above 0) resumes from a checkpoint only if there is one
  // Where checkpoints may be written and read (what the agent allows); it outlives the trainer.
  const AllowedFolders* folders = &AllowedFolders::anywhere();
};

class Trainer {
 public:
  // Builds the optimizer and the engine for `model`, restores a checkpoint when the spec says --resume, and
  // brings every rank to rank 0's state. `data` comes from loadTrainingData and `model` from
  // makeTrainingModel, which run before the rendezvous so that a rank with a bad data or model file fails
  // fast.
  Trainer(TrainerContext context, TrainingData data, std::shared_ptr<Classifier> model);

  // Trains to the spec's steps or epochs and returns this rank's summary.
  RunSummary run();

  const torch::nn::Module& model() const { return *model_; }

 private:
  struct StepTotals;

  void trainStep(StepTotals& totals);
  double evaluate();
  void saveCheckpointIfRank0();
  // Every rank's pending control requests, agreed by an all-reduce (max): {stop, checkpoint}.
  std::pair<bool, bool> agreeOnControl();
  double learningRate(uint64_t step) const;
  void zeroGradients();
  void injectFaults(uint64_t step);
  // Rank 0's progress stream, null on the other ranks or when there is none.
  std::ostream* progress() const { return rank_ == 0 ? context_.progress : nullptr; }

  TrainerContext context_;
  const v1::HyperParameters& hyper_;
  int rank_;
  int worldSize_;
  Probe& probe_;
  TrainingData data_;
  DistributedSampler sampler_;
  torch::Tensor epochIndices_;
  std::shared_ptr<Classifier> model_;
  std::unique_ptr<torch::optim::Optimizer> optimizer_;
  std::unique_ptr<GradientEngine> engine_;
  TrainingPosition position_;
  uint64_t firstStep_ = 0;
  bool resumed_ = false;  // restored from a checkpoint
  int64_t microBatchesPerEpoch_ = 0;
  uint64_t stepsPerEpoch_ = 0;
  uint64_t targetSteps_ = 0;
  uint32_t epochsCompleted_ = 0;
  double lastLoss_ = 0;
  std::vector<std::unique_ptr<char[]>> leaked_;  // --inject-leak: kept alive on purpose
};

}  // namespace ringmaster::worker
