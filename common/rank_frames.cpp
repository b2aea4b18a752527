// SPDX-License-Identifier: GPL-3.0-or-later
#include "common/rank_frames.h"

#include <google/protobuf/stubs/logging.h>

#include <algorithm>

namespace ringmaster {

std::string encodeRankFrame(const v1::RankFrame& frame) {
  const std::string body = frame.SerializeAsString();
  const auto size = static_cast<uint32_t>(body.size());
  std::string out;
  out.reserve(4 + body.size());
  for (int shift = 0; shift < 32; shift += 8) out.push_back(static_cast<char>((size >> shift) & 0xFF));
  out += body;
  return out;
}

std::optional<v1::RankFrame> RankFrameReader::next() {
  if (!error_.empty()) return std::nullopt;
  if (!magicSeen_) {
    const size_t have = std::min(pending(), magic_.size());
    if (std::string_view(buffer_).substr(offset_, have) != magic_.substr(0, have)) {
      error_ = "the stream does not begin as Ringmaster's rank records do (\"" +
               std::string(magic_.substr(0, magic_.size() - 1)) + "\")";
      return std::nullopt;
    }
    if (have < magic_.size()) return std::nullopt;
    offset_ += magic_.size();
    magicSeen_ = true;
  }
  if (pending() < 4) return std::nullopt;
  uint32_t size = 0;
  for (int i = 0; i < 4; ++i) size |= uint32_t{static_cast<unsigned char>(buffer_[offset_ + i])} << (8 * i);
  if (size > kMaxRankFrameBytes) {
    error_ = "frame " + std::to_string(frames_ + 1) + " claims " + std::to_string(size) +
             " bytes, more than the " + std::to_string(kMaxRankFrameBytes >> 20) + " MiB a frame may hold";
    return std::nullopt;
  }
  if (pending() < 4 + size) return std::nullopt;
  v1::RankFrame frame;
  // A damaged frame is told by error(), for the reader's caller to name its source, not by protobuf's log.
  google::protobuf::LogSilencer quiet;
  if (!frame.ParseFromArray(buffer_.data() + offset_ + 4, static_cast<int>(size))) {
    error_ = "frame " + std::to_string(frames_ + 1) + " is not a RankFrame message";
    return std::nullopt;
  }
  offset_ += 4 + size;
  ++frames_;
  // Keep the buffer from growing without bound: drop what has been read once it is most of it.
  if (offset_ > (size_t{1} << 20) && offset_ * 2 > buffer_.size()) {
    buffer_.erase(0, offset_);
    offset_ = 0;
  }
  return frame;
}

}  // namespace ringmaster
