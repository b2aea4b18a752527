// SPDX-License-Identifier: GPL-3.0-or-later
#include "worker/ddp_engine.h"

#include <torch/csrc/autograd/utils/lambda_post_hook.h>
#include <torch/csrc/autograd/variable.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <map>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "worker/engine_support.h"

namespace ringmaster::worker {
namespace {

constexpr size_t kBroadcastChunkBytes = size_t{256} << 20;

size_t byteSize(const torch::Tensor& t) {
  return static_cast<size_t>(t.numel()) * t.element_size();
}

}  // namespace

std::vector<std::vector<size_t>> assignBuckets(const std::vector<torch::Tensor>& parameters,
                                               const std::vector<size_t>& order, size_t firstBucketBytes,
                                               size_t capBytes) {
  struct Open {
    std::vector<size_t> params;
    size_t bytes = 0;
    size_t limit;
  };
  // One open bucket per dtype; each dtype starts with its own small first bucket, like PyTorch's.
  std::map<c10::ScalarType, Open> open;
  std::vector<std::vector<size_t>> buckets;
  for (size_t index : order) {
    const auto& p = parameters.at(index);
    auto [it, fresh] = open.try_emplace(p.scalar_type(), Open{{}, 0, firstBucketBytes});
    Open& bucket = it->second;
    bucket.params.push_back(index);
    bucket.bytes += byteSize(p);
    if (bucket.bytes >= bucket.limit) {
      buckets.push_back(std::move(bucket.params));
      bucket = Open{{}, 0, capBytes};
    }
  }
  // The partly filled buckets go last, in the order their first parameter appeared.
  std::vector<std::vector<size_t>> rest;
  for (auto& [type, bucket] : open) {
    if (!bucket.params.empty()) rest.push_back(std::move(bucket.params));
  }
  std::vector<size_t> position(parameters.size());
  for (size_t i = 0; i < order.size(); ++i) position[order[i]] = i;
  std::sort(rest.begin(), rest.end(),
            [&](const auto& a, const auto& b) { return position[a.front()] < position[b.front()]; });
  for (auto& bucket : rest) buckets.push_back(std::move(bucket));
  return buckets;
}

void broadcastCoalesced(c10d::ProcessGroup& group, std::vector<torch::Tensor> tensors) {
  torch::NoGradGuard noGrad;
  std::map<c10::ScalarType, std::vector<torch::Tensor>> byType;
  for (auto& t : tensors) {
    if (t.defined() && t.numel() > 0) byType[t.scalar_type()].push_back(t);
  }
  auto send = [&group](const std::vector<torch::Tensor>& chunk) {
    std::vector<torch::Tensor> flat;
    flat.reserve(chunk.size());
    for (const auto& t : chunk) flat.push_back(t.reshape({-1}));
    std::vector<at::Tensor> message{torch::cat(flat)};
    group.broadcast(message, c10d::BroadcastOptions{0})->wait();
    if (group.getRank() == 0) return;
    int64_t offset = 0;
    for (const auto& t : chunk) {
      t.copy_(message[0].narrow(0, offset, t.numel()).view_as(t));
      offset += t.numel();
    }
  };
  for (auto& [type, list] : byType) {
    std::vector<torch::Tensor> chunk;
    size_t bytes = 0;
    for (auto& t : list) {
      if (!chunk.empty() && bytes + byteSize(t) > kBroadcastChunkBytes) {
        send(chunk);
        chunk.clear();
        bytes = 0;
      }
      chunk.push_back(t);
      bytes += byteSize(t);
    }
    if (!chunk.empty()) send(chunk);
  }
}

// The bucketed, overlapping reducer. The autograd engine runs CPU backward on the calling thread, so hooks
// and finishBackward() normally share one thread; the mutex keeps stats() and odd callers safe.
class DdpEngine::Reducer {
 public:
  Reducer(EngineContext context, std::vector<torch::Tensor> parameters)
      : ctx_(std::move(context)),
        params_(std::move(parameters)),
        format_(wireFormatFor(ctx_.hyper.compression(), *ctx_.group)),
        hangStep_(hangStepFor(ctx_.faults, ctx_.rank)) {
    TORCH_CHECK(ctx_.group && ctx_.probe, "the DDP engine needs a process group and a probe");
    std::vector<size_t> reverse(params_.size());
    for (size_t i = 0; i < params_.size(); ++i) reverse[i] = params_.size() - 1 - i;
    build(assignBuckets(params_, reverse, kFirstBucketBytes, capBytes()));
    ready_.assign(params_.size(), false);
    for (size_t i = 0; i < params_.size(); ++i) {
      TORCH_CHECK(params_[i].requires_grad(), "parameter ", i, " does not require a gradient");
      auto accumulator = torch::autograd::impl::grad_accumulator(params_[i]);
      auto hook = std::make_unique<torch::autograd::utils::LambdaPostHook>(
          [this, i](const torch::autograd::variable_list& outputs, const torch::autograd::variable_list&) {
            onGradientReady(i);
            return outputs;
          });
      hookKeys_.push_back(accumulator->add_post_hook(std::move(hook)));
      accumulators_.push_back(std::move(accumulator));
    }
  }

  ~Reducer() {
    for (size_t i = 0; i < accumulators_.size(); ++i) accumulators_[i]->del_post_hook(hookKeys_[i]);
  }

  void beforeBackward(uint64_t step, bool sync) {
    std::lock_guard lock(mutex_);
    TORCH_CHECK(readyOrder_.empty() || !sync_, "beforeBackward(step ", step,
                ") came before finishBackward() of the previous synchronised backward");
    step_ = step;
    sync_ = sync;
  }

  int64_t finishBackward() {
    std::unique_lock lock(mutex_);
    if (!sync_) return 0;  // an accumulation-only pass has nothing in flight
    markUnusedReady();
    launchReadyBuckets();
    if (nextToLaunch_ < buckets_.size()) hangForever(lock);

    const int64_t waitStart = ctx_.probe->now();
    for (size_t b = 0; b < buckets_.size(); ++b) {
      Bucket& bucket = buckets_[b];
      const int64_t t0 = ctx_.probe->now();
      bucket.work->wait();
      const int64_t t1 = ctx_.probe->now();
      if (!bucket.wire.is_same(bucket.flat)) bucket.flat.copy_(bucket.wire);
      record(b, t0, t1);
      bucket.work.reset();
    }
    const int64_t exposed = ctx_.probe->now() - waitStart;

    std::fill(ready_.begin(), ready_.end(), false);
    for (auto& bucket : buckets_) bucket.pending = bucket.params.size();
    nextToLaunch_ = 0;
    if (!rebuilt_) rebuildFromReadyOrder();
    readyOrder_.clear();
    sync_ = true;
    return exposed;
  }

  EngineStats stats() const {
    std::lock_guard lock(mutex_);
    return stats_;
  }

  std::vector<std::vector<size_t>> layout() const {
    std::lock_guard lock(mutex_);
    std::vector<std::vector<size_t>> out;
    for (const auto& bucket : buckets_) out.push_back(bucket.params);
    return out;
  }

 private:
  struct Bucket {
    std::vector<size_t> params;
    torch::Tensor flat;  // the gradients; each parameter's .grad is a view into it
    torch::Tensor wire;  // what goes on the wire: `flat` itself, or its compressed copy
    size_t pending = 0;  // parameters whose gradient is not ready yet in this step
    c10::intrusive_ptr<c10d::Work> work;
    int64_t startNs = 0;
    std::shared_ptr<CompletionTime> done;
  };
  struct Slot {
    size_t bucket = 0;
    int64_t offset = 0;  // elements into the bucket's flat buffer
  };

  size_t capBytes() const {
    return static_cast<size_t>(std::max(ctx_.hyper.bucket_cap_mb(), 0.001) * 1024.0 * 1024.0);
  }

  torch::Tensor viewOf(size_t index) const {
    const Slot& slot = slots_[index];
    const auto& p = params_[index];
    return buckets_[slot.bucket].flat.narrow(0, slot.offset, p.numel()).view(p.sizes());
  }

  // Lays out flat buffers for `layout` and points every defined .grad at its view (keeping its value).
  void build(const std::vector<std::vector<size_t>>& layout) {
    torch::NoGradGuard noGrad;
    buckets_.clear();
    slots_.assign(params_.size(), Slot{});
    for (size_t b = 0; b < layout.size(); ++b) {
      Bucket bucket;
      bucket.params = layout[b];
      int64_t elements = 0;
      for (size_t index : bucket.params) {
        slots_[index] = Slot{b, elements};
        elements += params_[index].numel();
      }
      const auto& first = params_[bucket.params.front()];
      bucket.flat = torch::zeros({elements}, first.options().requires_grad(false));
      bucket.wire = format_.wire == c10::ScalarType::Undefined || format_.wire == first.scalar_type()
                        ? bucket.flat
                        : torch::empty({elements}, bucket.flat.options().dtype(format_.wire));
      bucket.pending = bucket.params.size();
      buckets_.push_back(std::move(bucket));
    }
    for (size_t i = 0; i < params_.size(); ++i) {
      auto& grad = params_[i].mutable_grad();
      if (!grad.defined()) continue;
      auto view = viewOf(i);
      view.copy_(grad);
      grad = view;
    }
  }

  // Makes the parameter's .grad the view into its bucket (autograd replaces an undefined .grad with a fresh
  // tensor), keeping the accumulated value.
  torch::Tensor adoptGradient(size_t index) {
    auto view = viewOf(index);
    auto& grad = params_[index].mutable_grad();
    if (!grad.defined()) {
      view.zero_();
    } else if (!grad.is_same(view)) {
      view.copy_(grad);
    }
    grad = view;
    return view;
  }

  void onGradientReady(size_t index) {
    std::lock_guard lock(mutex_);
    torch::NoGradGuard noGrad;
    auto view = adoptGradient(index);
    if (!sync_) return;  // no_sync(): accumulate locally, reduce on the next synchronised backward
    TORCH_CHECK(!ready_[index], "parameter ", index,
                " produced a gradient twice in one synchronised step; call finishBackward() between steps");
    markReady(index, view);
    launchReadyBuckets();
  }

  void markReady(size_t index, torch::Tensor& view) {
    view.div_(ctx_.worldSize);  // Gloo has no average: pre-divide, then sum
    ready_[index] = true;
    readyOrder_.push_back(index);
    --buckets_[slots_[index].bucket].pending;
  }

  // Parameters that took no part in this backward (or whose hook never fired) still get reduced, so every
  // rank issues the same collectives; their local gradient (zero when undefined) is what they contribute.
  void markUnusedReady() {
    torch::NoGradGuard noGrad;
    for (size_t i = 0; i < params_.size(); ++i) {
      if (ready_[i]) continue;
      auto view = adoptGradient(i);
      markReady(i, view);
    }
  }

  bool hanging() const { return hangStep_ && step_ >= *hangStep_; }

  // Launches complete buckets strictly in bucket order. With --inject-hang this rank never launches its
  // last bucket from the given step on.
  void launchReadyBuckets() {
    while (nextToLaunch_ < buckets_.size() && buckets_[nextToLaunch_].pending == 0) {
      if (hanging() && nextToLaunch_ == buckets_.size() - 1) return;
      launch(buckets_[nextToLaunch_++]);
    }
  }

  void launch(Bucket& bucket) {
    if (format_.roundToBf16) {
      bucket.flat.copy_(bucket.flat.to(torch::kBFloat16));
    } else if (!bucket.wire.is_same(bucket.flat)) {
      bucket.wire.copy_(bucket.flat);
    }
    std::vector<at::Tensor> tensors{bucket.wire};
    ctx_.probe->collective("all_reduce", "", dtypeName(bucket.wire.scalar_type()),
                           static_cast<uint64_t>(bucket.wire.numel()),
                           "DDP bucket " + std::to_string(&bucket - buckets_.data()));
    bucket.startNs = ctx_.probe->now();
    bucket.work = ctx_.group->allreduce(tensors);
    bucket.done = CompletionTime::watch(bucket.work, *ctx_.probe);
    ++stats_.collectives;
    stats_.bytesReduced += byteSize(bucket.wire);
  }

  void record(size_t index, int64_t waitStart, int64_t waitEnd) {
    const Bucket& bucket = buckets_[index];
    const int64_t end = bucket.done->endNs(waitEnd);
    v1::AllreduceOp op;
    op.set_step(step_);
    op.set_bucket(static_cast<uint32_t>(index));
    op.set_bytes(byteSize(bucket.wire));
    op.set_start_ns(bucket.startNs);
    op.set_end_ns(end);
    op.set_tensors(static_cast<uint32_t>(bucket.params.size()));
    ctx_.probe->allreduce(std::move(op));
    if (!ctx_.probe->timelineOn()) return;
    std::map<std::string, std::string> args{{"bucket", std::to_string(index)},
                                            {"bytes", std::to_string(byteSize(bucket.wire))},
                                            {"tensors", std::to_string(bucket.params.size())}};
    ctx_.probe->timeline("comm", "ALLREDUCE", bucket.startNs, end, step_, args);
    if (waitEnd > waitStart) ctx_.probe->timeline("comm", "ALLREDUCE_WAIT", waitStart, waitEnd, step_, args);
  }

  // The first synchronised step showed the order in which gradients become ready; rank 0's order becomes
  // everyone's, so all ranks keep launching identical buckets in identical order.
  void rebuildFromReadyOrder() {
    auto order = torch::empty({static_cast<int64_t>(readyOrder_.size())}, torch::kInt64);
    auto* data = order.data_ptr<int64_t>();
    for (size_t i = 0; i < readyOrder_.size(); ++i) data[i] = static_cast<int64_t>(readyOrder_[i]);
    std::vector<at::Tensor> message{order};
    ctx_.group->broadcast(message, c10d::BroadcastOptions{0})->wait();
    std::vector<size_t> agreed(readyOrder_.size());
    std::vector<bool> seen(params_.size(), false);
    for (size_t i = 0; i < agreed.size(); ++i) {
      int64_t index = data[i];
      TORCH_CHECK(index >= 0 && static_cast<size_t>(index) < params_.size() && !seen[index],
                  "ranks disagree about the model's parameters (rank 0 sent parameter index ", index, ")");
      seen[index] = true;
      agreed[i] = static_cast<size_t>(index);
    }
    build(assignBuckets(params_, agreed, kFirstBucketBytes, capBytes()));
    rebuilt_ = true;
    ++stats_.bucketRebuilds;
  }

  [[noreturn]] void hangForever(std::unique_lock<std::mutex>& lock) {
    std::cerr << "rank " << ctx_.rank << ": --inject-hang: withholding gradient bucket " << nextToLaunch_
              << " from step " << step_ << "; the other ranks will wait for it" << std::endl;
    lock.unlock();
    for (;;) std::this_thread::sleep_for(std::chrono::hours(1));
  }

  EngineContext ctx_;
  std::vector<torch::Tensor> params_;
  const WireFormat format_;
  const std::optional<uint64_t> hangStep_;
  std::vector<std::shared_ptr<torch::autograd::Node>> accumulators_;
  std::vector<uintptr_t> hookKeys_;

  mutable std::mutex mutex_;
  std::vector<Bucket> buckets_;
  std::vector<Slot> slots_;
  std::vector<bool> ready_;
  std::vector<size_t> readyOrder_;
  size_t nextToLaunch_ = 0;
  uint64_t step_ = 0;
  bool sync_ = true;
  bool rebuilt_ = false;
  EngineStats stats_;
};

DdpEngine::DdpEngine(EngineContext context, std::vector<torch::Tensor> parameters)
    : group_(context.group), reducer_(std::make_unique<Reducer>(std::move(context), std::move(parameters))) {}

DdpEngine::~DdpEngine() = default;

void DdpEngine::broadcastInitialState(torch::nn::Module& model, torch::optim::Optimizer&) {
  std::vector<torch::Tensor> state = model.parameters();
  for (auto& buffer : model.buffers()) state.push_back(buffer);
  broadcastCoalesced(*group_, std::move(state));
}

void DdpEngine::beforeBackward(uint64_t step, bool sync) {
  reducer_->beforeBackward(step, sync);
}
int64_t DdpEngine::finishBackward() {
  return reducer_->finishBackward();
}
EngineStats DdpEngine::stats() const {
  return reducer_->stats();
}
std::vector<std::vector<size_t>> DdpEngine::bucketLayout() const {
  return reducer_->layout();
}

std::unique_ptr<GradientEngine> makeDdpEngine(EngineContext context, std::vector<torch::Tensor> parameters) {
  return std::make_unique<DdpEngine>(std::move(context), std::move(parameters));
}

}  // namespace ringmaster::worker
