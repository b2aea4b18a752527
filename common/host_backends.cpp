// SPDX-License-Identifier: GPL-3.0-or-later
#include "common/host_backends.h"

#include <algorithm>

namespace ringmaster {

BackendProblem backendProblem(const v1::HostInfo& host, v1::Backend backend) {
  const auto& built = host.backends();
  if (std::find(built.begin(), built.end(), backend) == built.end()) return BackendProblem::kNotBuilt;
  if (backend == v1::BACKEND_NCCL && host.gpus().empty()) return BackendProblem::kNoGpu;
  return BackendProblem::kNone;
}

}  // namespace ringmaster
