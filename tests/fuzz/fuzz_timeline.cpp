// SPDX-License-Identifier: GPL-3.0-or-later
// The timeline reader (readTimeline in traces/horovod_timeline_reader.h): any bytes as a Horovod timeline or
// a Chrome trace, turned into timeline events.
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>

#include "common/error.h"
#include "common/json.h"
#include "traces/horovod_timeline_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  uint64_t emitted = 0;
  try {
    const ringmaster::TimelineReadSummary summary =
        ringmaster::readTimeline(in, [&](ringmaster::v1::TimelineEvent&) { ++emitted; });
    if (summary.timelineEvents != emitted) std::abort();  // the summary counts what was emitted
  } catch (const ringmaster::JsonError&) {
  } catch (const ringmaster::InputError&) {
  }
  return 0;
}
