// SPDX-License-Identifier: GPL-3.0-or-later
#include <gtest/gtest.h>

#include "common/error.h"
#include "common/host_list.h"

using ringmaster::HostSlots;
using ringmaster::InputError;

TEST(HostList, ParsesHostsWithAndWithoutSlots) {
  auto hosts = ringmaster::parseHostList("node-a:4, node-b:2,10.0.0.7");
  ASSERT_EQ(hosts.size(), 3u);
  EXPECT_EQ(hosts[0], (HostSlots{"node-a", 4}));
  EXPECT_EQ(hosts[1], (HostSlots{"node-b", 2}));
  EXPECT_EQ(hosts[2], (HostSlots{"10.0.0.7", 1}));
  EXPECT_EQ(ringmaster::totalSlots(hosts), 7);
}

TEST(HostList, BadEntriesNameTheEntry) {
  for (const char* bad : {"", "a:0", "a:x", "a:4,,b:2", "bad host:2", "a:99999"}) {
    try {
      ringmaster::parseHostList(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const InputError& e) {
      EXPECT_FALSE(std::string(e.what()).empty());
    }
  }
  try {
    ringmaster::parseHostList("a:4,b:zz");
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("b:zz"), std::string::npos) << e.what();
  }
}

TEST(HostList, HostfileWithCommentsAndSlots) {
  auto hosts = ringmaster::parseHostfile("# cluster\nnode1 slots=4\n\nnode2 slots=2 # half\nnode3\n", "hosts.txt");
  ASSERT_EQ(hosts.size(), 3u);
  EXPECT_EQ(hosts[0], (HostSlots{"node1", 4}));
  EXPECT_EQ(hosts[1], (HostSlots{"node2", 2}));
  EXPECT_EQ(hosts[2], (HostSlots{"node3", 1}));
}

TEST(HostList, HostfileErrorsNameFileAndLine) {
  try {
    ringmaster::parseHostfile("node1 slots=4\nnode2 cores=2\n", "hosts.txt");
    FAIL() << "accepted an unknown word";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("hosts.txt:2"), std::string::npos) << e.what();
  }
  EXPECT_THROW(ringmaster::readHostfile("/nonexistent/hostfile"), InputError);
}

TEST(HostList, AssignsRanksHostByHost) {
  auto ranges = ringmaster::assignRanks({{"a", 4}, {"b", 4}, {"c", 4}}, 6);
  ASSERT_EQ(ranges.size(), 2u);
  EXPECT_EQ(ranges[0].host, "a");
  EXPECT_EQ(ranges[0].firstRank, 0);
  EXPECT_EQ(ranges[0].localRanks, 4);
  EXPECT_EQ(ranges[1].host, "b");
  EXPECT_EQ(ranges[1].firstRank, 4);
  EXPECT_EQ(ranges[1].localRanks, 2);
  EXPECT_THROW(ringmaster::assignRanks({{"a", 2}}, 3), InputError);
  EXPECT_THROW(ringmaster::assignRanks({{"a", 2}}, 0), InputError);
}
