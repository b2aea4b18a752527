// SPDX-License-Identifier: GPL-3.0-or-later
// A job's journal: every record a host's agent receives, numbered and on disk before any watcher sees it.
//
// File format: the 8-byte header "RMJRNL1\n", then frames of [u32 length][u32 crc32][RecordBatch bytes],
// little endian. One frame per group commit; records carry their sequence numbers (1-based, no gaps). A torn
// last frame (the agent died mid-write) is ignored by readers.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "ringmaster/v1/records.pb.h"

namespace ringmaster::agent {

namespace v1 = ::ringmaster::v1;

class Journal {
 public:
  // Creates `path` (which must not exist) and starts the writer thread. Throws std::runtime_error naming the
  // path.
  static std::unique_ptr<Journal> create(const std::string& path);
  // Opens a journal an earlier agent wrote, read-only and already closed. Throws std::runtime_error.
  static std::unique_ptr<Journal> openFinished(const std::string& path);

  // Writes what is queued, then closes. Never the last owner's job inside a notifyWhen() callback.
  ~Journal();
  Journal(const Journal&) = delete;
  Journal& operator=(const Journal&) = delete;

  // Queues records, numbering them in call order; returns the last sequence number given (0 if `records` is
  // empty). Blocks only while more than kMaxQueued records wait for the disk.
  uint64_t append(std::vector<v1::Record> records);
  // The same for a whole batch (a rank's Report message): its records are numbered in place, never copied.
  uint64_t append(v1::RecordBatch&& batch);
  // No more records will come; once the queued ones are durable, readers see finished().
  void close();

  // Calls `ready` once records from `seq` on are readable or the journal is finished; at once when they are
  // already. Runs on the writer thread or the caller's; must not call back into append().
  void notifyWhen(uint64_t seq, std::function<void()> ready);

  // Up to about `maxRecords` durable records from `fromSeq` on, in order; null when there are none (yet).
  // Whole in-memory batches are shared, not copied.
  std::shared_ptr<const v1::RecordBatch> read(uint64_t fromSeq, size_t maxRecords) const;

  uint64_t durableSeq() const;
  // close() was called and every record is durable: read() past durableSeq() will never return more.
  bool finished() const;
  const std::string& path() const { return path_; }
  // Why the journal stopped taking records early (e.g. the disk is full); empty while healthy.
  std::string error() const;

  static constexpr size_t kMaxQueued = 1 << 20;
  // A group commit holds at most this many records, so that one batch stays a reasonable gRPC message.
  static constexpr size_t kMaxGroupRecords = 8192;
  // In-memory copies of the newest batches are kept up to this many bytes; older ones are read back from
  // disk.
  static constexpr size_t kMemoryBudgetBytes = 64u << 20;

 private:
  struct Chunk {
    uint64_t firstSeq = 0;
    uint64_t lastSeq = 0;
    uint64_t offset = 0;  // of the frame's payload in the file
    uint32_t length = 0;
    std::shared_ptr<const v1::RecordBatch> batch;  // null once evicted
  };
  struct Waiter {
    uint64_t seq;
    std::function<void()> ready;
  };

  Journal(std::string path, int fd);
  void writeLoop();
  std::shared_ptr<const v1::RecordBatch> loadChunk(const Chunk& chunk) const;
  void failWriting(const std::string& why);
  void evictOverBudget();                                 // with mutex_ held
  std::vector<std::function<void()>> takeReadyWaiters();  // with mutex_ held

  const std::string path_;
  const int fd_;
  uint64_t fileSize_ = 0;

  mutable std::mutex mutex_;
  std::condition_variable queueChanged_;
  std::deque<v1::RecordBatch> queued_;  // numbered batches waiting for the disk
  size_t queuedRecords_ = 0;
  uint64_t nextSeq_ = 1;
  uint64_t durableSeq_ = 0;
  bool closing_ = false;
  bool finished_ = false;
  std::string error_;
  std::vector<Chunk> chunks_;
  size_t memoryBytes_ = 0;
  std::vector<Waiter> waiters_;
  std::thread writer_;
};

// Every whole record of a journal file, in order (for tests and tools). Throws std::runtime_error.
std::vector<v1::Record> readJournalFile(const std::string& path);

}  // namespace ringmaster::agent
