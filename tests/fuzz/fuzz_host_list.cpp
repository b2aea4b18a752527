// SPDX-License-Identifier: GPL-3.0-or-later
// Host lists and hostfiles (common/host_list.h): any bytes as `-H` text, as hostfile text and as a hostfile
// on disk (through readSmallFile), then ranks placed on the hosts parsed.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"
#include "common/host_list.h"
#include "memory_file.h"

namespace {

// Places 1, all and one more than all ranks; the placements must fill the hosts in order within their slots.
void placeRanks(const std::vector<ringmaster::HostSlots>& hosts) {
  const int total = ringmaster::totalSlots(hosts);
  for (int worldSize : {1, total, total + 1}) {
    try {
      const auto ranges = ringmaster::assignRanks(hosts, worldSize);
      int next = 0;
      for (size_t i = 0; i < ranges.size(); ++i) {
        if (ranges[i].host != hosts[i].host || ranges[i].firstRank != next || ranges[i].localRanks < 1 ||
            ranges[i].localRanks > hosts[i].slots) {
          std::abort();
        }
        next += ranges[i].localRanks;
      }
      if (next != worldSize) std::abort();
    } catch (const ringmaster::InputError&) {
      if (worldSize <= total) std::abort();  // enough slots: placing must not fail
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static ringmaster::fuzz::MemoryFile file;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    placeRanks(ringmaster::parseHostList(text));
  } catch (const ringmaster::InputError&) {
  }
  try {
    placeRanks(ringmaster::parseHostfile(text, "hostfile"));
  } catch (const ringmaster::InputError&) {
  }
  try {
    placeRanks(ringmaster::readHostfile(file.hold(data, size)));
  } catch (const ringmaster::InputError&) {
  }
  return 0;
}
