// SPDX-License-Identifier: GPL-3.0-or-later
// Replicas that drift: data-parallel ranks hold the same parameters (DDP broadcasts them at the start and
// all-reduces every gradient), and the buffers their engine keeps equal. Every --check-replicas-every steps
// each rank sends its tensors' hashes (ReplicaHashes); a tensor whose hash is not rank 0's on some rank has
// drifted there. Usual causes: a module added after DDP wrapped the model (its parameters are neither
// broadcast nor all-reduced), broadcast_buffers=False with BatchNorm, parameters changed outside the
// optimizer or on one rank, a custom layer's tensors that are not registered as parameters or buffers.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "diagnosis/finding.h"

namespace ringmaster::diagnosis {

class ReplicaDriftDetector {
 public:
  explicit ReplicaDriftDetector(int worldSize) : worldSize_(worldSize) {}

  void setHost(int rank, const std::string& host) { hosts_[rank] = host; }
  void add(const v1::ReplicaHashes& hashes);

  // At most one finding: the first check at which the replicas differed.
  std::vector<v1::Finding> findings() const;

 private:
  struct Drift {
    uint64_t step = 0;
    int reference = 0;               // the rank the others are compared with (rank 0 when it reported)
    std::vector<int> ranks;          // ranks that hold other values
    std::vector<std::string> names;  // tensors that differ, in the model's order
    size_t tensors = 0;              // tensors compared
    bool otherTensors = false;       // the ranks' models do not even have the same tensors
    std::optional<uint64_t> lastEqual;
  };
  void compare(uint64_t step);

  int worldSize_;
  std::map<uint64_t, std::map<int, v1::ReplicaHashes>> pending_;  // checks not compared yet, by step
  std::optional<uint64_t> lastEqual_;
  std::optional<uint64_t> lastStep_;  // of the checks so far: their interval
  std::optional<uint64_t> every_;
  std::optional<Drift> first_;
  std::map<int, std::string> hosts_;
};

}  // namespace ringmaster::diagnosis
