// SPDX-License-Identifier: GPL-3.0-or-later
// The rank frame reader (common/rank_frames.h) on any bytes as a record file: fed whole, and fed a few bytes
// at a time as a socket or a file read in chunks hands them over, each batch's records going through the
// checks an import makes (rankRecordProblem). Both readings give the same frames and the same end; the frames
// read, written again with encodeRankFrame behind the magic, read back the same.
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "common/rank_frames.h"
#include "common/record_checks.h"
#include "quiet_protobuf.h"

namespace {

// A message's bytes, the same for the same message (maps in key order).
std::string canonical(const google::protobuf::Message& message) {
  std::string out;
  {
    google::protobuf::io::StringOutputStream stream(&out);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    message.SerializeToCodedStream(&coded);
  }
  return out;
}

struct Reading {
  std::vector<std::string> frames;  // each frame, canonical
  std::string error;
  size_t pending = 0;
};

Reading readAll(std::string_view bytes, size_t chunkSeed) {
  ringmaster::RankFrameReader reader(ringmaster::kRecordFileMagic);
  Reading out;
  int rank = 0;
  size_t at = 0;
  const auto drain = [&] {
    while (auto frame = reader.next()) {
      if (frame->has_hello()) rank = frame->hello().rank();
      if (frame->has_batch()) {
        for (const auto& record : frame->batch().records()) ringmaster::rankRecordProblem(record, rank, 4096);
      }
      out.frames.push_back(canonical(*frame));
    }
  };
  while (at < bytes.size()) {
    // Whole when chunkSeed is 0, else 1-16 bytes at a time.
    const size_t step = chunkSeed == 0 ? bytes.size() : 1 + (chunkSeed + at) % 16;
    reader.feed(bytes.substr(at, step));
    at += std::min(step, bytes.size() - at);
    drain();
  }
  drain();
  out.error = reader.error();
  out.pending = reader.pending();
  if (reader.frames() != out.frames.size()) std::abort();
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ringmaster::fuzz::quietProtobuf();
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  const Reading whole = readAll(bytes, 0);
  const Reading chunked = readAll(bytes, size > 0 ? data[0] + 1 : 1);
  if (whole.frames != chunked.frames || whole.error.empty() != chunked.error.empty()) std::abort();
  if (whole.error.empty() && whole.pending != chunked.pending) std::abort();
  // What was read, written again, reads back the same, with nothing left over.
  std::string again(ringmaster::kRecordFileMagic);
  for (const auto& body : whole.frames) {
    ringmaster::v1::RankFrame frame;
    if (!frame.ParseFromString(body)) std::abort();
    again += ringmaster::encodeRankFrame(frame);
  }
  const Reading reread = readAll(again, 0);
  if (!reread.error.empty() || reread.pending != 0 || reread.frames != whole.frames) std::abort();
  return 0;
}
