// SPDX-License-Identifier: GPL-3.0-or-later
// Host lists as users write them for mpirun/horovodrun: "-H a:4,b:4" and hostfiles ("a slots=4").
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ringmaster {

struct HostSlots {
  std::string host;
  int slots = 1;

  bool operator==(const HostSlots& other) const { return host == other.host && slots == other.slots; }
};

// Parses "host1:4,host2:4" (slots default to 1). Throws InputError naming the bad entry.
std::vector<HostSlots> parseHostList(std::string_view text);

// Parses hostfile text: one "host [slots=N]" per line, '#' starts a comment. `source` names the file in
// errors.
std::vector<HostSlots> parseHostfile(std::string_view text, std::string_view source);

// Reads and parses a hostfile from disk.
std::vector<HostSlots> readHostfile(const std::string& path);

int totalSlots(const std::vector<HostSlots>& hosts);

// One host's share of a job: global ranks [firstRank, firstRank + localRanks).
struct RankRange {
  std::string host;
  int firstRank = 0;
  int localRanks = 0;
};

// Fills hosts in order, each up to its slots, until `worldSize` ranks are placed (as mpirun does by slot).
// Throws InputError when the hosts have fewer slots than `worldSize`.
std::vector<RankRange> assignRanks(const std::vector<HostSlots>& hosts, int worldSize);

}  // namespace ringmaster
