// SPDX-License-Identifier: GPL-3.0-or-later
// The Chrome trace reader (traces/chrome_trace_reader.h): any bytes as a trace file, its events scanned as a
// PyTorch profiler trace's (traces/pytorch_trace.h) as the importer scans them.
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>

#include "common/error.h"
#include "common/json.h"
#include "traces/chrome_trace_reader.h"
#include "traces/pytorch_trace.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  uint32_t visited = 0;
  ringmaster::PyTorchTraceScanner scanner;
  try {
    const ringmaster::TraceReadSummary summary = ringmaster::readChromeTrace(
        in, [&](const ringmaster::TraceEvent& event) { scanner.add(event, visited++); });
    if (summary.events != visited) std::abort();  // the summary counts what the callback was given
    scanner.finish(summary);
  } catch (const ringmaster::JsonError&) {
  } catch (const ringmaster::InputError&) {
  }
  return 0;
}
