// SPDX-License-Identifier: GPL-3.0-or-later
#include "worker/replica_hashes.h"

#include <cstring>

namespace ringmaster::worker {

uint64_t tensorHash(const torch::Tensor& tensor) {
  constexpr uint64_t kOffset = 14695981039346656037ull;
  constexpr uint64_t kPrime = 1099511628211ull;
  const torch::Tensor host = tensor.detach().to(torch::kCPU).contiguous();
  const auto* bytes = static_cast<const unsigned char*>(host.data_ptr());
  const size_t size = static_cast<size_t>(host.numel()) * host.element_size();
  uint64_t hash = kOffset;
  size_t at = 0;
  for (; at + sizeof(uint64_t) <= size; at += sizeof(uint64_t)) {
    uint64_t word;
    std::memcpy(&word, bytes + at, sizeof word);
    hash = (hash ^ word) * kPrime;
  }
  for (; at < size; ++at) hash = (hash ^ bytes[at]) * kPrime;
  return hash;
}

v1::ReplicaHashes replicaHashes(const torch::nn::Module& model, uint64_t step) {
  torch::NoGradGuard noGrad;
  v1::ReplicaHashes out;
  out.set_step(step);
  for (const auto& item : model.named_parameters()) {
    out.add_names(item.key());
    out.add_hashes(tensorHash(item.value()));
  }
  return out;
}

}  // namespace ringmaster::worker
