// SPDX-License-Identifier: GPL-3.0-or-later
// The JSON reader every JSON input goes through (common/json.h): documents, SAX reading from memory and from
// a stream read in small chunks (the two must agree), and job specs in protobuf's JSON mapping (settings, job
// files), which must read back what they write.
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>
#include <string_view>

#include "common/json.h"
#include "quiet_protobuf.h"
#include "ringmaster/v1/job.pb.h"

namespace {

// Counts the events the reader hands out.
struct CountingHandler : rapidjson::BaseReaderHandler<rapidjson::UTF8<>, CountingHandler> {
  bool Default() {
    ++events;
    return true;
  }
  uint64_t events = 0;
};

// How one read ended: 'w' whole, 'e' ended early, 'x' malformed; and the events it saw.
struct Outcome {
  char end = 0;
  uint64_t events = 0;
  bool operator==(const Outcome& other) const { return end == other.end && events == other.events; }
};

template <class Read>
Outcome outcomeOf(Read read) {
  CountingHandler handler;
  Outcome outcome;
  try {
    outcome.end = read(handler) ? 'w' : 'e';
  } catch (const ringmaster::JsonError&) {
    outcome.end = 'x';
  }
  outcome.events = handler.events;
  return outcome;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ringmaster::fuzz::quietProtobuf();
  const std::string_view text(reinterpret_cast<const char*>(data), size);

  for (bool numbersAsText : {false, true}) {
    try {
      rapidjson::Document document = ringmaster::parseJson(text, numbersAsText);
      rapidjson::StringBuffer buffer;
      rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
      document.Accept(writer);
    } catch (const ringmaster::JsonError&) {
    }
  }

  // The stream reader refills at every chunk boundary; a chunk of 1 to 16 bytes puts boundaries everywhere.
  const Outcome fromMemory = outcomeOf([&](CountingHandler& h) { return ringmaster::readJson(text, h); });
  const size_t chunkBytes = size == 0 ? 1 : 1 + data[0] % 16;
  const Outcome fromStream = outcomeOf([&](CountingHandler& h) {
    std::istringstream in{std::string(text)};
    ringmaster::JsonInputStream stream(in, chunkBytes);
    return ringmaster::readJson(stream, h);
  });
  if (!(fromMemory == fromStream)) std::abort();  // the same text read two ways must read the same

  ringmaster::v1::JobSpec spec;
  if (ringmaster::messageFromJson(text, spec)) {
    const std::string written = ringmaster::messageToJson(spec);
    ringmaster::v1::JobSpec back;
    if (!ringmaster::messageFromJson(written, back)) std::abort();  // what we write, we read
    if (back.SerializeAsString() != spec.SerializeAsString()) std::abort();
  }
  return 0;
}
