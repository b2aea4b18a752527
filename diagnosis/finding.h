// SPDX-License-Identifier: GPL-3.0-or-later
// Small helpers shared by the detectors for building v1::Finding values.
#pragma once

#include <cstdio>
#include <string>

#include "ringmaster/v1/records.pb.h"

namespace ringmaster::diagnosis {

namespace v1 = ::ringmaster::v1;

// printf-style formatting into a std::string, for findings' one-line summaries.
template <typename... Args>
std::string format(const char* pattern, Args... args) {
  int size = std::snprintf(nullptr, 0, pattern, args...);
  std::string out(static_cast<size_t>(size > 0 ? size : 0), '\0');
  std::snprintf(out.data(), out.size() + 1, pattern, args...);
  return out;
}

inline v1::Finding makeFinding(v1::Finding::Kind kind, v1::Finding::Severity severity, int rank,
                               const std::string& host, uint64_t sinceStep, const std::string& cause) {
  v1::Finding f;
  f.set_kind(kind);
  f.set_severity(severity);
  f.set_rank(rank);
  f.set_host(host);
  f.set_since_step(sinceStep);
  f.set_cause(cause);
  return f;
}

// "straggler", "memory leak", ... for people.
inline const char* kindLabel(v1::Finding::Kind kind) {
  switch (kind) {
    case v1::Finding::KIND_STRAGGLER:
      return "straggler";
    case v1::Finding::KIND_MEMORY_LEAK:
      return "memory leak";
    case v1::Finding::KIND_STALL:
      return "stall";
    case v1::Finding::KIND_COMMUNICATION:
      return "communication";
    case v1::Finding::KIND_SCALING:
      return "scaling";
    case v1::Finding::KIND_DIVERGENCE:
      return "divergence";
    case v1::Finding::KIND_CRASH:
      return "crash";
    case v1::Finding::KIND_RESTART:
      return "restart";
    case v1::Finding::KIND_COLLECTIVES:
      return "collectives out of step";
    case v1::Finding::KIND_REPLICA_DRIFT:
      return "replica drift";
    case v1::Finding::KIND_MISSING_TELEMETRY:
      return "missing telemetry";
    default:
      return "finding";
  }
}

inline const char* severityLabel(v1::Finding::Severity severity) {
  switch (severity) {
    case v1::Finding::SEVERITY_CRITICAL:
      return "critical";
    case v1::Finding::SEVERITY_WARNING:
      return "warning";
    default:
      return "info";
  }
}

}  // namespace ringmaster::diagnosis
