// SPDX-License-Identifier: GPL-3.0-or-later
// Small pieces both gradient engines share: what a gradient looks like on the wire and what its element type
// is called, when an injected hang starts, and when an asynchronous collective really finished.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>

#include "ringmaster/v1/job.pb.h"
#include "worker/probe.h"

namespace ringmaster::worker {

// How --compression changes a gradient buffer before its all-reduce.
struct WireFormat {
  c10::ScalarType wire = c10::ScalarType::Undefined;  // cast to this for the wire; Undefined: send as is
  // bf16 was asked for but the backend cannot sum bf16 (Gloo in LibTorch 1.13): round the values to bf16
  // (the numerics of the bf16 hook) and reduce them at full width.
  bool roundToBf16 = false;
};
WireFormat wireFormatFor(v1::Compression compression, const c10d::ProcessGroup& group);

// A tensor's element type as the Python package names it ("float32", "bfloat16"), for the collective log.
const char* dtypeName(c10::ScalarType type);

// The first step at which --inject-hang makes `rank` misbehave, if it names this rank.
std::optional<uint64_t> hangStepFor(const v1::FaultInjection& faults, int rank);

// The job-clock time at which an asynchronous collective completed, taken from the work's future callback
// (so it is the real end, not the moment someone waited for it).
class CompletionTime {
 public:
  static std::shared_ptr<CompletionTime> watch(const c10::intrusive_ptr<c10d::Work>& work, Probe& probe);
  // The completion time, or `fallback` when the backend offers no future.
  int64_t endNs(int64_t fallback) const {
    int64_t end = endNs_.load(std::memory_order_acquire);
    return end > 0 ? end : fallback;
  }

 private:
  std::atomic<int64_t> endNs_{0};
};

}  // namespace ringmaster::worker
