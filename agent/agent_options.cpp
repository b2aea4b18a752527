// SPDX-License-Identifier: GPL-3.0-or-later
#include "agent/agent_options.h"

#include <sstream>

namespace ringmaster::agent {

bool isLoopbackAddress(const std::string& address) {
  return address == "localhost" || address == "::1" || address == "[::1]" || address.rfind("127.", 0) == 0;
}

std::string checkAgentOptions(const AgentOptions& o) {
  // Port 0 lets the system pick a free port; only an agent that says which (--endpoint-file) may ask for it.
  if (o.port < (o.endpointFile.empty() ? 1 : 0) || o.port > 65535) {
    return "--port must be from 1 to 65535 (0 with --endpoint-file), got " + std::to_string(o.port);
  }
  if (!isLoopbackAddress(o.listen) && o.tokenFile.empty()) {
    return "--listen " + o.listen +
           " is reachable from other machines: give --token-file FILE so that only "
           "consoles holding the token can launch jobs (or listen on 127.0.0.1)";
  }
  if (!(o.keepJournalsDays >= 0 && o.keepJournalsDays <= kMostJournalDays)) {  // NaN fails both
    std::ostringstream given;
    given << o.keepJournalsDays;
    return "--keep-journals-days must be 0 (keep every journal) up to " + std::to_string(kMostJournalDays) +
           " days, got " + given.str();
  }
  if (!o.tlsCert.empty() && o.tokenFile.empty()) {
    return "--tls-cert serves consoles over TCP, which needs --token-file FILE too (without a token the agent "
           "serves this user's consoles over a Unix socket only)";
  }
  if (o.tlsCert.empty() != o.tlsKey.empty())
    return "--tls-cert and --tls-key go together; give both or neither";
  return {};
}

}  // namespace ringmaster::agent
