// SPDX-License-Identifier: GPL-3.0-or-later
#include "common/host_list.h"

#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "common/error.h"

using ringmaster::HostSlots;
using ringmaster::InputError;

namespace {

// Bad input, and what its error message must say: the bad part of the input, quoted as the user wrote it (for
// a hostfile, its name and line), and the rule it breaks.
struct BadInput {
  bool hostfile;  // parsed as the text of hosts.txt, else as a -H host list
  std::string text;
  std::string named;
  std::string rule;
};

BadInput badList(std::string text, std::string named, std::string rule) {
  return {false, std::move(text), std::move(named), std::move(rule)};
}
BadInput badFile(std::string text, std::string named, std::string rule) {
  return {true, std::move(text), std::move(named), std::move(rule)};
}

void PrintTo(const BadInput& bad, std::ostream* out) {
  *out << (bad.hostfile ? "hostfile '" : "host list '") << bad.text << "'";
}

const std::string kHostRule = "is not a host name or IPv4 address";
const std::string kSlotsRule = "slots must be a whole number from 1 to 4096";

class BadHosts : public ::testing::TestWithParam<BadInput> {};

TEST_P(BadHosts, AreRejectedNamingTheBadInputAndTheRule) {
  const BadInput& bad = GetParam();
  try {
    if (bad.hostfile) {
      ringmaster::parseHostfile(bad.text, "hosts.txt");
    } else {
      ringmaster::parseHostList(bad.text);
    }
    FAIL() << "accepted '" << bad.text << "'";
  } catch (const InputError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find(bad.named), std::string::npos) << "'" << bad.text << "': " << message;
    EXPECT_NE(message.find(bad.rule), std::string::npos) << "'" << bad.text << "': " << message;
  }
}

const BadInput kBadHostLists[] = {
    badList("", "host list is empty", "host1:4,host2:4"),
    badList(" \t ", "host list is empty", "host1:4,host2:4"),
    badList("a:0", "'a:0'", kSlotsRule),
    badList("a:x", "'a:x'", kSlotsRule),
    badList("a:99999", "'a:99999'", kSlotsRule),
    badList("a:-1", "'a:-1'", kSlotsRule),
    badList("a:1.5", "'a:1.5'", kSlotsRule),
    badList("a:", "'a:'", kSlotsRule),
    badList("a:4,b:zz", "'b:zz'", kSlotsRule),
    badList("a:4,,b:2", "'a:4,,b:2'", "has an empty entry"),
    badList("a:4,", "'a:4,'", "has an empty entry"),
    badList(",a:4", "',a:4'", "has an empty entry"),
    badList(":4", "':4'", kHostRule),
    badList("bad host:2", "'bad host'", kHostRule),
    badList("a;b:2", "'a;b'", kHostRule),
    badList("a:4 b:2", "'a:4 b:2'", kHostRule),
    badList("a:4:2", "'a:4:2'", kHostRule),
    badList("node1:2,-x:2", "'-x'", kHostRule),
    badList(".node:2", "'.node'", kHostRule),
    badList(std::string(254, 'n') + ":2", "'" + std::string(254, 'n') + "'", kHostRule),
};

const BadInput kBadHostfiles[] = {
    badFile("", "hosts.txt: no hosts", "host slots=N"),
    badFile("# only a comment\n\n", "hosts.txt: no hosts", "host slots=N"),
    badFile("node1 slots=4\nnode2 cores=2\n", "hosts.txt:2", "unknown word 'cores=2'"),
    badFile("node1 slots=0", "hosts.txt:1", kSlotsRule + ", got '0'"),
    badFile("node1 slots=", "hosts.txt:1", kSlotsRule + ", got ''"),
    badFile("node1\n\nnode2 slots=many", "hosts.txt:3", kSlotsRule + ", got 'many'"),
    badFile("node1 max_slots=x", "hosts.txt:1", kSlotsRule + ", got 'x'"),
    badFile("bad!host slots=2", "hosts.txt:1", "'bad!host' " + kHostRule),
    badFile("slots=4", "hosts.txt:1", "'slots=4' " + kHostRule),
    badFile("-node slots=2", "hosts.txt:1", "'-node' " + kHostRule),
};

INSTANTIATE_TEST_SUITE_P(HostList, BadHosts, ::testing::ValuesIn(kBadHostLists));
INSTANTIATE_TEST_SUITE_P(Hostfile, BadHosts, ::testing::ValuesIn(kBadHostfiles));

TEST(HostList, ParsesHostsWithAndWithoutSlots) {
  auto hosts = ringmaster::parseHostList("node-a:4, node-b:2,10.0.0.7");
  ASSERT_EQ(hosts.size(), 3u);
  EXPECT_EQ(hosts[0], (HostSlots{"node-a", 4}));
  EXPECT_EQ(hosts[1], (HostSlots{"node-b", 2}));
  EXPECT_EQ(hosts[2], (HostSlots{"10.0.0.7", 1}));
  EXPECT_EQ(ringmaster::totalSlots(hosts), 7);
  EXPECT_EQ(ringmaster::parseHostList(" gpu_1.example.org : 4096 "),
            (std::vector<HostSlots>{{"gpu_1.example.org", 4096}}));
}

TEST(HostList, HostfileWithCommentsAndSlots) {
  auto hosts =
      ringmaster::parseHostfile("# cluster\nnode1 slots=4\n\nnode2 slots=2 # half\nnode3\n", "hosts.txt");
  ASSERT_EQ(hosts.size(), 3u);
  EXPECT_EQ(hosts[0], (HostSlots{"node1", 4}));
  EXPECT_EQ(hosts[1], (HostSlots{"node2", 2}));
  EXPECT_EQ(hosts[2], (HostSlots{"node3", 1}));
}

TEST(HostList, AMissingHostfileIsNamed) {
  try {
    ringmaster::readHostfile("/nonexistent/hostfile");
    FAIL() << "read a hostfile that does not exist";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("hostfile /nonexistent/hostfile: cannot read the file"),
              std::string::npos)
        << e.what();
  }
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

}  // namespace
