// SPDX-License-Identifier: GPL-3.0-or-later
// --backend nccl without a CUDA-enabled LibTorch: a c10d::ProcessGroup written on raw NCCL and the CUDA
// runtime. The ranks' tensors stay on the CPU; each collective stages them through device memory on the
// group's own stream (host -> pinned -> device, NCCL, device -> pinned -> host) and completes its Work from a
// stream callback, so collectives stay asynchronous and overlap backward like Gloo's.
//
// Built only when CMake finds CUDA and NCCL (RINGMASTER_HAVE_NCCL); otherwise the factory says so.
#pragma once

#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <torch/csrc/distributed/c10d/Store.hpp>

namespace ringmaster::worker {

// True when this build carries the NCCL backend.
bool ncclBackendBuilt();

// Joins the NCCL communicator of `size` ranks (the unique id travels through `store`) on CUDA device
// `device % deviceCount` (pass LOCAL_RANK). Throws std::runtime_error with a message a person can act on when
// the build has no NCCL, when no GPU is visible, or when NCCL fails to initialise.
c10::intrusive_ptr<c10d::ProcessGroup> makeNcclProcessGroup(const c10::intrusive_ptr<c10d::Store>& store,
                                                            int rank, int size, int device);

}  // namespace ringmaster::worker
