// SPDX-License-Identifier: GPL-3.0-or-later
// Writes every rank's timeline events, as they arrive, into one Chrome trace file: one row per rank, named
// "rank N (host)". Valid JSON after every batch, so a job killed mid-run leaves a file that opens.
#pragma once

#include <set>

#include "common/chrome_trace.h"
#include "console/session/record_sink.h"

namespace ringmaster::console {

class TimelineSink : public RecordSink {
 public:
  // Throws InputError naming the path when the file cannot be created.
  explicit TimelineSink(const std::string& path) : writer_(path) {}

  void onRecords(const std::string&, const std::string& host,
                 const std::vector<v1::Record>& records) override {
    for (const auto& record : records) {
      if (record.has_rank_state() && named_.insert(record.rank_state().rank()).second) {
        writer_.nameRank(record.rank_state().rank(),
                         "rank " + std::to_string(record.rank_state().rank()) + " (" + host + ")");
      }
      if (record.has_timeline()) writer_.add(record.timeline());
    }
    writer_.flush();
  }
  uint64_t eventsWritten() const { return writer_.eventsWritten(); }

 private:
  ChromeTraceWriter writer_;
  std::set<int> named_;
};

}  // namespace ringmaster::console
