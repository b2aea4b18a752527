// SPDX-License-Identifier: GPL-3.0-or-later
#include "worker/trainer.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <iomanip>
#include <iostream>
#include <thread>

#include "common/clock.h"
#include "common/error.h"
#include "common/job_spec.h"
#include "common/warmup.h"
#include "worker/process_memory.h"
#include "worker/replica_hashes.h"
#include "worker/torchscript_model.h"

namespace ringmaster::worker {

// Sums over the steps of this run, for the summary.
struct Trainer::StepTotals {
  uint64_t steps = 0;
  uint64_t samples = 0;
  int64_t dataNs = 0, forwardNs = 0, backwardNs = 0, commWaitNs = 0, optimizerNs = 0, totalNs = 0;
  int64_t wallNs = 0;       // step times plus per-step bookkeeping (records, memory sample)
  uint64_t steadyFrom = 0;  // steps before this one are warm-up
  uint64_t steadySamples = 0;
  int64_t steadyNs = 0;
  uint64_t peakRss = 0;
};

namespace {

std::unique_ptr<torch::optim::Optimizer> makeOptimizer(const v1::HyperParameters& hyper,
                                                       std::vector<torch::Tensor> parameters) {
  if (hyper.optimizer() == v1::OPTIMIZER_ADAM) {
    return std::make_unique<torch::optim::Adam>(std::move(parameters), torch::optim::AdamOptions(hyper.lr()));
  }
  return std::make_unique<torch::optim::SGD>(std::move(parameters),
                                             torch::optim::SGDOptions(hyper.lr()).momentum(hyper.momentum()));
}

template <typename T>
T ceilDiv(T a, T b) {
  return (a + b - 1) / b;
}

}  // namespace

Trainer::Trainer(TrainerContext context, TrainingData data, std::shared_ptr<Classifier> model)
    : context_(std::move(context)),
      hyper_(context_.spec.hyper()),
      rank_(context_.group->getRank()),
      worldSize_(context_.group->getSize()),
      probe_(*context_.probe),
      data_(std::move(data)),
      sampler_(data_.train.size(), worldSize_, rank_, /*shuffle=*/true, hyper_.seed()),
      model_(std::move(model)) {
  model_->to(context_.device);
  optimizer_ = makeOptimizer(hyper_, model_->parameters());

  microBatchesPerEpoch_ = ceilDiv<int64_t>(sampler_.numSamples(), hyper_.batch_size());
  stepsPerEpoch_ = ceilDiv<uint64_t>(microBatchesPerEpoch_, hyper_.accumulation_steps());
  targetSteps_ = hyper_.steps() > 0 ? hyper_.steps() : uint64_t{hyper_.epochs()} * stepsPerEpoch_;

  if (context_.spec.resume()) {
    const std::string& dir = context_.spec.checkpoint_dir();
    std::optional<TrainingPosition> restored = restoreCheckpoint(
        *context_.folders, dir, modelLabel(context_.spec), *model_, *optimizer_, *context_.group);
    // A restart before the first checkpoint starts again from the beginning, as torchrun's would.
    if (!restored && context_.restartCount == 0)
      throw InputError(checkpointPath(dir) + ": no checkpoint to resume from (on rank 0's host)");
    if (restored) {
      position_ = *restored;
      firstStep_ = position_.step;
      epochsCompleted_ = position_.epoch;
    }
    resumed_ = restored.has_value();
    if (auto* out = progress(); out && context_.restartCount > 0) {
      *out << "restart " << context_.restartCount << ": "
           << (restored ? "resumed from the checkpoint of step " + std::to_string(position_.step)
                        : std::string("no checkpoint yet, starting from step 0"))
           << std::endl;
    }
  }

  EngineContext engineContext;
  engineContext.group = context_.group;
  engineContext.store = context_.store;
  engineContext.rank = rank_;
  engineContext.worldSize = worldSize_;
  engineContext.hyper = hyper_;
  engineContext.faults = context_.spec.faults();
  engineContext.probe = &probe_;
  if (context_.spec.engine() == v1::ENGINE_HOROVOD) {
    std::vector<std::pair<std::string, torch::Tensor>> named;
    for (const auto& item : model_->named_parameters()) named.emplace_back(item.key(), item.value());
    engine_ = makeHorovodEngine(std::move(engineContext), std::move(named));
  } else {
    engine_ = makeDdpEngine(std::move(engineContext), model_->parameters());
  }
  engine_->broadcastInitialState(*model_, *optimizer_);
}

// In place, never detaching: the DDP engine's gradients are views into its buckets (gradient_as_bucket_view),
// which Optimizer::zero_grad's detach_() refuses.
void Trainer::zeroGradients() {
  torch::NoGradGuard noGrad;
  for (auto& parameter : model_->parameters()) {
    if (parameter.grad().defined()) parameter.mutable_grad().zero_();
  }
}

double Trainer::learningRate(uint64_t step) const {
  double lr = hyper_.lr() * (hyper_.scale_lr() ? worldSize_ : 1);
  if (step < hyper_.warmup_steps()) lr *= static_cast<double>(step + 1) / hyper_.warmup_steps();
  return lr;
}

// --inject-crash aborts here; --inject-drift nudges a parameter on one rank; --inject-leak keeps memory that
// is touched, so the RSS really grows.
void Trainer::injectFaults(uint64_t step) {
  const auto& faults = context_.spec.faults();
  for (const auto& crash : faults.crashes()) {
    if (crash.rank() == rank_ && crash.step() == step) {
      std::cerr << "ringmaster-worker: rank " << rank_ << ": injected crash at step " << step
                << " (--inject-crash)" << std::endl;
      std::abort();
    }
  }
  for (const auto& drift : faults.drifts()) {
    if (drift.rank() != rank_ || drift.step() != step) continue;
    std::cerr << "ringmaster-worker: rank " << rank_ << ": injected drift at step " << step
              << " (--inject-drift)" << std::endl;
    torch::NoGradGuard noGrad;
    model_->parameters().front().add_(1e-3);
  }
  for (const auto& leak : faults.leaks()) {
    if (leak.rank() != rank_) continue;
    const size_t bytes = static_cast<size_t>(leak.mb_per_step() * 1024 * 1024);
    auto block = std::make_unique<char[]>(bytes);
    std::memset(block.get(), static_cast<int>(step & 0xff) | 1, bytes);
    leaked_.push_back(std::move(block));
  }
}

void Trainer::trainStep(StepTotals& totals) {
  const uint64_t step = position_.step;
  const int every = checkReplicasEvery(context_.spec);
  if (worldSize_ > 1 && every > 0 && step % static_cast<uint64_t>(every) == 0)
    probe_.replicas(replicaHashes(*model_, step));
  const int64_t stepStart = probe_.now();
  injectFaults(step);  // inside the step: a leak's cost is the step's, as in a real program
  const double lr = learningRate(step);
  for (auto& group : optimizer_->param_groups()) group.options().set_lr(lr);

  const int64_t batch = hyper_.batch_size();
  const int64_t firstMicro = static_cast<int64_t>(position_.stepInEpoch) * hyper_.accumulation_steps();
  const int64_t micros = std::min<int64_t>(hyper_.accumulation_steps(), microBatchesPerEpoch_ - firstMicro);
  const bool timeline = probe_.timelineOn();
  auto mark = [&](const char* phase, int64_t start, int64_t end) {
    if (timeline) probe_.timeline("compute", phase, start, end, step);
  };

  double extraMs = 0;
  for (const auto& straggler : context_.spec.faults().stragglers()) {
    if (straggler.rank() == rank_ && step >= straggler.from_step()) extraMs += straggler.extra_ms();
  }

  v1::StepSample sample;
  sample.set_step(step);
  sample.set_epoch(position_.epoch);
  sample.set_lr(lr);
  sample.set_start_ns(stepStart);
  double loss = 0;
  int64_t samples = 0;
  for (int64_t micro = 0; micro < micros; ++micro) {
    const int64_t t0 = probe_.now();
    const int64_t from = (firstMicro + micro) * batch;
    const int64_t to = std::min(from + batch, sampler_.numSamples());
    auto [images, labels] = data_.train.batch(epochIndices_.slice(0, from, to));
    if (context_.device != torch::kCPU) {
      images = images.to(context_.device, /*non_blocking=*/true);
      labels = labels.to(context_.device, /*non_blocking=*/true);
    }
    samples += to - from;
    const int64_t t1 = probe_.now();
    torch::Tensor microLoss =
        trainingLoss(context_.spec.loss(), model_->forward(images), labels) / static_cast<double>(micros);
    loss += microLoss.item<double>();
    const int64_t t2 = probe_.now();
    const bool last = micro == micros - 1;
    // --inject-straggler: extra compute in this rank's backward, before its gradients are ready, so that the
    // others wait for it as they would for a slow device.
    if (last && extraMs > 0) {
      std::this_thread::sleep_for(std::chrono::microseconds(static_cast<int64_t>(extraMs * 1000)));
    }
    engine_->beforeBackward(step, /*sync=*/last);
    microLoss.backward();
    const int64_t backwardEnd = probe_.now();
    sample.set_data_ns(sample.data_ns() + t1 - t0);
    sample.set_forward_ns(sample.forward_ns() + t2 - t1);
    sample.set_backward_ns(sample.backward_ns() + backwardEnd - t2);
    mark("DATA", t0, t1);
    mark("FORWARD", t1, t2);
    mark("BACKWARD", t2, backwardEnd);
  }

  sample.set_comm_wait_ns(engine_->finishBackward());
  const int64_t optimizerStart = probe_.now();
  optimizer_->step();
  zeroGradients();
  const int64_t stepEnd = probe_.now();
  mark("OPTIMIZER", optimizerStart, stepEnd);
  sample.set_optimizer_ns(stepEnd - optimizerStart);
  sample.set_total_ns(stepEnd - stepStart);
  sample.set_samples(static_cast<uint32_t>(samples));
  sample.set_loss(loss);
  lastLoss_ = loss;

  totals.steps += 1;
  totals.samples += samples;
  totals.dataNs += sample.data_ns();
  totals.forwardNs += sample.forward_ns();
  totals.backwardNs += sample.backward_ns();
  totals.commWaitNs += sample.comm_wait_ns();
  totals.optimizerNs += sample.optimizer_ns();
  totals.totalNs += sample.total_ns();
  probe_.step(std::move(sample));

  ProcessMemory memory = readProcessMemory();
  totals.peakRss = std::max(totals.peakRss, memory.rssBytes);
  v1::MemorySample memorySample;
  memorySample.set_step(step);
  memorySample.set_time_ns(probe_.now());
  memorySample.set_rss_bytes(memory.rssBytes);
  memorySample.set_heap_bytes(memory.heapBytes);
  memorySample.set_host_total_bytes(memory.hostTotalBytes);
  probe_.memory(std::move(memorySample));

  // Throughput counts the step's whole wall time, its bookkeeping included.
  const int64_t wallNs = probe_.now() - stepStart;
  totals.wallNs += wallNs;
  if (totals.steps > totals.steadyFrom) {
    totals.steadySamples += samples;
    totals.steadyNs += wallNs;
  }
}

// Test accuracy over the whole test set: each rank scores its own shard, the counts are summed across ranks;
// each rank records the result as its scalar "test_accuracy".
// Buffers (BatchNorm statistics) come from rank 0 first, so every rank evaluates the same model. Negative
// when there is nothing to score: no test set (npy data without test_x.npy), or targets that are not classes
// (--loss mse).
double Trainer::evaluate() {
  if (data_.test.size() == 0 || context_.spec.loss() != v1::LOSS_CROSS_ENTROPY) return -1;
  torch::NoGradGuard noGrad;
  if (worldSize_ > 1) {
    for (auto& buffer : model_->buffers()) {
      std::vector<torch::Tensor> tensors = {buffer};
      context_.group->broadcast(tensors)->wait();
    }
  }
  model_->eval();
  constexpr int64_t kEvalBatch = 128;  // activations small enough to stay below the mmap threshold
  torch::Tensor shard = evaluationShard(data_.test.size(), worldSize_, rank_);
  int64_t correct = 0;
  for (int64_t from = 0; from < shard.size(0); from += kEvalBatch) {
    auto [images, labels] =
        data_.test.batch(shard.slice(0, from, std::min(from + kEvalBatch, shard.size(0))));
    torch::Tensor predicted = model_->forward(images.to(context_.device)).argmax(1);
    correct += predicted.eq(labels.to(context_.device)).sum().item<int64_t>();
  }
  model_->train();
  std::vector<torch::Tensor> counts = {
      torch::tensor({correct, shard.size(0)}, torch::kLong).to(context_.device)};
  probe_.collective("all_reduce", "", "int64", 2, "test accuracy");
  context_.group->allreduce(counts)->wait();
  torch::Tensor total = counts[0].cpu();
  const double accuracy =
      static_cast<double>(total[0].item<int64_t>()) / static_cast<double>(total[1].item<int64_t>());
  // The console charts it against the last step trained (the epoch's, or the run's).
  v1::Record record;
  v1::Scalar* scalar = record.mutable_scalar();
  scalar->set_rank(rank_);
  scalar->set_step(position_.step > 0 ? position_.step - 1 : 0);
  scalar->set_name("test_accuracy");
  scalar->set_value(accuracy);
  probe_.record(std::move(record));
  return accuracy;
}

void Trainer::saveCheckpointIfRank0() {
  if (rank_ != 0 || context_.spec.checkpoint_dir().empty()) return;
  saveCheckpoint(*context_.folders, context_.spec.checkpoint_dir(), modelLabel(context_.spec), *model_,
                 *optimizer_, position_);
}

std::pair<bool, bool> Trainer::agreeOnControl() {
  const TrainingControl& control = *context_.control;
  const bool stop = control.stopRequested && control.stopRequested();
  const bool checkpoint = control.takeCheckpointRequest && control.takeCheckpointRequest();
  std::vector<torch::Tensor> flags = {
      torch::tensor({int64_t{stop}, int64_t{checkpoint}}).to(context_.device)};
  c10d::AllreduceOptions options;
  options.reduceOp = c10d::ReduceOp::MAX;
  probe_.collective("all_reduce", "MAX", "int64", 2, "stop and checkpoint agreement");
  context_.group->allreduce(flags, options)->wait();
  torch::Tensor agreed = flags[0].cpu();
  return {agreed[0].item<int64_t>() != 0, agreed[1].item<int64_t>() != 0};
}

RunSummary Trainer::run() {
  // Steps between control agreements: often enough to stop within a fraction of a second on small models,
  // rare enough that the extra all-reduce costs nothing measurable.
  constexpr uint64_t kControlEvery = 8;
  StepTotals totals;
  const uint64_t stepsThisRun = targetSteps_ > position_.step ? targetSteps_ - position_.step : 0;
  totals.steadyFrom = warmupSteps(stepsThisRun);
  const uint64_t progressEvery = std::max<uint64_t>(1, targetSteps_ / 20);
  const uint64_t checkpointEvery = context_.spec.checkpoint_every();
  double accuracy = -1;
  uint64_t evaluatedAt = UINT64_MAX;
  uint64_t checkpointedAt = resumed_ ? position_.step : UINT64_MAX;

  sampler_.setEpoch(position_.epoch);
  epochIndices_ = sampler_.indices();
  model_->train();
  while (position_.step < targetSteps_) {
    trainStep(totals);
    position_.step += 1;
    position_.stepInEpoch += 1;
    if (auto* out = progress();
        out && (position_.step % progressEvery == 0 || position_.step == targetSteps_)) {
      double seconds = static_cast<double>(totals.wallNs) * 1e-9;
      *out << "step " << position_.step << "/" << targetSteps_ << "  epoch " << position_.epoch << "  loss "
           << std::fixed << std::setprecision(4) << lastLoss_ << "  lr " << std::setprecision(5)
           << learningRate(position_.step - 1) << "  " << std::setprecision(1)
           << (seconds > 0 ? static_cast<double>(totals.samples) * worldSize_ / seconds : 0.0) << " samples/s"
           << std::defaultfloat << std::endl;
    }
    if (position_.stepInEpoch == stepsPerEpoch_) {
      accuracy = evaluate();
      evaluatedAt = position_.step;
      if (auto* out = progress(); out && accuracy >= 0) {
        *out << "epoch " << position_.epoch << " done: test accuracy " << std::fixed << std::setprecision(2)
             << accuracy * 100 << "%" << std::defaultfloat << std::endl;
      }
      position_.epoch += 1;
      position_.stepInEpoch = 0;
      epochsCompleted_ += 1;
      sampler_.setEpoch(position_.epoch);
      epochIndices_ = sampler_.indices();
    }
    bool checkpointNow = checkpointEvery > 0 && position_.step % checkpointEvery == 0;
    bool stop = false;
    if (context_.control && position_.step % kControlEvery == 0) {
      auto [stopAgreed, checkpointAgreed] = agreeOnControl();
      stop = stopAgreed;
      checkpointNow = checkpointNow || checkpointAgreed || stopAgreed;
    }
    if (checkpointNow && checkpointedAt != position_.step) {
      saveCheckpointIfRank0();
      checkpointedAt = position_.step;
    }
    if (stop) {
      if (auto* out = progress()) *out << "stopped at step " << position_.step << " on request" << std::endl;
      break;
    }
  }
  if (evaluatedAt != position_.step) accuracy = evaluate();
  if (checkpointedAt != position_.step) saveCheckpointIfRank0();

  EngineStats engineStats = engine_->stats();
  RunSummary summary;
  summary.rank = rank_;
  summary.worldSize = worldSize_;
  summary.engine = std::string(engineName(context_.spec.engine()));
  summary.backend = std::string(backendName(context_.spec.backend()));
  summary.model = modelLabel(context_.spec);
  summary.dataset = std::string(datasetName(context_.spec.dataset()));
  summary.threads = at::get_num_threads();
  summary.firstStep = firstStep_;
  summary.steps = position_.step;
  summary.epochs = epochsCompleted_;
  summary.samples = totals.samples;
  summary.trainSeconds = static_cast<double>(totals.wallNs) * 1e-9;
  summary.samplesPerS =
      summary.trainSeconds > 0 ? static_cast<double>(totals.samples) / summary.trainSeconds : 0;
  summary.steadySamplesPerS = totals.steadyNs > 0 ? static_cast<double>(totals.steadySamples) /
                                                        (static_cast<double>(totals.steadyNs) * 1e-9)
                                                  : summary.samplesPerS;
  if (totals.steps > 0) {
    const double perStepMs = 1e-6 / static_cast<double>(totals.steps);
    summary.phases.dataMs = static_cast<double>(totals.dataNs) * perStepMs;
    summary.phases.forwardMs = static_cast<double>(totals.forwardNs) * perStepMs;
    summary.phases.backwardMs = static_cast<double>(totals.backwardNs) * perStepMs;
    summary.phases.commWaitMs = static_cast<double>(totals.commWaitNs) * perStepMs;
    summary.phases.optimizerMs = static_cast<double>(totals.optimizerNs) * perStepMs;
    summary.phases.totalMs = static_cast<double>(totals.totalNs) * perStepMs;
  }
  summary.finalLoss = lastLoss_;
  summary.testAccuracy = accuracy;
  summary.paramChecksum = parameterChecksum(*model_);
  summary.collectives = engineStats.collectives;
  summary.bytesReduced = engineStats.bytesReduced;
  summary.bucketRebuilds = engineStats.bucketRebuilds;
  summary.negotiations = engineStats.negotiations;
  summary.cachedCycles = engineStats.cachedCycles;
  summary.peakRssBytes = totals.peakRss;
  return summary;
}

}  // namespace ringmaster::worker
