// SPDX-License-Identifier: GPL-3.0-or-later
// The step chunk decoder (decodeStepChunk in history/step_chunk.h): any bytes as a chunk's blob, as the run
// store reads one back, as given and with what follows its header deflated as the chunk's columns. A chunk
// that decodes must encode again to the same steps, bit for bit, and a chunk that is refused must have
// visited none.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "history/step_chunk.h"
#include "tests/fuzz/chunk_blobs.h"

namespace {

using ringmaster::v1::StepSample;

// The steps `blob` holds, serialized (doubles keep their bits); false when it is refused.
bool decode(std::string_view blob, std::vector<std::string>& out) {
  size_t visited = 0;
  try {
    ringmaster::decodeStepChunk(blob, 7, [&](StepSample&& s) {
      if (s.rank() != 7) std::abort();  // the chunk's rank is the reader's
      ++visited;
      out.push_back(s.SerializeAsString());
    });
  } catch (const ringmaster::ChunkError&) {
    if (visited != 0) std::abort();  // refused after handing out steps
    return false;
  }
  return true;
}

void checkRoundTrip(const std::vector<std::string>& steps) {
  ringmaster::StepChunkEncoder encoder;
  for (const auto& bytes : steps) {
    StepSample s;
    if (!s.ParseFromString(bytes)) std::abort();
    encoder.add(s);
  }
  std::vector<std::string> again;
  if (!decode(encoder.encode(), again) || again != steps) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  for (const std::string& blob : {std::string(input), ringmaster::fuzz::withColumnsDeflated(input)}) {
    std::vector<std::string> steps;
    if (decode(blob, steps)) checkRoundTrip(steps);
  }
  return 0;
}
