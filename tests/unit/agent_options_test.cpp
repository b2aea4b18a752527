// SPDX-License-Identifier: GPL-3.0-or-later
#include <gtest/gtest.h>

#include "agent/agent_options.h"

using namespace ringmaster::agent;

TEST(AgentOptions, LoopbackNeedsNoToken) {
  AgentOptions o;
  EXPECT_EQ(checkAgentOptions(o), "");
  o.listen = "::1";
  EXPECT_EQ(checkAgentOptions(o), "");
}

TEST(AgentOptions, OtherAddressesNeedAToken) {
  AgentOptions o;
  o.listen = "0.0.0.0";
  EXPECT_NE(checkAgentOptions(o).find("--token-file"), std::string::npos);
  o.tokenFile = "/etc/ringmaster/token";
  EXPECT_EQ(checkAgentOptions(o), "");
  o.tlsCert = "cert.pem";
  EXPECT_NE(checkAgentOptions(o).find("--tls-key"), std::string::npos);
}
