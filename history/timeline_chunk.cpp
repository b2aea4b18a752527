// SPDX-License-Identifier: GPL-3.0-or-later
#include "history/timeline_chunk.h"

#include <zlib.h>

#include <algorithm>

namespace ringmaster {

namespace {

constexpr char kFormat = 1;
// deflate's fastest level: on these columns it packs within a few percent of the default level at several
// times the speed, and an import is bound by its time.
constexpr int kLevel = Z_BEST_SPEED;
// What a blob may claim, so that a damaged one cannot ask for gigabytes.
constexpr uint64_t kMaxEvents = 1u << 24;

using Cursor = ChunkCursor;

}  // namespace

uint32_t TimelineChunkEncoder::text(const std::string& value) {
  auto [it, added] = textIds_.try_emplace(value, uint32_t(texts_.size()));
  if (added) {
    texts_.push_back(&it->first);
    textBytes_ += value.size();
  }
  return it->second;
}

void TimelineChunkEncoder::add(const v1::TimelineEvent& event) {
  const int64_t start = event.start_ns();
  const int64_t end = event.end_ns();
  if (count_ == 0) {
    firstStartNs_ = start;
    lastEndNs_ = end;
  } else {
    firstStartNs_ = std::min(firstStartNs_, start);
    lastEndNs_ = std::max(lastEndNs_, end);
  }
  putVarint(starts_, zigzag(uint64_t(start) - uint64_t(previousStart_)));
  putVarint(durations_, zigzag(uint64_t(end) - uint64_t(start)));
  putVarint(names_, text(event.name()));
  putVarint(steps_, zigzag(event.step() - previousStep_));
  putVarint(args_, uint64_t(event.args().size()));
  if (!event.args().empty()) {
    // Protobuf's map has no fixed order; sorted, equal args pack alike.
    std::vector<std::pair<const std::string*, const std::string*>> sorted;
    sorted.reserve(size_t(event.args().size()));
    for (const auto& [key, value] : event.args()) sorted.emplace_back(&key, &value);
    std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return *a.first < *b.first; });
    for (const auto& [key, value] : sorted) {
      putVarint(args_, text(*key));
      putVarint(args_, text(*value));
    }
  }
  previousStart_ = start;
  previousStep_ = event.step();
  ++count_;
}

void TimelineChunkEncoder::clear() {
  *this = TimelineChunkEncoder();
}

std::string TimelineChunkEncoder::encode() const {
  std::string packed;
  putVarint(packed, texts_.size());
  for (const std::string* t : texts_) {
    putVarint(packed, t->size());
    packed += *t;
  }
  for (const std::string* column : {&starts_, &durations_, &names_, &steps_, &args_}) {
    putVarint(packed, column->size());
    packed += *column;
  }
  return packChunk(kFormat, count_, packed, kLevel);
}

void decodeTimelineChunk(std::string_view blob, int rank, const std::string& lane,
                         const std::function<void(const v1::TimelineEvent&)>& visit) {
  // Every event takes a byte in each of the five columns.
  UnpackedChunk unpacked = unpackChunk(blob, kFormat, kMaxEvents, 5, "events");
  const uint64_t count = unpacked.count;
  const std::string& packed = unpacked.packed;
  const uint64_t packedSize = packed.size();

  Cursor body(packed, "the chunk's texts");
  const uint64_t textCount = body.varint();
  if (textCount > packedSize) throw TimelineChunkError("the chunk's texts are more than its bytes");
  std::vector<std::string_view> texts;
  texts.reserve(size_t(textCount));
  for (uint64_t i = 0; i < textCount; ++i) texts.push_back(body.bytes(body.varint()));
  Cursor starts(body.bytes(body.varint()), "the chunk's start times");
  Cursor durations(body.bytes(body.varint()), "the chunk's durations");
  Cursor names(body.bytes(body.varint()), "the chunk's names");
  Cursor steps(body.bytes(body.varint()), "the chunk's steps");
  Cursor args(body.bytes(body.varint()), "the chunk's args");
  if (!body.atEnd()) throw TimelineChunkError("the chunk holds bytes after its last column");

  // Everything is checked before the first event is handed out.
  struct Decoded {
    int64_t start, end;
    uint64_t step;
    uint32_t name;
    uint32_t args, argCount;  // first pair in `pairs`
  };
  std::vector<Decoded> events(static_cast<size_t>(count));
  std::vector<uint32_t> pairs;
  uint64_t start = 0, step = 0;
  for (auto& e : events) {
    start += unzigzag(starts.varint());
    e.start = int64_t(start);
    e.end = int64_t(start + unzigzag(durations.varint()));
    e.name = names.index(texts.size());
    step += unzigzag(steps.varint());
    e.step = step;
    const uint64_t argCount = args.varint();
    if (argCount > texts.size() * texts.size()) throw TimelineChunkError("the chunk's args are damaged");
    e.args = uint32_t(pairs.size());
    e.argCount = uint32_t(argCount);
    for (uint64_t i = 0; i < 2 * argCount; ++i) pairs.push_back(args.index(texts.size()));
  }
  if (!starts.atEnd() || !durations.atEnd() || !names.atEnd() || !steps.atEnd() || !args.atEnd()) {
    throw TimelineChunkError("the chunk's columns hold more than its " + std::to_string(count) + " events");
  }

  v1::TimelineEvent event;
  event.set_rank(rank);
  event.set_lane(lane);
  for (const auto& e : events) {
    event.set_start_ns(e.start);
    event.set_end_ns(e.end);
    event.set_step(e.step);
    event.set_name(std::string(texts[e.name]));
    auto& map = *event.mutable_args();
    map.clear();
    for (uint32_t i = 0; i < e.argCount; ++i) {
      const uint32_t key = pairs[e.args + 2 * i], value = pairs[e.args + 2 * i + 1];
      map[std::string(texts[key])] = std::string(texts[value]);
    }
    visit(event);
  }
}

}  // namespace ringmaster
