// SPDX-License-Identifier: GPL-3.0-or-later
#include "agent/journal.h"

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <future>
#include <thread>

#include "tests/support/files.h"
#include "tests/support/temp_dir.h"

using namespace ringmaster::agent;
namespace fs = std::filesystem;

namespace {

class JournalTest : public ::testing::Test {
 protected:
  static std::vector<v1::Record> steps(int first, int count) {
    std::vector<v1::Record> records;
    for (int i = 0; i < count; ++i) {
      v1::Record r;
      r.mutable_step()->set_step(static_cast<uint64_t>(first + i));
      records.push_back(std::move(r));
    }
    return records;
  }

  static void waitDurable(Journal& journal, uint64_t seq) {
    std::promise<void> done;
    journal.notifyWhen(seq, [&] { done.set_value(); });
    done.get_future().wait();
  }

  ringmaster::test::TempDir dir_{"journal"};
  std::string path_ = dir_.file("journal");
};

TEST_F(JournalTest, NumbersRecordsInOrderWithoutGaps) {
  auto journal = Journal::create(path_);
  EXPECT_EQ(journal->append(steps(0, 3)), 3u);
  EXPECT_EQ(journal->append(steps(3, 2)), 5u);
  EXPECT_EQ(journal->append(std::vector<v1::Record>{}), 0u);
  EXPECT_EQ(journal->append(v1::RecordBatch{}), 0u);
  waitDurable(*journal, 5);
  auto batch = journal->read(1, 100);
  ASSERT_TRUE(batch);
  std::vector<uint64_t> seqs;
  for (uint64_t from = 1; auto b = journal->read(from, 100);) {
    for (const auto& r : b->records()) {
      seqs.push_back(r.seq());
      EXPECT_EQ(r.step().step() + 1, r.seq());
    }
    from = seqs.back() + 1;
  }
  EXPECT_EQ(seqs, (std::vector<uint64_t>{1, 2, 3, 4, 5}));
  EXPECT_FALSE(journal->read(6, 100));
}

TEST_F(JournalTest, ReadsFromTheMiddleOfABatch) {
  auto journal = Journal::create(path_);
  journal->append(steps(0, 10));
  waitDurable(*journal, 10);
  auto batch = journal->read(4, 3);
  ASSERT_TRUE(batch);
  ASSERT_EQ(batch->records_size(), 3);
  EXPECT_EQ(batch->records(0).seq(), 4u);
  EXPECT_EQ(batch->records(2).seq(), 6u);
}

TEST_F(JournalTest, RecordsAreOnDiskBeforeReadersAreTold) {
  auto journal = Journal::create(path_);
  journal->append(steps(0, 7));
  waitDurable(*journal, 7);
  // A separate reader of the file sees every record the journal reported durable.
  auto records = readJournalFile(path_);
  ASSERT_EQ(records.size(), 7u);
  EXPECT_EQ(records.back().seq(), 7u);
}

TEST_F(JournalTest, NotifiesWaitersAndFinishesOnClose) {
  auto journal = Journal::create(path_);
  std::atomic<int> woken{0};
  journal->notifyWhen(1, [&] { ++woken; });
  journal->notifyWhen(3, [&] { ++woken; });
  EXPECT_EQ(woken, 0);
  journal->append(steps(0, 1));
  waitDurable(*journal, 1);
  EXPECT_EQ(woken, 1);  // the second waits for seq 3
  EXPECT_FALSE(journal->finished());
  std::promise<void> closed;
  journal->notifyWhen(100, [&] { closed.set_value(); });
  journal->close();
  closed.get_future().wait();
  EXPECT_TRUE(journal->finished());
  EXPECT_EQ(woken, 2);  // closing wakes everyone: nothing more will come
  EXPECT_EQ(journal->append(steps(1, 1)), 0u);
}

TEST_F(JournalTest, ConcurrentAppendersGetDistinctNumbers) {
  auto journal = Journal::create(path_);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 250; ++i) journal->append(steps(i, 4));
    });
  }
  for (auto& t : threads) t.join();
  journal->close();
  waitDurable(*journal, 4000);
  auto records = readJournalFile(path_);
  ASSERT_EQ(records.size(), 4000u);
  for (size_t i = 0; i < records.size(); ++i) EXPECT_EQ(records[i].seq(), i + 1);
}

TEST_F(JournalTest, ATornTailIsIgnored) {
  {
    auto journal = Journal::create(path_);
    journal->append(steps(0, 5));
    waitDurable(*journal, 5);
    journal->append(steps(5, 5));
    waitDurable(*journal, 10);
  }
  // The agent died in the middle of writing its last frame.
  auto size = fs::file_size(path_);
  fs::resize_file(path_, size - 3);
  auto records = readJournalFile(path_);
  ASSERT_EQ(records.size(), 5u);
  EXPECT_EQ(records.back().seq(), 5u);

  auto reopened = Journal::openFinished(path_);
  EXPECT_TRUE(reopened->finished());
  EXPECT_EQ(reopened->durableSeq(), 5u);
  auto batch = reopened->read(2, 100);
  ASSERT_TRUE(batch);
  EXPECT_EQ(batch->records(0).seq(), 2u);
  EXPECT_EQ(batch->records_size(), 4);
}

TEST_F(JournalTest, ADamagedFrameEndsTheReadableJournal) {
  {
    auto journal = Journal::create(path_);
    journal->append(steps(0, 5));
    waitDurable(*journal, 5);
    journal->append(steps(5, 5));
    waitDurable(*journal, 10);
  }
  // Flip a byte in the last frame's payload: its checksum no longer matches.
  std::fstream file(path_, std::ios::in | std::ios::out | std::ios::binary);
  file.seekp(-2, std::ios::end);
  file.put('\x7f');
  file.close();
  EXPECT_EQ(readJournalFile(path_).size(), 5u);
}

TEST_F(JournalTest, RejectsFilesThatAreNotJournals) {
  ringmaster::test::writeFile(path_, "hello");
  EXPECT_THROW(readJournalFile(path_), std::runtime_error);
  EXPECT_THROW(Journal::openFinished(path_), std::runtime_error);
  EXPECT_THROW(Journal::create(path_), std::runtime_error);  // never overwrites
}

TEST_F(JournalTest, ReadsBackFromDiskBeyondTheMemoryBudget) {
  auto journal = Journal::create(path_);
  // Records with a 4 KiB payload each: enough batches to push the oldest out of memory.
  const int perBatch = 1000;
  const int batches = static_cast<int>(Journal::kMemoryBudgetBytes / (perBatch * 4096)) + 4;
  std::string payload(4096, 'x');
  uint64_t last = 0;
  for (int b = 0; b < batches; ++b) {
    std::vector<v1::Record> records;
    for (int i = 0; i < perBatch; ++i) {
      v1::Record r;
      r.mutable_log()->set_text(payload);
      r.mutable_log()->set_rank(b);
      records.push_back(std::move(r));
    }
    last = journal->append(std::move(records));
    waitDurable(*journal, last);
  }
  auto first = journal->read(1, 10);
  ASSERT_TRUE(first);
  ASSERT_GE(first->records_size(), 1);
  EXPECT_EQ(first->records(0).seq(), 1u);
  EXPECT_EQ(first->records(0).log().rank(), 0);
  EXPECT_EQ(first->records(0).log().text(), payload);
}

}  // namespace
