// SPDX-License-Identifier: GPL-3.0-or-later
// Where a running job's records go: the run store's ingestion, live views, the progress display, summaries.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ringmaster/v1/records.pb.h"

namespace ringmaster::console {

namespace v1 = ::ringmaster::v1;

class RecordSink {
 public:
  virtual ~RecordSink() = default;
  // Records from one host's journal, in sequence order, each exactly once. The launcher calls its sinks from
  // its own threads but never two calls at once, so a sink needs no locking of its own against the launcher.
  virtual void onRecords(const std::string& jobId, const std::string& host,
                         const std::vector<v1::Record>& records) = 0;
  // The watch of `host`'s journal broke (`why`); the launcher reconnects by itself and resumes where it was.
  virtual void onConnectionLost(const std::string& /*jobId*/, const std::string& /*host*/,
                                const std::string& /*why*/) {}
  // ... and is back; `backfilled`: the records that had piled up meanwhile (delivered through onRecords
  // first).
  virtual void onConnectionRestored(const std::string& /*jobId*/, const std::string& /*host*/,
                                    uint64_t /*backfilled*/) {}
};

}  // namespace ringmaster::console
