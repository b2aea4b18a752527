// SPDX-License-Identifier: GPL-3.0-or-later
#include "worker/engine_support.h"

#include <ATen/core/ivalue.h>

namespace ringmaster::worker {

const char* dtypeName(c10::ScalarType type) {
  switch (type) {
    case c10::ScalarType::Float:
      return "float32";
    case c10::ScalarType::Double:
      return "float64";
    case c10::ScalarType::Half:
      return "float16";
    case c10::ScalarType::BFloat16:
      return "bfloat16";
    case c10::ScalarType::Long:
      return "int64";
    case c10::ScalarType::Int:
      return "int32";
    default:
      return c10::toString(type);
  }
}

WireFormat wireFormatFor(v1::Compression compression, const c10d::ProcessGroup& group) {
  WireFormat format;
  switch (compression) {
    case v1::COMPRESSION_FP16:
      format.wire = c10::ScalarType::Half;
      break;
    case v1::COMPRESSION_BF16:
      if (group.getBackendName() == "gloo") {
        format.roundToBf16 = true;
      } else {
        format.wire = c10::ScalarType::BFloat16;
      }
      break;
    default:
      break;
  }
  return format;
}

std::optional<uint64_t> hangStepFor(const v1::FaultInjection& faults, int rank) {
  std::optional<uint64_t> first;
  for (const auto& hang : faults.hangs()) {
    if (hang.rank() == rank && (!first || hang.step() < *first)) first = hang.step();
  }
  return first;
}

std::shared_ptr<CompletionTime> CompletionTime::watch(const c10::intrusive_ptr<c10d::Work>& work,
                                                      Probe& probe) {
  auto time = std::make_shared<CompletionTime>();
  c10::intrusive_ptr<c10::ivalue::Future> future;
  try {
    future = work->getFuture();
  } catch (const c10::Error&) {
    return time;  // no future from this backend: the waiter's clock is the best we have
  }
  if (!future) return time;
  future->addCallback([time, clock = &probe](c10::ivalue::Future&) {
    time->endNs_.store(clock->now(), std::memory_order_release);
  });
  return time;
}

}  // namespace ringmaster::worker
