// SPDX-License-Identifier: GPL-3.0-or-later
// The environment a launcher (torchrun, `ringmaster run`, the agent) gives each rank.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace ringmaster::worker {

struct TorchrunEnv {
  int rank = 0;
  int localRank = 0;
  int worldSize = 1;
  int localWorldSize = 1;
  std::string masterAddr;
  uint16_t masterPort = 0;
  int restartCount =
      0;  // TORCHELASTIC_RESTART_COUNT: which restart of the job this is (0: the first attempt)
};

// Looks a variable up; returns nullopt when it is not set.
using EnvLookup = std::function<std::optional<std::string>(const std::string&)>;

// The process environment.
EnvLookup processEnv();

// Reads RANK LOCAL_RANK WORLD_SIZE LOCAL_WORLD_SIZE MASTER_ADDR MASTER_PORT, and TORCHELASTIC_RESTART_COUNT
// when set. Throws InputError naming the
// variable that is missing or malformed, or the pair that contradicts itself (RANK >= WORLD_SIZE, ...).
TorchrunEnv readTorchrunEnv(const EnvLookup& lookup = processEnv());

}  // namespace ringmaster::worker
