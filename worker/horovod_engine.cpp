// SPDX-License-Identifier: GPL-3.0-or-later
#include "worker/horovod_engine.h"

#include <torch/csrc/autograd/utils/lambda_post_hook.h>
#include <torch/csrc/autograd/variable.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <iostream>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>

#include "common/job_spec.h"
#include "worker/ddp_engine.h"
#include "worker/engine_support.h"
#include "worker/fusion_buffer.h"
#include "worker/negotiation.h"
#include "worker/response_cache.h"

namespace ringmaster::worker {
namespace {

// The controller's own Gloo group, so that negotiation never interleaves with the gradients' collectives.
// It shares the job group's Gloo devices when there is one (same interface, GLOO_SOCKET_IFNAME honoured).
c10::intrusive_ptr<c10d::ProcessGroup> makeNegotiationGroup(const EngineContext& context) {
  // Each engine a rank creates gets its own key space; ranks create engines in the same order.
  const auto instance =
      context.store->add("ringmaster/horovod/instances/rank" + std::to_string(context.rank), 1);
  auto store = c10::make_intrusive<c10d::PrefixStore>(
      "ringmaster/horovod/negotiation/" + std::to_string(instance), context.store);
  auto options = c10d::ProcessGroupGloo::Options::create();
  options->threads = 1;
  if (auto* gloo = dynamic_cast<c10d::ProcessGroupGloo*>(context.group.get())) {
    options->devices = gloo->getOptions()->devices;
  } else if (const char* interface = std::getenv("GLOO_SOCKET_IFNAME"); interface && *interface) {
    std::string first(interface);
    options->devices.push_back(
        c10d::ProcessGroupGloo::createDeviceForInterface(first.substr(0, first.find(','))));
  } else {
    options->devices.push_back(c10d::ProcessGroupGloo::createDefaultDevice());
  }
  return c10::make_intrusive<c10d::ProcessGroupGloo>(store, context.rank, context.worldSize, options);
}

int64_t positiveNs(int64_t ns) {
  return ns > 0 ? ns : 1;
}

// Horovod's default cache capacity (HOROVOD_CACHE_CAPACITY).
constexpr size_t kResponseCacheCapacity = 1024;

// The shortest time a rank inside a planned backward holds its cycle back (see planNextStep()).
constexpr std::chrono::steady_clock::duration kMinHold = std::chrono::milliseconds(100);

TensorSignature signatureOf(const torch::Tensor& tensor) {
  return {static_cast<int32_t>(tensor.scalar_type()), tensor.sizes().vec()};
}

}  // namespace

void broadcastOptimizerState(c10d::ProcessGroup& group, torch::optim::Optimizer& optimizer) {
  // The optimizer's own serialization carries its state; LibTorch's load() leaves the options (lr, momentum,
  // ...) alone, so each parameter group's options travel beside it, as Horovod broadcasts them too.
  const auto optionsKey = [](size_t group) {
    return "ringmaster/param_group_options/" + std::to_string(group);
  };
  std::string bytes;
  if (group.getRank() == 0) {
    torch::serialize::OutputArchive archive;
    optimizer.save(archive);
    for (size_t g = 0; g < optimizer.param_groups().size(); ++g) {
      torch::serialize::OutputArchive options(archive.compilation_unit());
      optimizer.param_groups()[g].options().serialize(options);
      archive.write(optionsKey(g), options);
    }
    std::ostringstream out;
    archive.save_to(out);
    bytes = out.str();
  }
  std::vector<at::Tensor> length{torch::tensor({static_cast<int64_t>(bytes.size())}, torch::kInt64)};
  group.broadcast(length, c10d::BroadcastOptions{0})->wait();
  std::vector<at::Tensor> payload{torch::empty({length[0].item<int64_t>()}, torch::kUInt8)};
  if (group.getRank() == 0) std::memcpy(payload[0].data_ptr(), bytes.data(), bytes.size());
  group.broadcast(payload, c10d::BroadcastOptions{0})->wait();
  if (group.getRank() == 0) return;
  bytes.assign(static_cast<const char*>(payload[0].data_ptr()), payload[0].numel());
  std::istringstream in(bytes);
  torch::serialize::InputArchive archive;
  archive.load_from(in);
  optimizer.load(archive);
  for (size_t g = 0; g < optimizer.param_groups().size(); ++g) {
    torch::serialize::InputArchive options;
    archive.read(optionsKey(g), options);
    optimizer.param_groups()[g].options().serialize(options);
  }
}

class HorovodEngine::Controller {
 public:
  Controller(EngineContext context, std::vector<std::pair<std::string, torch::Tensor>> parameters)
      : ctx_(std::move(context)),
        format_(wireFormatFor(ctx_.hyper.compression(), *ctx_.group)),
        divisor_(ctx_.hyper.reduce_op() == v1::REDUCE_OP_SUM ? 1 : ctx_.worldSize),
        fusionBytes_(static_cast<size_t>(ctx_.hyper.fusion_threshold_mb() * 1024.0 * 1024.0)),
        hangStep_(hangStepFor(ctx_.faults, ctx_.rank)),
        cycle_(std::chrono::duration_cast<std::chrono::steady_clock::duration>(
            std::chrono::duration<double, std::milli>(
                ctx_.hyper.cycle_time_ms() > 0 ? ctx_.hyper.cycle_time_ms() : 1))),
        reduceName_(ctx_.group->getBackendName() == "nccl" ? "NCCL_ALLREDUCE" : "GLOO_ALLREDUCE") {
    TORCH_CHECK(ctx_.group && ctx_.store && ctx_.probe,
                "the Horovod engine needs a group, a store and a probe");
    for (auto& [name, param] : parameters) {
      TORCH_CHECK(param.requires_grad(), "parameter ", name, " does not require a gradient");
      Entry entry;
      entry.name = name;
      entry.param = param;
      names_.push_back(name);
      entries_.push_back(std::move(entry));
    }
    negotiation_ = makeNegotiationGroup(ctx_);
    if (!ctx_.hyper.no_response_cache()) cache_.emplace(kResponseCacheCapacity);
    const size_t n = entries_.size();
    reportTensor_ = torch::zeros({static_cast<int64_t>(CycleReport::encodedSize(n))}, torch::kInt64);
    responseTensor_ = torch::zeros({static_cast<int64_t>(CycleResponse::encodedSize(n))}, torch::kInt64);
    if (ctx_.rank == 0) {
      gathered_.emplace_back();
      for (int r = 0; r < ctx_.worldSize; ++r) gathered_[0].push_back(torch::zeros_like(reportTensor_));
      stallInspector_.emplace(n, stallCheckS());
    }
    for (size_t i = 0; i < entries_.size(); ++i) {
      auto accumulator = torch::autograd::impl::grad_accumulator(entries_[i].param);
      auto hook = std::make_unique<torch::autograd::utils::LambdaPostHook>(
          [this, i](const torch::autograd::variable_list& outputs, const torch::autograd::variable_list&) {
            onGradientReady(i);
            return outputs;
          });
      hookKeys_.push_back(accumulator->add_post_hook(std::move(hook)));
      accumulators_.push_back(std::move(accumulator));
    }
    completionThread_ = std::thread([this] { completionLoop(); });
    cycleThread_ = std::thread([this] { cycleLoop(); });
  }

  ~Controller() {
    for (size_t i = 0; i < accumulators_.size(); ++i) accumulators_[i]->del_post_hook(hookKeys_[i]);
    {
      std::lock_guard lock(mutex_);
      shutdownRequested_ = true;
    }
    workCv_.notify_all();
    cycleThread_.join();
    {
      std::lock_guard lock(mutex_);
      completionStop_ = true;
    }
    completionCv_.notify_all();
    completionThread_.join();
  }

  void beforeBackward(uint64_t step, bool sync) {
    std::lock_guard lock(mutex_);
    step_ = step;
    sync_ = sync;
  }

  int64_t finishBackward() {
    const int64_t start = ctx_.probe->now();
    std::unique_lock lock(mutex_);
    if (!sync_) return 0;
    // Even a rank with nothing to submit must keep negotiating (the stall inspector needs it).
    active_ = true;
    synchronizing_ = true;
    workCv_.notify_all();
    // synchronize(): parameters whose hook did not fire this step are reduced too, so all ranks agree.
    for (size_t i = 0; i < entries_.size(); ++i) {
      if (entries_[i].state != State::kIdle || withholds(i)) continue;
      auto& grad = entries_[i].param.mutable_grad();
      if (!grad.defined()) grad = torch::zeros_like(entries_[i].param);
      submit(i);
    }
    doneCv_.wait(lock, [this] { return allDone() || failed(); });
    if (!allDone()) {
      throw std::runtime_error("horovod engine on rank " + std::to_string(ctx_.rank) + ": " +
                               (error_.empty() ? "the engine was shut down" : error_));
    }
    planNextStep();
    for (auto& entry : entries_) entry.state = State::kIdle;
    lastStepFusion_ = std::move(stepFusion_);
    stepFusion_.clear();
    active_ = false;
    synchronizing_ = false;
    ++completedSteps_;
    workCv_.notify_all();
    return ctx_.probe->now() - start;
  }

  EngineStats stats() const {
    std::lock_guard lock(mutex_);
    return stats_;
  }

  std::vector<std::vector<size_t>> lastStepFusion() const {
    std::lock_guard lock(mutex_);
    return lastStepFusion_;
  }

 private:
  enum class State { kIdle, kSubmitted, kScheduled, kDone };
  struct Entry {
    std::string name;
    torch::Tensor param;
    State state = State::kIdle;
    int64_t submittedNs = 0;
    uint64_t step = 0;
  };
  // One fusion buffer (or one lone gradient) on the wire.
  struct InFlight {
    std::vector<size_t> tensors;
    std::vector<int64_t> submittedNs;
    std::vector<std::map<std::string, std::string>> readiness;  // rank 0: each rank's submission time
    torch::Tensor wire;
    bool packed = false;  // `wire` is a fusion buffer, not the gradient itself
    bool cached = false;  // answered from the response cache, without negotiation through rank 0
    c10::intrusive_ptr<c10d::Work> work;
    std::shared_ptr<CompletionTime> done;
    uint64_t step = 0;
    uint32_t index = 0;  // buffer index within its cycle
    int64_t negotiatedNs = 0, copyInNs = 0, launchNs = 0;
  };

  bool withholds(size_t index) const { return index == 0 && hangStep_ && step_ >= *hangStep_; }
  // Nothing more can complete: an error, or the cycle has stopped while some tensor was never scheduled
  // (scheduled ones still finish on the completion thread).
  bool failed() const {
    if (!error_.empty()) return true;
    if (!stopped_) return false;
    for (const auto& entry : entries_) {
      if (entry.state == State::kIdle || entry.state == State::kSubmitted) return true;
    }
    return false;
  }
  bool allDone() const {
    for (const auto& entry : entries_) {
      if (entry.state != State::kDone) return false;
    }
    return true;
  }

  void onGradientReady(size_t index) {
    std::lock_guard lock(mutex_);
    if (!sync_) return;  // a local accumulation pass (backward_passes_per_step)
    if (withholds(index)) {
      if (!hangAnnounced_) {
        std::cerr << "rank " << ctx_.rank << ": --inject-hang: not submitting tensor '"
                  << entries_[index].name << "' from step " << step_ << "; the other ranks will wait for it"
                  << std::endl;
        hangAnnounced_ = true;
      }
      return;
    }
    TORCH_CHECK(
        entries_[index].state == State::kIdle, "the gradient of '", entries_[index].name,
        "' was computed twice in one step; call finishBackward() (synchronize) before the next backward");
    submit(index);
    lastHookNs_ = entries_[index].submittedNs;
  }

  void submit(size_t index) {
    bool quiet = true;
    for (const auto& other : entries_) quiet = quiet && other.state != State::kSubmitted;
    if (quiet) wakeEarly_ = true;
    Entry& entry = entries_[index];
    entry.state = State::kSubmitted;
    entry.submittedNs = positiveNs(ctx_.probe->now());
    entry.step = step_;
    if (!active_) firstSubmitNs_ = entry.submittedNs;
    active_ = true;
    workCv_.notify_all();
  }

  // With the response cache, once a step has been synchronised, the next one is planned from it: this
  // step's gradients in the order they became ready here, grouped into fusion buffers as execute() would
  // group them. While inside its backward, a rank then starts a cycle only when the next planned buffer is
  // complete here, instead of every cycle_time_ms: a small model whose gradients fit one buffer costs one
  // cycle and one all-reduce a step, where ticking cycles would cut the same gradients into several buffers
  // (and the first, often a lone bias, would go out alone). A rank holding back still runs a cycle at least
  // every holdLimit_ (four times as long as its last backward took to submit, at least 100 ms, but not more
  // than a quarter of the stall threshold nor less than a cycle), so a tensor that some rank never submits
  // still reaches the stall inspector; a gradient that is not computed this step is no reason to wait that
  // long, for finishBackward() submits it and a synchronising rank holds nothing back.
  void planNextStep() {
    if (!cache_) return;
    std::vector<size_t> order(entries_.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [this](size_t a, size_t b) {
      return entries_[a].submittedNs < entries_[b].submittedNs;
    });
    std::vector<torch::Tensor> grads;
    for (size_t i : order) grads.push_back(entries_[i].param.grad());
    planBuffers_.clear();
    plannedBuffer_.assign(entries_.size(), -1);
    for (const auto& buffer : planFusion(grads, fusionBytes_, wireElementSize())) {
      std::vector<size_t> tensors;
      for (size_t k : buffer) {
        plannedBuffer_[order[k]] = static_cast<int>(planBuffers_.size());
        tensors.push_back(order[k]);
      }
      planBuffers_.push_back(std::move(tensors));
    }
    using Duration = std::chrono::steady_clock::duration;
    const auto span = std::chrono::duration_cast<Duration>(
        std::chrono::nanoseconds(std::max<int64_t>(0, lastHookNs_ - firstSubmitNs_)));
    const double stallS = stallCheckS();
    const auto cap = std::chrono::duration_cast<Duration>(std::chrono::duration<double>(stallS / 4));
    holdLimit_ = std::max(cycle_, std::min(cap, std::max(kMinHold, 4 * span)));
  }

  // Seconds a tensor some ranks submitted may wait for the others before rank 0 names them.
  double stallCheckS() const {
    return ctx_.hyper.stall_check_s() > 0 ? ctx_.hyper.stall_check_s() : kDefaultStallCheckS;
  }

  bool planned() const { return !planBuffers_.empty(); }

  // Whether a rank inside its backward (planned step) has something worth a cycle: a submitted gradient
  // outside the plan, the whole next planned buffer, or anything at all once it synchronises.
  bool planReady() const {
    bool submitted = false;
    for (size_t i = 0; i < entries_.size(); ++i) {
      if (entries_[i].state != State::kSubmitted) continue;
      if (plannedBuffer_[i] < 0) return true;
      submitted = true;
    }
    if (!submitted) return false;
    if (synchronizing_) return true;
    for (const auto& buffer : planBuffers_) {
      bool pending = false, complete = true;
      for (size_t t : buffer) {
        pending = pending || entries_[t].state == State::kIdle || entries_[t].state == State::kSubmitted;
        complete = complete && entries_[t].state != State::kIdle;
      }
      if (pending) return complete;
    }
    return true;
  }

  size_t wireElementSize() const {
    return format_.wire == c10::ScalarType::Undefined ? 0 : c10::elementSize(format_.wire);
  }

  // The background cycle: negotiate, then start what every rank has ready. After a cycle in which no rank was
  // inside a backward, every rank waits for local work instead of spinning. Unlike Horovod, a submission into
  // an empty queue starts the next cycle at once instead of at the next tick: the first gradient of a
  // backward (and a lone tensor) is not delayed by up to a cycle, and tensors that follow are still batched
  // per cycle. In a planned step (planNextStep()) a rank inside its backward holds its cycle until the next
  // planned buffer is complete here, and a cycle that schedules the step's last tensor ends the step on every
  // rank at once (every rank has scheduled the same tensors), so no idle cycle is needed to agree on it.
  void cycleLoop() {
    auto lastStart = std::chrono::steady_clock::now() - cycle_;
    bool idle = false;
    try {
      for (;;) {
        {
          std::unique_lock lock(mutex_);
          if (idle) {
            workCv_.wait(lock, [this] {
              return shutdownRequested_ || (active_ && completedSteps_ >= resumeAfterStep_);
            });
          } else {
            workCv_.wait_until(lock, lastStart + cycle_,
                               [this] { return (wakeEarly_ && !planned()) || shutdownRequested_; });
          }
          if (planned() && active_) {
            workCv_.wait_until(lock, std::chrono::steady_clock::now() + holdLimit_,
                               [this] { return shutdownRequested_ || planReady(); });
          }
          wakeEarly_ = false;
        }
        lastStart = std::chrono::steady_clock::now();
        bool cached = false;
        CycleResponse response = cache_ ? cachedCycle(cached) : negotiate(snapshot());
        if (response.shutdown) break;
        countCycle(response, cached);
        idle = execute(response, cached) || response.idle;
        // As Horovod's background thread does on Gloo: the cycle's all-reduces finish before the next
        // negotiation, so negotiation rounds do not compete with the gradients for the cores and the wire.
        awaitLaunched();
      }
    } catch (const std::exception& e) {
      std::lock_guard lock(mutex_);
      error_ = std::string("negotiation with the other ranks failed: ") + e.what();
    }
    std::lock_guard lock(mutex_);
    stopped_ = true;
    doneCv_.notify_all();
  }

  // This rank's report; with `signatures`, also what each submitted gradient looks like (by tensor).
  CycleReport snapshot(std::vector<TensorSignature>* signatures = nullptr) {
    std::lock_guard lock(mutex_);
    CycleReport report;
    report.shutdown = shutdownRequested_;
    report.active = active_;
    report.readyNs.resize(entries_.size(), 0);
    if (signatures) signatures->assign(entries_.size(), {});
    for (size_t i = 0; i < entries_.size(); ++i) {
      if (entries_[i].state != State::kSubmitted) continue;
      report.readyNs[i] = entries_[i].submittedNs;
      if (signatures) (*signatures)[i] = signatureOf(entries_[i].param.grad());
    }
    return report;
  }

  // A cycle with the response cache: every rank's cache view travels in one bitwise-AND all-reduce, and
  // the tensors cached and ready everywhere are reduced in bit order without asking rank 0. A full
  // negotiation follows only when some rank has a ready tensor without a valid cached answer (new, or its
  // shape or dtype changed: that answer is dropped everywhere), or rank 0's stall inspector needs every
  // rank's ready times to name the ranks that keep a cached tensor back. `cached` tells which it was.
  CycleResponse cachedCycle(bool& cached) {
    std::vector<TensorSignature> signatures;
    const CycleReport report = snapshot(&signatures);
    const size_t bits = cache_->bits();
    CacheCycle mine(bits);
    mine.shutdown = report.shutdown;
    mine.active = report.active;
    mine.wantsDetail = detailWanted_;
    for (size_t t = 0; t < report.readyNs.size(); ++t) {
      if (report.readyNs[t] <= 0) continue;
      const auto lookup = cache_->lookup(names_[t], signatures[t]);
      if (lookup == ResponseCache::Lookup::kMiss) {
        mine.uncached = true;
        continue;
      }
      const uint32_t bit = *cache_->bitOf(names_[t]);
      if (lookup == ResponseCache::Lookup::kHit) {
        mine.hit[bit] = true;
        mine.pending[bit] = true;
      } else {
        mine.invalid[bit] = true;
        mine.uncached = true;
      }
    }
    const CacheCycle all = combine(mine);
    for (uint32_t bit = 0; bit < bits; ++bit) {
      if (all.invalid[bit]) cache_->erase(bit);
    }
    CycleResponse response;
    response.shutdown = all.shutdown;
    if (response.shutdown) return response;
    if (all.uncached || all.wantsDetail) {
      detailWanted_ = false;
      response = negotiate(report);
      for (size_t t : response.order) cache_->put(names_[t], signatures[t], t);
      return response;
    }
    cached = true;
    std::vector<bool> partlyReady(entries_.size(), false);
    for (uint32_t bit = 0; bit < bits; ++bit) {
      if (all.hit[bit]) {
        response.order.push_back(cache_->tensorAt(bit));
        cache_->touch(bit);
      } else if (all.pending[bit]) {
        partlyReady[cache_->tensorAt(bit)] = true;
      }
    }
    response.idle = !all.active && response.order.empty();
    if (stallInspector_) detailWanted_ = stallInspector_->wantsDetail(partlyReady, ctx_.probe->now());
    return response;
  }

  // Only cycles that answered tensors count. Every rank takes part in those and has counted them all once
  // its step is synchronised, whereas idle cycles go on between steps at each rank's own pace.
  void countCycle(const CycleResponse& response, bool cached) {
    if (response.order.empty()) return;
    std::lock_guard lock(mutex_);
    ++(cached ? stats_.cachedCycles : stats_.negotiations);
  }

  CacheCycle combine(const CacheCycle& mine) {
    const auto words = mine.encode();
    if (bitsTensor_.numel() != static_cast<int64_t>(words.size())) {
      bitsTensor_ = torch::empty({static_cast<int64_t>(words.size())}, torch::kInt64);
    }
    std::memcpy(bitsTensor_.data_ptr<int64_t>(), words.data(), words.size() * sizeof(int64_t));
    std::vector<at::Tensor> tensors{bitsTensor_};
    c10d::AllreduceOptions options;
    options.reduceOp = c10d::ReduceOp::BAND;
    negotiation_->allreduce(tensors, options)->wait();
    return CacheCycle::decode(bitsTensor_.data_ptr<int64_t>(), mine.hit.size());
  }

  // One round trip through the coordinator: gather every rank's report on rank 0, broadcast its answer.
  CycleResponse negotiate(const CycleReport& report) {
    const size_t n = entries_.size();
    auto encoded = report.encode();
    std::memcpy(reportTensor_.data_ptr<int64_t>(), encoded.data(), encoded.size() * sizeof(int64_t));
    std::vector<at::Tensor> input{reportTensor_};
    std::vector<std::vector<at::Tensor>> output;
    if (ctx_.rank == 0) output = gathered_;
    c10d::GatherOptions gather;
    gather.rootRank = 0;
    negotiation_->gather(output, input, gather)->wait();
    if (ctx_.rank == 0) {
      lastReports_.clear();
      for (const auto& t : gathered_[0])
        lastReports_.push_back(CycleReport::decode(t.data_ptr<int64_t>(), n));
      CycleResponse response = coordinate(lastReports_);
      inspectStalls();
      auto answer = response.encode(n);
      std::memcpy(responseTensor_.data_ptr<int64_t>(), answer.data(), answer.size() * sizeof(int64_t));
    }
    std::vector<at::Tensor> message{responseTensor_};
    negotiation_->broadcast(message, c10d::BroadcastOptions{0})->wait();
    return CycleResponse::decode(responseTensor_.data_ptr<int64_t>(), n);
  }

  void inspectStalls() {
    const double threshold = stallCheckS();
    auto stall = stallInspector_->check(lastReports_, ctx_.probe->now());
    if (!stall) return;
    std::cerr << "rank " << ctx_.rank << ": " << stall->describe(names_, threshold) << std::endl;
    v1::StallReport report;
    std::vector<std::string> tensors;
    for (const auto& [rank, missing] : stall->missing) {
      report.add_missing_ranks(rank);
      for (size_t t : missing) {
        if (std::find(tensors.begin(), tensors.end(), names_[t]) == tensors.end())
          tensors.push_back(names_[t]);
      }
    }
    for (auto& name : tensors) report.add_tensors(name);
    report.set_waited_s(stall->waitedS);
    ctx_.probe->stall(std::move(report));
  }

  // Packs the answered tensors into fusion buffers and starts one all-reduce per buffer. `cached`: the
  // answer came from the response cache (rank 0 holds no fresh report of the other ranks' ready times).
  // Returns true when this answer scheduled the last tensor of a planned step: every rank got the same
  // answers, so every rank now waits for its next step without another cycle.
  bool execute(const CycleResponse& response, bool cached) {
    if (response.order.empty()) return false;
    const int64_t negotiatedNs = ctx_.probe->now();
    std::vector<torch::Tensor> grads;
    std::vector<int64_t> submitted;
    uint64_t step = 0;
    bool stepScheduled = false;
    {
      std::lock_guard lock(mutex_);
      for (size_t i : response.order) {
        TORCH_CHECK(i < entries_.size() && entries_[i].state == State::kSubmitted,
                    "the coordinator scheduled tensor ", i, " which this rank has not submitted");
        entries_[i].state = State::kScheduled;
        grads.push_back(entries_[i].param.grad());
        submitted.push_back(entries_[i].submittedNs);
        step = entries_[i].step;
      }
      if (planned()) {
        stepScheduled = std::all_of(entries_.begin(), entries_.end(), [](const Entry& entry) {
          return entry.state == State::kScheduled || entry.state == State::kDone;
        });
        // finishBackward() of this step cannot have returned yet: its tensors are still on the wire.
        if (stepScheduled) resumeAfterStep_ = completedSteps_ + 1;
      }
    }
    const auto plan = planFusion(grads, fusionBytes_, wireElementSize());
    torch::NoGradGuard noGrad;
    for (size_t b = 0; b < plan.size(); ++b) {
      InFlight f;
      f.step = step;
      f.index = static_cast<uint32_t>(b);
      f.negotiatedNs = negotiatedNs;
      f.cached = cached;
      f.copyInNs = ctx_.probe->now();
      std::vector<torch::Tensor> sources;
      int64_t elements = 0;
      for (size_t k : plan[b]) {
        const size_t tensor = response.order[k];
        f.tensors.push_back(tensor);
        f.submittedNs.push_back(submitted[k]);
        if (ctx_.rank == 0 && !cached && ctx_.probe->timelineOn()) f.readiness.push_back(readinessOf(tensor));
        sources.push_back(grads[k]);
        elements += grads[k].numel();
      }
      if (sources.size() == 1 && format_.wire == c10::ScalarType::Undefined) {
        f.wire = sources[0];  // a lone tensor is reduced in place, as Horovod does
      } else {
        const auto type =
            format_.wire == c10::ScalarType::Undefined ? sources[0].scalar_type() : format_.wire;
        f.wire = pool_.acquire(type, elements);
        packFusionBuffer(sources, f.wire);
        f.packed = true;
      }
      if (format_.roundToBf16) f.wire.copy_(f.wire.to(torch::kBFloat16));
      f.launchNs = ctx_.probe->now();
      std::vector<at::Tensor> tensors{f.wire};
      ctx_.probe->collective("all_reduce", "", dtypeName(f.wire.scalar_type()),
                             static_cast<uint64_t>(f.wire.numel()), "Horovod fusion buffer");
      f.work = ctx_.group->allreduce(tensors);
      f.done = CompletionTime::watch(f.work, *ctx_.probe);
      {
        std::lock_guard lock(mutex_);
        ++stats_.collectives;
        stats_.bytesReduced += static_cast<uint64_t>(f.wire.numel()) * f.wire.element_size();
        stepFusion_.push_back(f.tensors);
        inFlight_.push_back(std::move(f));
      }
      completionCv_.notify_one();
    }
    return stepScheduled;
  }

  void awaitLaunched() {
    std::vector<c10::intrusive_ptr<c10d::Work>> works;
    {
      std::lock_guard lock(mutex_);
      for (const auto& f : inFlight_) works.push_back(f.work);
    }
    for (auto& work : works) {
      try {
        work->wait();
      } catch (const std::exception&) {
        // The completion thread reports it.
      }
    }
  }

  std::map<std::string, std::string> readinessOf(size_t tensor) const {
    std::map<std::string, std::string> args;
    for (size_t r = 0; r < lastReports_.size(); ++r) {
      args["ready_ns rank " + std::to_string(r)] = std::to_string(lastReports_[r].readyNs[tensor]);
    }
    return args;
  }

  // Waits for each buffer's all-reduce in launch order, unpacks it and completes its handles.
  void completionLoop() {
    for (;;) {
      InFlight f;
      {
        std::unique_lock lock(mutex_);
        completionCv_.wait(lock, [this] { return !inFlight_.empty() || completionStop_; });
        if (inFlight_.empty()) return;
        f = std::move(inFlight_.front());
        inFlight_.pop_front();
      }
      try {
        f.work->wait();
      } catch (const std::exception& e) {
        std::lock_guard lock(mutex_);
        error_ = std::string("an all-reduce failed: ") + e.what();
        doneCv_.notify_all();
        continue;
      }
      const int64_t waited = ctx_.probe->now();
      const int64_t end = f.done->endNs(waited);
      {
        torch::NoGradGuard noGrad;
        if (f.packed) {
          std::vector<torch::Tensor> targets;
          {
            std::lock_guard lock(mutex_);
            for (size_t t : f.tensors) targets.push_back(entries_[t].param.grad());
          }
          unpackFusionBuffer(f.wire, targets, divisor_);
          pool_.release(f.wire);
        } else if (divisor_ != 1) {
          f.wire.div_(divisor_);
        }
      }
      const int64_t unpacked = ctx_.probe->now();
      record(f, end, waited, unpacked);
      std::lock_guard lock(mutex_);
      for (size_t t : f.tensors) entries_[t].state = State::kDone;
      doneCv_.notify_all();
    }
  }

  void record(const InFlight& f, int64_t end, int64_t unpackStart, int64_t unpackEnd) {
    const uint64_t bytes = static_cast<uint64_t>(f.wire.numel()) * f.wire.element_size();
    v1::AllreduceOp op;
    op.set_step(f.step);
    op.set_bucket(f.index);
    op.set_bytes(bytes);
    op.set_start_ns(f.launchNs);
    op.set_end_ns(end);
    op.set_tensors(static_cast<uint32_t>(f.tensors.size()));
    ctx_.probe->allreduce(std::move(op));
    if (!ctx_.probe->timelineOn()) return;
    const std::map<std::string, std::string> reduceArgs{{"bytes", std::to_string(bytes)},
                                                        {"tensors", std::to_string(f.tensors.size())}};
    // As in Horovod's timeline, a cached tensor's wait for the other ranks shows as NEGOTIATE too: every
    // rank's span starts at its own ready time, so the rank the others waited for shows either way.
    static const std::map<std::string, std::string> kCacheHit{{"response_cache", "hit"}};
    for (size_t k = 0; k < f.tensors.size(); ++k) {
      const std::string& lane = names_[f.tensors[k]];
      ctx_.probe->timeline(
          lane, "NEGOTIATE_ALLREDUCE", f.submittedNs[k], f.negotiatedNs, f.step,
          f.cached ? kCacheHit
                   : (k < f.readiness.size() ? f.readiness[k] : std::map<std::string, std::string>{}));
      ctx_.probe->timeline(lane, "QUEUE", f.negotiatedNs, f.copyInNs, f.step);
      if (f.packed) ctx_.probe->timeline(lane, "MEMCPY_IN_FUSION_BUFFER", f.copyInNs, f.launchNs, f.step);
      ctx_.probe->timeline(lane, reduceName_, f.launchNs, end, f.step, reduceArgs);
      if (f.packed) ctx_.probe->timeline(lane, "MEMCPY_OUT_FUSION_BUFFER", unpackStart, unpackEnd, f.step);
    }
  }

  EngineContext ctx_;
  const WireFormat format_;
  const int64_t divisor_;
  const size_t fusionBytes_;
  const std::optional<uint64_t> hangStep_;
  const std::chrono::steady_clock::duration cycle_;
  const std::string reduceName_;
  std::vector<std::string> names_;
  c10::intrusive_ptr<c10d::ProcessGroup> negotiation_;
  std::vector<std::shared_ptr<torch::autograd::Node>> accumulators_;
  std::vector<uintptr_t> hookKeys_;

  // Used by the cycle thread only.
  torch::Tensor reportTensor_, responseTensor_;
  std::vector<std::vector<at::Tensor>> gathered_;  // rank 0
  std::vector<CycleReport> lastReports_;           // rank 0
  std::optional<StallInspector> stallInspector_;   // rank 0
  std::optional<ResponseCache> cache_;             // unless --no-response-cache
  torch::Tensor bitsTensor_;                       // the cache's bit vector on the wire
  bool detailWanted_ = false;                      // rank 0: the next cycle must be a full negotiation
  FusionBufferPool pool_;

  mutable std::mutex mutex_;
  std::condition_variable workCv_;        // local work appeared, or shutdown (wakes an idle cycle thread)
  std::condition_variable doneCv_;        // handles completed, or the engine failed
  std::condition_variable completionCv_;  // a buffer went on the wire
  std::vector<Entry> entries_;
  std::deque<InFlight> inFlight_;
  std::vector<std::vector<size_t>> stepFusion_, lastStepFusion_;
  uint64_t step_ = 0;
  bool sync_ = true;
  bool active_ = false;           // submitted or synchronising since the last finishBackward()
  bool wakeEarly_ = false;        // a submission arrived while nothing was waiting
  bool synchronizing_ = false;    // inside finishBackward(): every gradient of the step has been submitted
  uint64_t completedSteps_ = 0;   // synchronised steps finished
  uint64_t resumeAfterStep_ = 0;  // after an idle answer: cycle again once this many steps have finished
  int64_t firstSubmitNs_ = 0, lastHookNs_ = 0;  // this step's first submission and last hook's
  // The planned step (planNextStep()): buffers of tensor indices, and each tensor's buffer (-1: none).
  std::vector<std::vector<size_t>> planBuffers_;
  std::vector<int> plannedBuffer_;
  std::chrono::steady_clock::duration holdLimit_{};
  bool shutdownRequested_ = false;
  bool stopped_ = false;
  bool completionStop_ = false;
  bool hangAnnounced_ = false;
  std::string error_;
  EngineStats stats_;

  std::thread completionThread_;
  std::thread cycleThread_;
};

HorovodEngine::HorovodEngine(EngineContext context,
                             std::vector<std::pair<std::string, torch::Tensor>> parameters)
    : group_(context.group),
      controller_(std::make_unique<Controller>(std::move(context), std::move(parameters))) {}

HorovodEngine::~HorovodEngine() = default;

void HorovodEngine::broadcastInitialState(torch::nn::Module& model, torch::optim::Optimizer& optimizer) {
  std::vector<torch::Tensor> state = model.parameters();
  for (auto& buffer : model.buffers()) state.push_back(buffer);
  broadcastCoalesced(*group_, std::move(state));
  broadcastOptimizerState(*group_, optimizer);
}

void HorovodEngine::beforeBackward(uint64_t step, bool sync) {
  controller_->beforeBackward(step, sync);
}
int64_t HorovodEngine::finishBackward() {
  return controller_->finishBackward();
}
EngineStats HorovodEngine::stats() const {
  return controller_->stats();
}
std::vector<std::vector<size_t>> HorovodEngine::lastStepFusion() const {
  return controller_->lastStepFusion();
}

std::unique_ptr<GradientEngine> makeHorovodEngine(
    EngineContext context, std::vector<std::pair<std::string, torch::Tensor>> parameters) {
  return std::make_unique<HorovodEngine>(std::move(context), std::move(parameters));
}

}  // namespace ringmaster::worker
