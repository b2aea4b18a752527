// SPDX-License-Identifier: GPL-3.0-or-later
// An all-reduce op's latency and bandwidths from its bytes and times, as nccl-tests defines them: algbw =
// bytes / time, busbw = algbw * 2(n-1)/n for n ranks (GB = 1e9 bytes). Ranks measuring live ops and readers
// of imported traces fill them in the same way.
#pragma once

#include "ringmaster/v1/records.pb.h"

namespace ringmaster {

inline void setLatencyAndBandwidth(v1::AllreduceOp& op, int worldSize) {
  const double seconds = static_cast<double>(op.end_ns() - op.start_ns()) * 1e-9;
  op.set_latency_us(seconds * 1e6);
  if (seconds > 0) {
    const double algbw = static_cast<double>(op.bytes()) / seconds / 1e9;
    op.set_algbw_gbps(algbw);
    op.set_busbw_gbps(worldSize > 1 ? algbw * 2.0 * (worldSize - 1) / worldSize : 0.0);
  }
}

}  // namespace ringmaster
