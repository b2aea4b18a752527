// SPDX-License-Identifier: GPL-3.0-or-later
#include "history/chunk_bytes.h"

#include <zlib.h>

#include <new>

namespace ringmaster {

namespace {
// A damaged blob cannot ask for more than this.
constexpr uint64_t kMaxUnpackedBytes = 1u << 30;
}  // namespace

void putVarint(std::string& out, uint64_t value) {
  while (value >= 0x80) {
    out.push_back(static_cast<char>(value | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<char>(value));
}

uint64_t ChunkCursor::varint() {
  uint64_t value = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (at_ >= bytes_.size()) throw ChunkError(std::string(part_) + " ends early");
    const auto byte = static_cast<uint8_t>(bytes_[at_++]);
    value |= uint64_t(byte & 0x7F) << shift;
    if ((byte & 0x80) == 0) return value;
  }
  throw ChunkError(std::string(part_) + " holds a number longer than 64 bits");
}

std::string_view ChunkCursor::bytes(uint64_t length) {
  if (length > bytes_.size() - at_) throw ChunkError(std::string(part_) + " ends early");
  std::string_view out = bytes_.substr(at_, size_t(length));
  at_ += size_t(length);
  return out;
}

uint32_t ChunkCursor::index(size_t limit) {
  const uint64_t value = varint();
  if (value >= limit) throw ChunkError(std::string(part_) + " names a text the chunk does not hold");
  return uint32_t(value);
}

std::string packChunk(char format, uint64_t count, std::string_view packed, int level) {
  std::string blob(1, format);
  putVarint(blob, count);
  putVarint(blob, packed.size());
  uLongf size = compressBound(uLong(packed.size()));
  std::string deflated(size, '\0');
  const int rc = compress2(reinterpret_cast<Bytef*>(deflated.data()), &size,
                           reinterpret_cast<const Bytef*>(packed.data()), uLong(packed.size()), level);
  if (rc != Z_OK) throw std::bad_alloc();  // zlib fails here only when it cannot allocate
  // Appended rather than shrunk in place, so that the blob holds no more memory than its bytes: an import
  // keeps many chunks a while before storing them.
  blob.append(deflated, 0, size);
  return blob;
}

UnpackedChunk unpackChunk(std::string_view blob, char format, uint64_t maxCount, uint64_t minBytesPerItem,
                          const char* items) {
  if (blob.empty()) throw ChunkError("the chunk is empty");
  if (blob[0] != format) {
    throw ChunkError("the chunk is of format " + std::to_string(int(uint8_t(blob[0]))) +
                     ", which this build does not know");
  }
  ChunkCursor header(blob, "the chunk's header");
  header.skip(1);
  UnpackedChunk out;
  out.count = header.varint();
  const uint64_t packedSize = header.varint();
  const std::string_view deflated = blob.substr(header.offset());
  // deflate packs at most about 1032:1.
  if (out.count > maxCount || packedSize > kMaxUnpackedBytes || packedSize > 1100 * (deflated.size() + 16) ||
      out.count * minBytesPerItem > packedSize) {
    throw ChunkError("the chunk's header claims " + std::to_string(out.count) + " " + items + " in " +
                     std::to_string(packedSize) + " bytes, more than it can hold");
  }
  out.packed.assign(size_t(packedSize), '\0');
  uLongf size = uLongf(packedSize);
  const int rc = uncompress(reinterpret_cast<Bytef*>(out.packed.data()), &size,
                            reinterpret_cast<const Bytef*>(deflated.data()), uLong(deflated.size()));
  if (rc != Z_OK || size != packedSize) {
    throw ChunkError(std::string("the chunk's compressed data is damaged (zlib: ") +
                     (rc == Z_OK ? "wrong length" : zError(rc)) + ")");
  }
  return out;
}

}  // namespace ringmaster
