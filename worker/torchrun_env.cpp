// SPDX-License-Identifier: GPL-3.0-or-later
#include "worker/torchrun_env.h"

#include <charconv>
#include <cstdlib>

#include "common/error.h"

namespace ringmaster::worker {
namespace {

std::string required(const EnvLookup& lookup, const std::string& name) {
  auto value = lookup(name);
  if (!value || value->empty()) {
    throw InputError("environment variable " + name +
                     " is not set (ranks expect RANK LOCAL_RANK WORLD_SIZE LOCAL_WORLD_SIZE MASTER_ADDR "
                     "MASTER_PORT, as torchrun or `ringmaster run` sets them)");
  }
  return *value;
}

long long integer(const EnvLookup& lookup, const std::string& name, long long min, long long max) {
  std::string text = required(lookup, name);
  long long value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < min || value > max) {
    throw InputError("environment variable " + name + "='" + text + "' is not an integer from " +
                     std::to_string(min) + " to " + std::to_string(max));
  }
  return value;
}

}  // namespace

EnvLookup processEnv() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* value = std::getenv(name.c_str());
    if (!value) return std::nullopt;
    return std::string(value);
  };
}

TorchrunEnv readTorchrunEnv(const EnvLookup& lookup) {
  constexpr int kMaxRanks = 4096;
  TorchrunEnv env;
  env.worldSize = static_cast<int>(integer(lookup, "WORLD_SIZE", 1, kMaxRanks));
  env.rank = static_cast<int>(integer(lookup, "RANK", 0, kMaxRanks - 1));
  env.localWorldSize = static_cast<int>(integer(lookup, "LOCAL_WORLD_SIZE", 1, kMaxRanks));
  env.localRank = static_cast<int>(integer(lookup, "LOCAL_RANK", 0, kMaxRanks - 1));
  env.masterAddr = required(lookup, "MASTER_ADDR");
  env.masterPort = static_cast<uint16_t>(integer(lookup, "MASTER_PORT", 1, 65535));
  if (lookup("TORCHELASTIC_RESTART_COUNT"))
    env.restartCount = static_cast<int>(integer(lookup, "TORCHELASTIC_RESTART_COUNT", 0, 1 << 20));
  if (env.rank >= env.worldSize) {
    throw InputError("RANK=" + std::to_string(env.rank) +
                     " must be below WORLD_SIZE=" + std::to_string(env.worldSize));
  }
  if (env.localRank >= env.localWorldSize) {
    throw InputError("LOCAL_RANK=" + std::to_string(env.localRank) +
                     " must be below LOCAL_WORLD_SIZE=" + std::to_string(env.localWorldSize));
  }
  if (env.localWorldSize > env.worldSize) {
    throw InputError("LOCAL_WORLD_SIZE=" + std::to_string(env.localWorldSize) +
                     " must not exceed WORLD_SIZE=" + std::to_string(env.worldSize));
  }
  return env;
}

}  // namespace ringmaster::worker
