// SPDX-License-Identifier: GPL-3.0-or-later
// Streams the events of a Chrome trace JSON file (the format of chrome://tracing, Perfetto, PyTorch's profiler
// and Horovod's timeline) without building a document: a bare array of events, or an object whose
// "traceEvents" member holds them. Each whole event is handed to a callback as it is read.
#pragma once

#include <cstdint>
#include <functional>
#include <istream>
#include <map>
#include <string>

namespace ringmaster {

struct TraceEvent {
  char phase = 0;            // "ph": B, E, X, i, I, M, C, ...; 0 when absent
  std::string name;
  std::string category;
  double tsUs = 0;           // microseconds
  double durUs = 0;
  bool hasDur = false;
  bool hasTid = false;
  std::string pid;           // as written (numbers as text), "" when absent
  std::string tid;
  std::string scope;         // "s" of instant events
  std::map<std::string, std::string> args;  // scalars as text; nested values as "{...}" / "[...]"
};

struct TraceReadSummary {
  uint64_t events = 0;       // whole events delivered
  uint64_t bytesRead = 0;
  bool complete = true;      // false when the input stopped inside the document
  bool bareArray = false;    // a bare array (Horovod) rather than {"traceEvents": [...]}
};

// Reads every event from `in`, calling `visit` for each whole one. Throws JsonError (with a byte position) on
// malformed JSON, and InputError when the JSON holds no trace events at all.
TraceReadSummary readChromeTrace(std::istream& in, const std::function<void(const TraceEvent&)>& visit);

}  // namespace ringmaster
