// SPDX-License-Identifier: GPL-3.0-or-later
// The Chrome trace reader (common/chrome_trace_reader.h): any bytes as a trace file.
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>

#include "common/chrome_trace_reader.h"
#include "common/error.h"
#include "common/json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  uint64_t visited = 0;
  try {
    const ringmaster::TraceReadSummary summary =
        ringmaster::readChromeTrace(in, [&](const ringmaster::TraceEvent&) { ++visited; });
    if (summary.events != visited) std::abort();  // the summary counts what the callback was given
  } catch (const ringmaster::JsonError&) {
  } catch (const ringmaster::InputError&) {
  }
  return 0;
}
