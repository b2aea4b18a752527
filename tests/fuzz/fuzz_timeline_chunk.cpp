// SPDX-License-Identifier: GPL-3.0-or-later
// The timeline chunk decoder (decodeTimelineChunk in history/timeline_chunk.h): any bytes as a chunk's blob,
// as the run store reads one back. Each input is read twice: as it is, and with what follows its header taken
// as the unpacked columns and deflated again (the header's size made right), so that the fuzzer reaches the
// columns behind zlib's check. A chunk that decodes must encode again to the same events, and a chunk that
// is refused must have visited none.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "history/timeline_chunk.h"
#include "tests/fuzz/chunk_blobs.h"

namespace {

using ringmaster::v1::TimelineEvent;

// What a reader sees of an event (the args sorted: a protobuf map has no order).
struct Seen {
  int64_t start, end;
  uint64_t step;
  std::string name;
  std::map<std::string, std::string> args;
  bool operator==(const Seen& other) const {
    return start == other.start && end == other.end && step == other.step && name == other.name &&
           args == other.args;
  }
};

Seen seen(const TimelineEvent& e) {
  return {e.start_ns(), e.end_ns(), e.step(), e.name(), {e.args().begin(), e.args().end()}};
}

// The events `blob` holds; false when it is refused (after checking that it visited none then).
bool decode(std::string_view blob, std::vector<Seen>& out) {
  size_t visited = 0;
  try {
    ringmaster::decodeTimelineChunk(blob, 7, "lane", [&](const TimelineEvent& e) {
      if (e.rank() != 7 || e.lane() != "lane") std::abort();  // the chunk's rank and lane are the reader's
      ++visited;
      out.push_back(seen(e));
    });
  } catch (const ringmaster::TimelineChunkError&) {
    if (visited != 0) std::abort();  // refused after handing out events
    return false;
  }
  return true;
}

// A decoded chunk packs again into the same events.
void checkRoundTrip(const std::vector<Seen>& events) {
  ringmaster::TimelineChunkEncoder encoder;
  for (const auto& s : events) {
    TimelineEvent e;
    e.set_start_ns(s.start);
    e.set_end_ns(s.end);
    e.set_step(s.step);
    e.set_name(s.name);
    for (const auto& [key, value] : s.args) (*e.mutable_args())[key] = value;
    encoder.add(e);
  }
  if (encoder.size() != events.size()) std::abort();
  std::vector<Seen> again;
  if (!decode(encoder.encode(), again) || again != events) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  for (const std::string& blob : {std::string(input), ringmaster::fuzz::withColumnsDeflated(input)}) {
    std::vector<Seen> events;
    if (decode(blob, events)) checkRoundTrip(events);
  }
  return 0;
}
