// SPDX-License-Identifier: GPL-3.0-or-later
#include "common/host_list.h"

#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <vector>

#include "common/error.h"

using ringmaster::HostSlots;
using ringmaster::InputError;

namespace {

// Bad input, and what its error message must say: the bad part of the input, quoted as the user wrote it, and
// the rule it breaks.
struct BadInput {
  std::string text;
  std::string named;
  std::string rule;
};

void PrintTo(const BadInput& bad, std::ostream* out) {
  *out << "'" << bad.text << "'";
}

// The message of the InputError that `parse` throws; fails the test when it accepts the input instead.
template <typename Parse>
std::string rejection(const Parse& parse, const BadInput& bad) {
  try {
    parse(bad.text);
  } catch (const InputError& e) {
    return e.what();
  }
  ADD_FAILURE() << "accepted '" << bad.text << "'";
  return {};
}

const std::string kHostRule = "is not a host name or IPv4 address";
const std::string kSlotsRule = "slots must be a whole number from 1 to 4096";

class BadHostList : public ::testing::TestWithParam<BadInput> {};

TEST_P(BadHostList, IsRejectedNamingTheBadInput) {
  const BadInput& bad = GetParam();
  const std::string message =
      rejection([](const std::string& text) { ringmaster::parseHostList(text); }, bad);
  EXPECT_NE(message.find(bad.named), std::string::npos) << "'" << bad.text << "': " << message;
  EXPECT_NE(message.find(bad.rule), std::string::npos) << "'" << bad.text << "': " << message;
}

INSTANTIATE_TEST_SUITE_P(
    HostList, BadHostList,
    ::testing::Values(BadInput{"", "host list is empty", "host1:4,host2:4"},
                      BadInput{"  ", "host list is empty", "host1:4,host2:4"},
                      BadInput{"a:0", "'a:0'", kSlotsRule}, BadInput{"a:x", "'a:x'", kSlotsRule},
                      BadInput{"a:99999", "'a:99999'", kSlotsRule}, BadInput{"a:-1", "'a:-1'", kSlotsRule},
                      BadInput{"a:1.5", "'a:1.5'", kSlotsRule}, BadInput{"a:", "'a:'", kSlotsRule},
                      BadInput{"a:4,b:zz", "'b:zz'", kSlotsRule},
                      BadInput{"a:4,,b:2", "'a:4,,b:2'", "has an empty entry"},
                      BadInput{"a:4,", "'a:4,'", "has an empty entry"},
                      BadInput{",a:4", "',a:4'", "has an empty entry"}, BadInput{":4", "':4'", kHostRule},
                      BadInput{"bad host:2", "'bad host'", kHostRule}, BadInput{"a;b:2", "'a;b'", kHostRule},
                      BadInput{"a:4 b:2", "'a:4 b:2'", kHostRule}, BadInput{"a:4:2", "'a:4:2'", kHostRule},
                      BadInput{"node1:2,-x:2", "'-x'", kHostRule}, BadInput{".node:2", "'.node'", kHostRule},
                      BadInput{std::string(254, 'n') + ":2", "'" + std::string(254, 'n') + "'", kHostRule}));

class BadHostfile : public ::testing::TestWithParam<BadInput> {};

TEST_P(BadHostfile, IsRejectedNamingTheFileLineAndBadInput) {
  const BadInput& bad = GetParam();
  const std::string message =
      rejection([](const std::string& text) { ringmaster::parseHostfile(text, "hosts.txt"); }, bad);
  EXPECT_NE(message.find(bad.named), std::string::npos) << "'" << bad.text << "': " << message;
  EXPECT_NE(message.find(bad.rule), std::string::npos) << "'" << bad.text << "': " << message;
}

INSTANTIATE_TEST_SUITE_P(
    HostList, BadHostfile,
    ::testing::Values(BadInput{"", "hosts.txt: no hosts", "host slots=N"},
                      BadInput{"# only a comment\n\n", "hosts.txt: no hosts", "host slots=N"},
                      BadInput{"node1 slots=4\nnode2 cores=2\n", "hosts.txt:2", "unknown word 'cores=2'"},
                      BadInput{"node1 slots=0", "hosts.txt:1", kSlotsRule + ", got '0'"},
                      BadInput{"node1 slots=", "hosts.txt:1", kSlotsRule + ", got ''"},
                      BadInput{"node1\n\nnode2 slots=many", "hosts.txt:3", kSlotsRule + ", got 'many'"},
                      BadInput{"node1 max_slots=x", "hosts.txt:1", kSlotsRule + ", got 'x'"},
                      BadInput{"bad!host slots=2", "hosts.txt:1", "'bad!host' " + kHostRule},
                      BadInput{"slots=4", "hosts.txt:1", "'slots=4' " + kHostRule},
                      BadInput{"-node slots=2", "hosts.txt:1", "'-node' " + kHostRule}));

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
  auto hosts = ringmaster::parseHostfile("# cluster\nnode1 slots=4\n\nnode2 slots=2 # half\nnode3\n", "hosts.txt");
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
    EXPECT_NE(std::string(e.what()).find("'/nonexistent/hostfile' cannot be read"), std::string::npos)
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
