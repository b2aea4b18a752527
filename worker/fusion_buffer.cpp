// SPDX-License-Identifier: GPL-3.0-or-later
#include "worker/fusion_buffer.h"

#include <algorithm>

namespace ringmaster::worker {

std::vector<std::vector<size_t>> planFusion(const std::vector<torch::Tensor>& tensors, size_t thresholdBytes,
                                            size_t wireElementSize) {
  auto bytesOf = [&](const torch::Tensor& t) {
    return static_cast<size_t>(t.numel()) * (wireElementSize ? wireElementSize : t.element_size());
  };
  std::vector<std::vector<size_t>> buffers;
  std::vector<bool> placed(tensors.size(), false);
  for (size_t first = 0; first < tensors.size(); ++first) {
    if (placed[first]) continue;
    std::vector<size_t> buffer{first};
    placed[first] = true;
    size_t bytes = bytesOf(tensors[first]);
    for (size_t next = first + 1; next < tensors.size() && bytes < thresholdBytes; ++next) {
      if (placed[next] || tensors[next].scalar_type() != tensors[first].scalar_type()) continue;
      if (bytes + bytesOf(tensors[next]) > thresholdBytes) continue;
      buffer.push_back(next);
      placed[next] = true;
      bytes += bytesOf(tensors[next]);
    }
    buffers.push_back(std::move(buffer));
  }
  return buffers;
}

void packFusionBuffer(const std::vector<torch::Tensor>& sources, torch::Tensor& buffer) {
  int64_t offset = 0;
  for (const auto& source : sources) {
    buffer.narrow(0, offset, source.numel()).view(source.sizes()).copy_(source);
    offset += source.numel();
  }
}

void unpackFusionBuffer(const torch::Tensor& buffer, std::vector<torch::Tensor>& targets, int64_t divisor) {
  int64_t offset = 0;
  const auto divisorTensor = torch::scalar_tensor(static_cast<double>(divisor), buffer.options());
  for (auto& target : targets) {
    const auto source = buffer.narrow(0, offset, target.numel()).view(target.sizes());
    if (divisor == 1) {
      target.copy_(source);
    } else if (target.scalar_type() == buffer.scalar_type()) {
      at::div_out(target, source, divisorTensor);  // one pass: divide on the way out
    } else {
      target.copy_(source);  // widen first, then divide at the target's precision
      target.div_(divisor);
    }
    offset += target.numel();
  }
}

torch::Tensor FusionBufferPool::acquire(c10::ScalarType type, int64_t elements) {
  std::lock_guard lock(mutex_);
  torch::Tensor whole;
  for (auto it = free_.begin(); it != free_.end(); ++it) {
    if (it->scalar_type() == type && it->numel() >= elements) {
      whole = *it;
      free_.erase(it);
      break;
    }
  }
  if (!whole.defined()) whole = torch::empty({elements}, torch::TensorOptions().dtype(type));
  inUse_.push_back(whole);
  return whole.narrow(0, 0, elements);
}

void FusionBufferPool::release(const torch::Tensor& buffer) {
  std::lock_guard lock(mutex_);
  // The caller holds a view; the allocation it came from goes back to the free list.
  auto it = std::find_if(inUse_.begin(), inUse_.end(),
                         [&](const torch::Tensor& whole) { return whole.data_ptr() == buffer.data_ptr(); });
  if (it == inUse_.end()) return;
  free_.push_back(*it);
  inUse_.erase(it);
  if (free_.size() > keep_) {
    // Keep the largest ones: they serve every smaller request too.
    std::sort(free_.begin(), free_.end(), [](const auto& a, const auto& b) { return a.numel() > b.numel(); });
    free_.resize(keep_);
  }
}

}  // namespace ringmaster::worker
