// SPDX-License-Identifier: GPL-3.0-or-later
// The journal frame reader (agent/journal.h): any bytes as a journal file, read whole (readJournalFile) and
// as an agent reopens a finished job's journal to serve Watch(from_seq). Each input is read twice: as it is,
// and with every frame's CRC made right, so that the fuzzer reaches the record batches behind the checksum.
#include <zlib.h>

#include <cstdint>
#include <stdexcept>
#include <string>

#include "agent/journal.h"
#include "memory_file.h"
#include "quiet_protobuf.h"

namespace {

constexpr size_t kHeaderBytes = 8;       // "RMJRNL1\n"
constexpr size_t kFrameHeaderBytes = 8;  // length, crc32

uint32_t getU32(const std::string& bytes, size_t at) {
  uint32_t v = 0;
  for (size_t i = 0; i < 4; ++i) v |= uint32_t{static_cast<unsigned char>(bytes[at + i])} << (8 * i);
  return v;
}

void putU32(std::string& bytes, size_t at, uint32_t v) {
  for (size_t i = 0; i < 4; ++i) bytes[at + i] = static_cast<char>((v >> (8 * i)) & 0xff);
}

// `bytes` with the CRC of every whole frame set to what its payload has.
std::string withRightChecksums(std::string bytes) {
  size_t offset = kHeaderBytes;
  while (offset + kFrameHeaderBytes <= bytes.size()) {
    const size_t length = getU32(bytes, offset);
    const size_t payload = offset + kFrameHeaderBytes;
    if (length > bytes.size() - payload) break;
    putU32(bytes, offset + 4,
           static_cast<uint32_t>(
               crc32(0, reinterpret_cast<const Bytef*>(bytes.data() + payload), static_cast<uInt>(length))));
    offset = payload + length;
  }
  return bytes;
}

void readJournal(const std::string& path) {
  try {
    ringmaster::agent::readJournalFile(path);
  } catch (const std::runtime_error&) {
  }
  try {
    auto journal = ringmaster::agent::Journal::openFinished(path);
    const uint64_t last = journal->durableSeq();
    // A watcher from the start, reading in pages as the agent's Watch does, and one from each of a few
    // points.
    uint64_t from = 0;
    for (int page = 0; page < 64; ++page) {
      auto batch = journal->read(from, 7);
      if (!batch || batch->records_size() == 0) break;
      const uint64_t next = batch->records(batch->records_size() - 1).seq() + 1;
      if (next <= from) break;
      from = next;
    }
    for (uint64_t start : {uint64_t{1}, last / 2, last, last + 1}) journal->read(start, 1000);
  } catch (const std::runtime_error&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ringmaster::fuzz::quietProtobuf();
  static ringmaster::fuzz::MemoryFile file;
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  readJournal(file.hold(data, size));
  const std::string fixed = withRightChecksums(bytes);
  if (fixed != bytes) readJournal(file.hold(reinterpret_cast<const uint8_t*>(fixed.data()), fixed.size()));
  return 0;
}
