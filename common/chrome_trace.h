// SPDX-License-Identifier: GPL-3.0-or-later
// Writes timeline events as Chrome trace JSON (the JSON Array Format), which Perfetto and chrome://tracing
// open.
//
// The file is complete, valid JSON after every flush(): the closing "]" is always on disk and each flush
// overwrites it with the new events plus a new "]" in a single write, so a rank killed mid-run leaves a file
// that parses. (chrome://tracing would also accept a missing "]", Perfetto and strict JSON parsers would
// not.) Each rank is one process row (pid = rank) named with "M" metadata events; each lane is a thread in
// that row.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>

#include "common/json.h"
#include "ringmaster/v1/records.pb.h"

namespace ringmaster {

class ChromeTraceWriter {
 public:
  // Creates (or truncates) `path` and writes an empty trace. Throws InputError naming the file as `label`
  // (e.g.
  // "--timeline out.json"; default: the path).
  explicit ChromeTraceWriter(const std::string& path, const std::string& label = "");
  ~ChromeTraceWriter();  // flushes
  ChromeTraceWriter(const ChromeTraceWriter&) = delete;
  ChromeTraceWriter& operator=(const ChromeTraceWriter&) = delete;

  // Names rank `rank`'s row, e.g. "rank 0 (host-a)". Rows not named get "rank N" when their first event
  // comes.
  void nameRank(int rank, const std::string& label);
  // Queues one event: a complete "X" event, or an instant "i" event when it ends where it starts.
  void add(const v1::TimelineEvent& event);
  // Writes what is queued; afterwards the file is a complete JSON array. Throws InputError when the write
  // fails.
  void flush();

  const std::string& path() const { return path_; }
  uint64_t eventsWritten() const { return eventsWritten_; }

 private:
  int laneId(int rank, const std::string& lane);
  // Starts the next event in pending_; json_ writes it.
  void beginEvent();
  // A metadata event up to its one argument's value, which the caller writes; endMetadata closes it.
  void beginMetadata(const char* name, int pid, int tid, const char* argKey);
  void endMetadata();

  std::string path_;
  std::string label_;  // how messages name the file
  int fd_ = -1;
  uint64_t fileSize_ = 0;
  uint64_t eventsWritten_ = 0;
  uint64_t eventsQueued_ = 0;
  rapidjson::StringBuffer pending_;
  rapidjson::Writer<rapidjson::StringBuffer> json_;
  std::set<int> namedRanks_;
  std::map<int, std::map<std::string, int>> lanes_;  // rank -> lane -> thread id
  std::map<int, int> nextTensorLane_;                // rank -> lanes other than compute and comm so far
};

}  // namespace ringmaster
