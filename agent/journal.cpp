// SPDX-License-Identifier: GPL-3.0-or-later
#include "agent/journal.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iterator>
#include <stdexcept>

namespace ringmaster::agent {
namespace {

constexpr char kHeader[] = "RMJRNL1\n";
constexpr size_t kHeaderSize = sizeof(kHeader) - 1;
constexpr size_t kFrameHeaderSize = 8;
// A frame larger than this is corruption, not data (a group commit is bounded by kMaxQueued records).
constexpr uint32_t kMaxFrameBytes = 1u << 30;

std::runtime_error fileError(const std::string& what, const std::string& path) {
  return std::runtime_error(what + " " + path + ": " + std::strerror(errno));
}

void putU32(char* out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out[i] = static_cast<char>((v >> (8 * i)) & 0xff);
}

uint32_t getU32(const char* in) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= static_cast<uint32_t>(static_cast<unsigned char>(in[i])) << (8 * i);
  return v;
}

uint32_t crc32Of(const std::string& bytes) {
  return static_cast<uint32_t>(
      crc32(0, reinterpret_cast<const Bytef*>(bytes.data()), static_cast<uInt>(bytes.size())));
}

void writeAll(int fd, const char* data, size_t size, const std::string& path) {
  while (size > 0) {
    ssize_t n = ::write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw fileError("cannot write journal", path);
    data += n;
    size -= static_cast<size_t>(n);
  }
}

bool readAllAt(int fd, char* data, size_t size, uint64_t offset) {
  while (size > 0) {
    ssize_t n = ::pread(fd, data, size, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<size_t>(n);
    offset += static_cast<uint64_t>(n);
  }
  return true;
}

// Walks the whole frames of an open journal file, calling `frame(offset, length, batch)` for each.
template <typename Visit>
void scanFrames(int fd, const std::string& path, Visit frame) {
  char header[kHeaderSize];
  if (!readAllAt(fd, header, kHeaderSize, 0) || std::memcmp(header, kHeader, kHeaderSize) != 0) {
    throw std::runtime_error(path + " is not a Ringmaster journal (bad header)");
  }
  // The file's size now (a journal being written grows while it is read).
  auto fileSize = [&] {
    struct stat info {};
    if (::fstat(fd, &info) != 0) throw fileError("cannot read journal", path);
    return static_cast<uint64_t>(info.st_size);
  };
  uint64_t offset = kHeaderSize;
  std::string payload;
  while (true) {
    char frameHeader[kFrameHeaderSize];
    if (!readAllAt(fd, frameHeader, kFrameHeaderSize, offset)) return;  // end, or a torn frame header
    uint32_t length = getU32(frameHeader);
    uint32_t crc = getU32(frameHeader + 4);
    // A length past the end of the file is a torn or damaged frame: no buffer for bytes that are not there.
    if (length > kMaxFrameBytes || offset + kFrameHeaderSize + length > fileSize()) return;
    payload.resize(length);
    if (!readAllAt(fd, payload.data(), length, offset + kFrameHeaderSize)) return;  // torn payload
    if (crc32Of(payload) != crc) return;  // torn or damaged: nothing after it can be trusted
    auto batch = std::make_shared<v1::RecordBatch>();
    if (!batch->ParseFromString(payload)) return;
    frame(offset + kFrameHeaderSize, length, std::move(batch));
    offset += kFrameHeaderSize + length;
  }
}

}  // namespace

std::unique_ptr<Journal> Journal::create(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_APPEND, 0640);
  if (fd < 0) throw fileError("cannot create journal", path);
  std::unique_ptr<Journal> journal(new Journal(path, fd));
  writeAll(fd, kHeader, kHeaderSize, path);
  journal->fileSize_ = kHeaderSize;
  journal->writer_ = std::thread([j = journal.get()] { j->writeLoop(); });
  return journal;
}

std::unique_ptr<Journal> Journal::openFinished(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw fileError("cannot open journal", path);
  std::unique_ptr<Journal> journal(new Journal(path, fd));
  scanFrames(fd, path, [&](uint64_t offset, uint32_t length, std::shared_ptr<v1::RecordBatch> batch) {
    if (batch->records_size() == 0) return;
    Chunk chunk{batch->records(0).seq(), batch->records(batch->records_size() - 1).seq(), offset, length,
                nullptr};
    journal->chunks_.push_back(chunk);
    journal->durableSeq_ = chunk.lastSeq;
  });
  journal->nextSeq_ = journal->durableSeq_ + 1;
  journal->closing_ = true;
  journal->finished_ = true;
  return journal;
}

Journal::Journal(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}

Journal::~Journal() {
  close();
  if (writer_.joinable()) writer_.join();
  ::close(fd_);
}

uint64_t Journal::append(std::vector<v1::Record> records) {
  v1::RecordBatch batch;
  batch.mutable_records()->Reserve(static_cast<int>(records.size()));
  for (auto& record : records) *batch.add_records() = std::move(record);
  return append(std::move(batch));
}

uint64_t Journal::append(v1::RecordBatch&& batch) {
  if (batch.records_size() == 0) return 0;
  std::unique_lock lock(mutex_);
  queueChanged_.wait(lock, [&] { return queuedRecords_ < kMaxQueued || closing_; });
  if (closing_) return 0;
  for (auto& record : *batch.mutable_records()) record.set_seq(nextSeq_++);
  queuedRecords_ += static_cast<size_t>(batch.records_size());
  queued_.push_back(
      std::move(batch));  // a protobuf move: the fields are swapped, the records stay where they are
  queueChanged_.notify_all();
  return nextSeq_ - 1;
}

void Journal::close() {
  std::vector<std::function<void()>> ready;
  {
    std::lock_guard lock(mutex_);
    closing_ = true;
    if (!writer_.joinable()) {  // read-only journals have no writer to finish them
      finished_ = true;
      ready = takeReadyWaiters();
    }
  }
  queueChanged_.notify_all();
  for (auto& r : ready) r();
}

void Journal::notifyWhen(uint64_t seq, std::function<void()> ready) {
  {
    std::lock_guard lock(mutex_);
    if (durableSeq_ < seq && !finished_) {
      waiters_.push_back({seq, std::move(ready)});
      return;
    }
  }
  ready();
}

std::vector<std::function<void()>> Journal::takeReadyWaiters() {
  std::vector<std::function<void()>> ready;
  auto keep = std::partition(waiters_.begin(), waiters_.end(),
                             [&](const Waiter& w) { return w.seq > durableSeq_ && !finished_; });
  for (auto it = keep; it != waiters_.end(); ++it) ready.push_back(std::move(it->ready));
  waiters_.erase(keep, waiters_.end());
  return ready;
}

void Journal::writeLoop() {
  while (true) {
    // One group commit: the oldest queued batches up to kMaxGroupRecords records (at least one batch), joined
    // by moving record pointers into the first.
    auto batch = std::make_shared<v1::RecordBatch>();
    {
      std::unique_lock lock(mutex_);
      queueChanged_.wait(lock, [&] { return !queued_.empty() || closing_; });
      if (queued_.empty()) {
        finished_ = true;
        auto ready = takeReadyWaiters();
        lock.unlock();
        for (auto& r : ready) r();
        return;
      }
      *batch = std::move(queued_.front());
      queued_.pop_front();
      auto* records = batch->mutable_records();
      while (!queued_.empty() &&
             static_cast<size_t>(records->size() + queued_.front().records_size()) <= kMaxGroupRecords) {
        auto* next = queued_.front().mutable_records();
        std::vector<v1::Record*> moved(static_cast<size_t>(next->size()));
        next->ExtractSubrange(0, next->size(), moved.data());
        for (auto* record : moved) records->AddAllocated(record);
        queued_.pop_front();
      }
      queuedRecords_ -= static_cast<size_t>(records->size());
    }
    queueChanged_.notify_all();  // appenders waiting for room

    std::string payload = batch->SerializeAsString();
    char frameHeader[kFrameHeaderSize];
    putU32(frameHeader, static_cast<uint32_t>(payload.size()));
    putU32(frameHeader + 4, crc32Of(payload));
    // One write for header and payload, then one flush to disk per group: the journal is the source of truth.
    std::string frame(frameHeader, kFrameHeaderSize);
    frame += payload;
    try {
      writeAll(fd_, frame.data(), frame.size(), path_);
    } catch (const std::exception& e) {
      failWriting(e.what());
      return;
    }
    ::fdatasync(fd_);

    Chunk chunk{batch->records(0).seq(), batch->records(batch->records_size() - 1).seq(),
                fileSize_ + kFrameHeaderSize, static_cast<uint32_t>(payload.size()), std::move(batch)};
    fileSize_ += frame.size();
    std::vector<std::function<void()>> ready;
    {
      std::lock_guard lock(mutex_);
      memoryBytes_ += chunk.length;
      durableSeq_ = chunk.lastSeq;
      chunks_.push_back(std::move(chunk));
      evictOverBudget();
      ready = takeReadyWaiters();
    }
    for (auto& r : ready) r();
  }
}

void Journal::failWriting(const std::string& why) {
  std::vector<std::function<void()>> ready;
  {
    std::lock_guard lock(mutex_);
    error_ = why;
    closing_ = true;
    finished_ = true;
    queued_.clear();
    queuedRecords_ = 0;
    ready = takeReadyWaiters();
  }
  queueChanged_.notify_all();
  for (auto& r : ready) r();
}

std::string Journal::error() const {
  std::lock_guard lock(mutex_);
  return error_;
}

void Journal::evictOverBudget() {
  for (auto& chunk : chunks_) {
    if (memoryBytes_ <= kMemoryBudgetBytes) return;
    if (!chunk.batch) continue;
    chunk.batch.reset();
    memoryBytes_ -= chunk.length;
  }
}

std::shared_ptr<const v1::RecordBatch> Journal::loadChunk(const Chunk& chunk) const {
  std::string payload(chunk.length, '\0');
  auto batch = std::make_shared<v1::RecordBatch>();
  if (!readAllAt(fd_, payload.data(), chunk.length, chunk.offset) || !batch->ParseFromString(payload)) {
    throw std::runtime_error("journal " + path_ + " cannot be read back at offset " +
                             std::to_string(chunk.offset));
  }
  return batch;
}

std::shared_ptr<const v1::RecordBatch> Journal::read(uint64_t fromSeq, size_t maxRecords) const {
  std::vector<Chunk> wanted;
  {
    std::lock_guard lock(mutex_);
    if (fromSeq == 0) fromSeq = 1;
    if (fromSeq > durableSeq_) return nullptr;
    auto it = std::lower_bound(chunks_.begin(), chunks_.end(), fromSeq,
                               [](const Chunk& c, uint64_t seq) { return c.lastSeq < seq; });
    if (it->firstSeq == fromSeq && it->batch) return it->batch;  // the common case: a whole batch, shared
    size_t count = 0;
    for (; it != chunks_.end() && count < maxRecords; ++it) {
      wanted.push_back(*it);
      count += it->lastSeq - std::max(it->firstSeq, fromSeq) + 1;
    }
  }
  auto out = std::make_shared<v1::RecordBatch>();
  for (const auto& chunk : wanted) {
    auto batch = chunk.batch ? chunk.batch : loadChunk(chunk);
    for (const auto& record : batch->records()) {
      if (record.seq() < fromSeq) continue;
      if (static_cast<size_t>(out->records_size()) >= maxRecords) return out;
      *out->add_records() = record;
    }
  }
  return out;
}

uint64_t Journal::durableSeq() const {
  std::lock_guard lock(mutex_);
  return durableSeq_;
}

bool Journal::finished() const {
  std::lock_guard lock(mutex_);
  return finished_;
}

std::vector<v1::Record> readJournalFile(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw fileError("cannot open journal", path);
  std::vector<v1::Record> records;
  try {
    scanFrames(fd, path, [&](uint64_t, uint32_t, std::shared_ptr<v1::RecordBatch> batch) {
      for (auto& record : *batch->mutable_records()) records.push_back(std::move(record));
    });
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);
  return records;
}

}  // namespace ringmaster::agent
