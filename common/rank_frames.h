// SPDX-License-Identifier: GPL-3.0-or-later
// The frames a user program's rank writes to its host's agent over a Unix socket, or to a record file when no
// agent runs (protocol/ringmaster/v1/telemetry.proto, RankFrame): an 8-byte magic, then frames of
// [u32 length, little endian][RankFrame bytes]. Reading is incremental, so that a socket's bytes can be fed
// as they arrive and a torn last frame of a file is told from a bad one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "ringmaster/v1/telemetry.pb.h"

namespace ringmaster {

inline constexpr std::string_view kRankSocketMagic = "RMRANK1\n";
inline constexpr std::string_view kRecordFileMagic = "RMRECS1\n";
inline constexpr size_t kMaxRankFrameBytes = size_t{64} << 20;

// `frame` with its length in front, as it goes on the wire.
std::string encodeRankFrame(const v1::RankFrame& frame);

class RankFrameReader {
 public:
  // `magic`: what the bytes must begin with (kRankSocketMagic or kRecordFileMagic).
  explicit RankFrameReader(std::string_view magic) : magic_(magic) {}

  void feed(std::string_view bytes) { buffer_.append(bytes.data(), bytes.size()); }
  // The next whole frame; nullopt when more bytes are needed or the stream is bad (then error() says why, for
  // a person, and every later call returns nullopt).
  std::optional<v1::RankFrame> next();

  const std::string& error() const { return error_; }
  // Bytes fed but not yet part of a whole frame (a file's torn last frame once everything is fed).
  size_t pending() const { return buffer_.size() - offset_; }
  // Whole frames read so far.
  uint64_t frames() const { return frames_; }

 private:
  std::string_view magic_;
  std::string buffer_;
  size_t offset_ = 0;
  bool magicSeen_ = false;
  uint64_t frames_ = 0;
  std::string error_;
};

}  // namespace ringmaster
