// SPDX-License-Identifier: GPL-3.0-or-later
// Whether a host can run a communication backend: its worker must be built with it, and nccl needs a CUDA GPU
// on every host. The agent's preflight, the console's host facts and the Launch page all ask here.
#pragma once

#include "ringmaster/v1/agent.pb.h"

namespace ringmaster {

enum class BackendProblem {
  kNone,      // the host can run it
  kNotBuilt,  // the host's worker was built without it
  kNoGpu,     // it needs a GPU (nccl) and the host has none
};

// What stands in the way of `backend` on `host`, as the host described itself.
BackendProblem backendProblem(const v1::HostInfo& host, v1::Backend backend);

}  // namespace ringmaster
