// SPDX-License-Identifier: GPL-3.0-or-later
// Streams the events of a Chrome trace JSON file (the format of chrome://tracing, Perfetto, PyTorch's
// profiler and Horovod's timeline) without building a document: a bare array of events, or an object whose
// "traceEvents" member holds them. Each whole event is handed to a callback as it is read. The other members
// of such an object (PyTorch's "distributedInfo", "baseTimeNanoseconds", ...) are kept as text.
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <istream>
#include <map>
#include <memory>
#include <streambuf>
#include <string>

namespace ringmaster {

struct TraceEvent {
  char phase = 0;  // "ph": B, E, X, i, I, M, C, ...; 0 when absent
  std::string name;
  std::string category;
  double tsUs = 0;  // microseconds
  double durUs = 0;
  bool hasDur = false;
  bool hasTid = false;
  std::string pid;  // as written (numbers as text), "" when absent
  std::string tid;
  std::string scope;                        // "s" of instant events
  std::map<std::string, std::string> args;  // scalars as text; nested values as "{...}" / "[...]"
};

// A trace's time (microseconds, as "ts" and "dur" are written) in the nanoseconds Ringmaster keeps.
inline int64_t traceTimeToNs(double us) {
  return std::llround(us * 1000.0);
}

struct TraceReadSummary {
  uint64_t events = 0;  // whole events delivered
  uint64_t bytesRead = 0;
  bool complete = true;    // false when the input stopped inside the document
  bool bareArray = false;  // a bare array (Horovod) rather than {"traceEvents": [...]}
  // Scalar members of the root object, and those of its objects one level down as "object.member"
  // ("distributedInfo.rank" -> "3"); numbers as written.
  std::map<std::string, std::string> metadata;
};

// Reads every event from `in`, calling `visit` for each whole one. Throws JsonError (with a byte position) on
// malformed JSON, and InputError when the JSON holds no trace events at all or an event (or any one value
// outside the events) larger than 16 MiB, which is refused before it is held in memory.
TraceReadSummary readChromeTrace(std::istream& in, const std::function<void(const TraceEvent&)>& visit);

// "a FIFO", "a character device", "a socket", ... for a file's st_mode, for messages.
const char* fileKind(unsigned mode);

// A trace file opened for reading: plain or gzip-compressed (as tensorboard_trace_handler writes them), read
// through zlib either way, with a UTF-8 byte order mark at its start passed over.
class TraceFile {
 public:
  // Throws InputError saying why when it cannot be opened or is not a regular file (a FIFO, a device, a
  // socket: refused by its type, never read).
  explicit TraceFile(const std::string& path);
  ~TraceFile();
  TraceFile(const TraceFile&) = delete;
  TraceFile& operator=(const TraceFile&) = delete;

  std::istream& stream() { return stream_; }

 private:
  class Buffer;
  std::unique_ptr<Buffer> buffer_;
  std::istream stream_;
};

}  // namespace ringmaster
