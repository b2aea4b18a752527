// SPDX-License-Identifier: GPL-3.0-or-later
#include "worker/nccl_process_group.h"

#include <stdexcept>
#include <string>

#ifdef RINGMASTER_HAVE_NCCL

#include <ATen/core/ivalue.h>
#include <cuda_runtime.h>
#include <nccl.h>

#include <cstring>
#include <mutex>
#include <vector>

namespace ringmaster::worker {
namespace {

void checkCuda(cudaError_t status, const char* what) {
  if (status != cudaSuccess) {
    throw std::runtime_error(std::string("nccl backend: ") + what + " failed: " + cudaGetErrorString(status));
  }
}

void checkNccl(ncclResult_t status, const char* what) {
  if (status != ncclSuccess) {
    throw std::runtime_error(std::string("nccl backend: ") + what + " failed: " + ncclGetErrorString(status));
  }
}

ncclDataType_t ncclTypeOf(const at::Tensor& t) {
  switch (t.scalar_type()) {
    case at::kFloat:
      return ncclFloat32;
    case at::kDouble:
      return ncclFloat64;
    case at::kHalf:
      return ncclFloat16;
    case at::kBFloat16:
      return ncclBfloat16;
    case at::kInt:
      return ncclInt32;
    case at::kLong:
      return ncclInt64;
    case at::kByte:
      return ncclUint8;
    case at::kChar:
      return ncclInt8;
    default:
      TORCH_CHECK(false, "nccl backend: tensors of type ", t.scalar_type(), " are not supported");
  }
}

ncclRedOp_t ncclOpOf(const c10d::ReduceOp& op) {
  switch (op) {
    case c10d::ReduceOp::SUM:
      return ncclSum;
    case c10d::ReduceOp::PRODUCT:
      return ncclProd;
    case c10d::ReduceOp::MIN:
      return ncclMin;
    case c10d::ReduceOp::MAX:
      return ncclMax;
    case c10d::ReduceOp::AVG:
      return ncclAvg;
    default:
      TORCH_CHECK(false, "nccl backend: this reduce operation is not supported");
  }
}

const at::Tensor& singleCpuTensor(const std::vector<at::Tensor>& tensors) {
  TORCH_CHECK(tensors.size() == 1, "nccl backend: expected one tensor per collective, got ", tensors.size());
  const auto& t = tensors[0];
  TORCH_CHECK(t.device().is_cpu() && t.is_contiguous(),
              "nccl backend: expected a contiguous CPU tensor (this build's LibTorch has no CUDA tensors)");
  return t;
}

// Completes when the stream callback after its collective has run; the future carries the result tensors.
class NcclWork : public c10d::Work {
 public:
  NcclWork(int rank, c10d::OpType type, std::vector<at::Tensor> tensors)
      : c10d::Work(rank, type),
        tensors_(std::move(tensors)),
        future_(c10::make_intrusive<c10::ivalue::Future>(c10::ListType::create(c10::TensorType::get()))) {}

  std::vector<at::Tensor> result() override { return tensors_; }
  c10::intrusive_ptr<c10::ivalue::Future> getFuture() override { return future_; }

  void complete() {
    finish();
    future_->markCompleted(c10::IValue(tensors_));
  }

 private:
  std::vector<at::Tensor> tensors_;
  c10::intrusive_ptr<c10::ivalue::Future> future_;
};

class NcclProcessGroup : public c10d::ProcessGroup {
 public:
  NcclProcessGroup(const c10::intrusive_ptr<c10d::Store>& store, int rank, int size, int device)
      : c10d::ProcessGroup(rank, size) {
    int devices = 0;
    cudaError_t status = cudaGetDeviceCount(&devices);
    if (status != cudaSuccess || devices == 0) {
      throw std::runtime_error(
          std::string("--backend nccl: no CUDA device is visible to rank ") + std::to_string(rank) + " (" +
          (status != cudaSuccess ? cudaGetErrorString(status) : "cudaGetDeviceCount found 0 devices") +
          "); run with --backend gloo on machines without GPUs");
    }
    device_ = device % devices;
    checkCuda(cudaSetDevice(device_), "cudaSetDevice");
    ncclUniqueId id;
    const std::string key = "ringmaster/nccl/unique_id";
    if (rank == 0) {
      checkNccl(ncclGetUniqueId(&id), "ncclGetUniqueId");
      const auto* bytes = reinterpret_cast<const uint8_t*>(&id);
      store->set(key, std::vector<uint8_t>(bytes, bytes + sizeof(id)));
    } else {
      auto bytes = store->get(key);
      TORCH_CHECK(bytes.size() == sizeof(id), "nccl backend: the unique id in the store has the wrong size");
      std::memcpy(&id, bytes.data(), sizeof(id));
    }
    checkNccl(ncclCommInitRank(&comm_, size, id, rank), "ncclCommInitRank");
    checkCuda(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
  }

  ~NcclProcessGroup() override {
    cudaSetDevice(device_);
    cudaStreamSynchronize(stream_);
    ncclCommDestroy(comm_);
    cudaStreamDestroy(stream_);
    for (auto& buffer : pinned_) cudaFreeHost(buffer.data);
  }

  const std::string getBackendName() const override { return "nccl"; }

  c10::intrusive_ptr<c10d::Work> allreduce(std::vector<at::Tensor>& tensors,
                                           const c10d::AllreduceOptions& options) override {
    const auto& t = singleCpuTensor(tensors);
    const ncclRedOp_t op = ncclOpOf(options.reduceOp);
    return enqueue(c10d::OpType::ALLREDUCE, t, /*upload=*/true, [&](void* device) {
      checkNccl(ncclAllReduce(device, device, t.numel(), ncclTypeOf(t), op, comm_, stream_), "ncclAllReduce");
    });
  }

  c10::intrusive_ptr<c10d::Work> broadcast(std::vector<at::Tensor>& tensors,
                                           const c10d::BroadcastOptions& options) override {
    const auto& t = singleCpuTensor(tensors);
    const int root = static_cast<int>(options.rootRank);
    return enqueue(c10d::OpType::BROADCAST, t, /*upload=*/getRank() == root, [&](void* device) {
      checkNccl(ncclBroadcast(device, device, t.numel(), ncclTypeOf(t), root, comm_, stream_),
                "ncclBroadcast");
    });
  }

  c10::intrusive_ptr<c10d::Work> barrier(const c10d::BarrierOptions&) override {
    std::vector<at::Tensor> token{at::zeros({1}, at::kFloat)};
    return allreduce(token, c10d::AllreduceOptions());
  }

 private:
  struct Pinned {
    void* data = nullptr;
    size_t bytes = 0;
  };
  // What a stream callback needs to finish one collective.
  struct Pending {
    c10::intrusive_ptr<NcclWork> work;
    c10::intrusive_ptr<NcclProcessGroup> group;  // keeps the pool alive until the callback has run
    at::Tensor tensor;
    Pinned staging;
  };

  template <typename Collective>
  c10::intrusive_ptr<c10d::Work> enqueue(c10d::OpType type, const at::Tensor& tensor, bool upload,
                                         Collective&& collective) {
    std::lock_guard lock(mutex_);  // one communicator: collectives go out one at a time, in call order
    checkCuda(cudaSetDevice(device_), "cudaSetDevice");
    const size_t bytes = static_cast<size_t>(tensor.numel()) * tensor.element_size();
    auto* pending =
        new Pending{c10::make_intrusive<NcclWork>(getRank(), type, std::vector<at::Tensor>{tensor}),
                    c10::intrusive_ptr<NcclProcessGroup>::reclaim_copy(this), tensor, acquirePinned(bytes)};
    void* device = nullptr;
    try {
      checkCuda(cudaMallocAsync(&device, bytes ? bytes : 1, stream_), "cudaMallocAsync");
      if (upload && bytes) {
        std::memcpy(pending->staging.data, tensor.data_ptr(), bytes);
        checkCuda(cudaMemcpyAsync(device, pending->staging.data, bytes, cudaMemcpyHostToDevice, stream_),
                  "cudaMemcpyAsync (host to device)");
      }
      collective(device);
      if (bytes) {
        checkCuda(cudaMemcpyAsync(pending->staging.data, device, bytes, cudaMemcpyDeviceToHost, stream_),
                  "cudaMemcpyAsync (device to host)");
      }
      checkCuda(cudaFreeAsync(device, stream_), "cudaFreeAsync");
      checkCuda(cudaLaunchHostFunc(stream_, &NcclProcessGroup::onStreamDone, pending), "cudaLaunchHostFunc");
    } catch (...) {
      releasePinned(pending->staging);
      delete pending;
      throw;
    }
    return pending->work;
  }

  // Runs on CUDA's callback thread once the collective and the download are done: no CUDA calls here.
  static void CUDART_CB onStreamDone(void* data) {
    auto* pending = static_cast<Pending*>(data);
    const size_t bytes = static_cast<size_t>(pending->tensor.numel()) * pending->tensor.element_size();
    if (bytes) std::memcpy(pending->tensor.data_ptr(), pending->staging.data, bytes);
    pending->group->releasePinned(pending->staging);
    auto work = pending->work;
    delete pending;
    work->complete();
  }

  // Pinned host memory makes the download truly asynchronous; it is slow to allocate, so it is reused.
  Pinned acquirePinned(size_t bytes) {
    {
      std::lock_guard lock(pinnedMutex_);
      for (auto it = pinned_.begin(); it != pinned_.end(); ++it) {
        if (it->bytes >= bytes) {
          Pinned found = *it;
          pinned_.erase(it);
          return found;
        }
      }
    }
    Pinned fresh;
    fresh.bytes = bytes ? bytes : 1;
    checkCuda(cudaMallocHost(&fresh.data, fresh.bytes), "cudaMallocHost");
    return fresh;
  }

  void releasePinned(Pinned buffer) {
    std::lock_guard lock(pinnedMutex_);
    pinned_.push_back(buffer);
  }

  int device_ = 0;
  ncclComm_t comm_ = nullptr;
  cudaStream_t stream_ = nullptr;
  std::mutex mutex_;
  std::mutex pinnedMutex_;
  std::vector<Pinned> pinned_;
};

}  // namespace

bool ncclBackendBuilt() {
  return true;
}

c10::intrusive_ptr<c10d::ProcessGroup> makeNcclProcessGroup(const c10::intrusive_ptr<c10d::Store>& store,
                                                            int rank, int size, int device) {
  return c10::make_intrusive<NcclProcessGroup>(store, rank, size, device);
}

}  // namespace ringmaster::worker

#else  // !RINGMASTER_HAVE_NCCL

namespace ringmaster::worker {

bool ncclBackendBuilt() {
  return false;
}

c10::intrusive_ptr<c10d::ProcessGroup> makeNcclProcessGroup(const c10::intrusive_ptr<c10d::Store>&, int, int,
                                                            int) {
  throw std::runtime_error(
      "--backend nccl: this build has no NCCL backend (CMake found no CUDA toolkit and NCCL); "
      "use --backend gloo, or rebuild with CUDA and NCCL installed");
}

}  // namespace ringmaster::worker

#endif
