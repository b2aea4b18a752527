// SPDX-License-Identifier: GPL-3.0-or-later
// For the run store's chunk fuzz targets (timeline and steps): any input made into a chunk blob whose
// deflated part is right, so that the fuzzer reaches the columns behind zlib's check.
#pragma once

#include <zlib.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace ringmaster::fuzz {

inline bool readVarint(std::string_view bytes, size_t& at, uint64_t& value) {
  value = 0;
  for (int shift = 0; shift < 64 && at < bytes.size(); shift += 7) {
    const auto byte = static_cast<uint8_t>(bytes[at++]);
    value |= uint64_t(byte & 0x7F) << shift;
    if ((byte & 0x80) == 0) return true;
  }
  return false;
}

inline void putVarint(std::string& out, uint64_t value) {
  while (value >= 0x80) {
    out.push_back(static_cast<char>(value | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<char>(value));
}

// The input's header (format byte, item count, unpacked size) with what follows it as the unpacked columns,
// deflated; empty when the input has no header.
inline std::string withColumnsDeflated(std::string_view input) {
  size_t at = 1;
  uint64_t count = 0, packedSize = 0;
  if (input.empty() || !readVarint(input, at, count) || !readVarint(input, at, packedSize)) return {};
  const std::string_view packed = input.substr(at);
  std::string blob(1, input[0]);
  putVarint(blob, count);
  putVarint(blob, packed.size());
  uLongf size = compressBound(uLong(packed.size()));
  std::string deflated(size, '\0');
  if (compress2(reinterpret_cast<Bytef*>(deflated.data()), &size,
                reinterpret_cast<const Bytef*>(packed.data()), uLong(packed.size()), Z_BEST_SPEED) != Z_OK) {
    return {};
  }
  return blob.append(deflated, 0, size);
}

}  // namespace ringmaster::fuzz
