// SPDX-License-Identifier: GPL-3.0-or-later
// Record files written as the ringmaster Python package writes them without an agent (RINGMASTER_RECORD_DIR),
// imported as one run through the live run's ingest and diagnosis: a straggler is found as a live run finds
// it, a rank whose records stop while the other waits is the crash and the stall it would be live, and bad
// files are refused naming the file, storing nothing.
#include "console/session/record_import.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>

#include "common/error.h"
#include "common/rank_frames.h"
#include "console/session/ingest.h"
#include "history/run_store.h"
#include "tests/support/diagnosis_synthetic.h"
#include "tests/support/files.h"
#include "tests/support/record_files.h"
#include "tests/support/temp_dir.h"

namespace ringmaster::console {
// A namespace of its own: the unit shares a unity build with the other console tests.
namespace record_files {
namespace {

constexpr int64_t kSecondNs = 1'000'000'000;
const std::string kJob = "3f2a9c-run";

// When a record was written, as its own times say: a step, an all-reduce or memory at its end, a beat when
// it was taken.
std::optional<int64_t> writtenAt(const v1::Record& r) {
  if (r.has_step()) return r.step().start_ns() + r.step().total_ns();
  if (r.has_allreduce()) return r.allreduce().end_ns();
  if (r.has_memory()) return r.memory().time_ns();
  if (r.has_heartbeat()) return r.heartbeat().time_ns();
  return std::nullopt;
}

int64_t firstTimeOf(const std::vector<v1::Record>& records) {
  int64_t first = std::numeric_limits<int64_t>::max();
  for (const auto& r : records) first = std::min(first, writtenAt(r).value_or(first));
  return first;
}

int64_t lastTimeOf(const std::vector<v1::Record>& records) {
  int64_t last = 0;
  for (const auto& r : records) last = std::max(last, writtenAt(r).value_or(last));
  return last;
}

std::string describe(const std::vector<v1::Finding>& findings) {
  std::string out;
  for (const auto& f : findings)
    out += "\n  " + std::to_string(f.kind()) + " rank " + std::to_string(f.rank()) + ": " + f.summary();
  return out;
}

class RecordImport : public ::testing::Test {
 protected:
  std::string write(const std::string& name, const std::string& bytes) {
    std::filesystem::create_directories(std::filesystem::path(dir_.file(name)).parent_path());
    test::writeFile(dir_.file(name), bytes);
    return dir_.file(name);
  }
  // Gives the file the modification time its rank's last write would have.
  void touch(const std::string& path, int64_t unixNs) {
    const timespec times[2] = {{time_t(unixNs / kSecondNs), long(unixNs % kSecondNs)},
                               {time_t(unixNs / kSecondNs), long(unixNs % kSecondNs)}};
    ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), times, 0), 0) << path;
  }
  // The import of `inputs` is refused: an InputError naming each of `names`, and nothing stored.
  std::string refused(const std::vector<std::string>& inputs, const std::vector<std::string>& names) {
    std::string message;
    try {
      importRecordFiles(store_, inputs);
      ADD_FAILURE() << "imported, expected a refusal";
    } catch (const StoreError& e) {
      ADD_FAILURE() << "a store error: " << e.what();
    } catch (const InputError& e) {
      message = e.what();
    }
    for (const auto& name : names) EXPECT_NE(message.find(name), std::string::npos) << message;
    EXPECT_TRUE(store_.runs().empty()) << "a refused import stored a run";
    return message;
  }
  // A whole, good record file of rank `rank` (steps 0-19 of a 2-rank run).
  std::string goodFile(const std::string& name, int rank, const std::string& jobId = kJob) {
    test::SyntheticRun run;
    run.ranks = 2;
    run.steps = 20;
    auto records = test::rankRecords(run, {20, 20}, {"node-a", "node-b"});
    return write(name, test::recordFile(jobId, rank, 2, rank ? "node-b" : "node-a", 100 + rank,
                                        records[size_t(rank)], true));
  }

  test::TempDir dir_{"record-import"};
  RunStore store_{dir_.file("runs.sqlite")};
};

// Rank 1 waits longer for its data every step: the import stores both ranks with every step, and finds the
// straggler, in its data path, that the live ingest finds in the same records.
TEST_F(RecordImport, AStragglerIsFoundInTheRecordFilesOfATwoRankRun) {
  test::SyntheticRun run;
  run.ranks = 2;
  run.steps = 120;
  run.seed = 7;
  run.slowRank = 1;
  run.slowFrom = 10;
  run.slowData = 25;  // ms more data wait per step
  const auto records = test::rankRecords(run, {120, 120}, {"node-a", "node-b"});
  const std::string a =
      write("run1/rank0-node-a-100.rmrecs", test::recordFile(kJob, 0, 2, "node-a", 100, records[0], true));
  const std::string b =
      write("run1/rank1-node-b-101.rmrecs", test::recordFile(kJob, 1, 2, "node-b", 101, records[1], true));
  const int64_t endUnixNs = 1'780'000'000 * kSecondNs;
  const int64_t lastNs = std::max(lastTimeOf(records[0]), lastTimeOf(records[1]));
  const int64_t firstNs = std::min(firstTimeOf(records[0]), firstTimeOf(records[1]));
  touch(a, endUnixNs - (lastNs - lastTimeOf(records[0])));
  touch(b, endUnixNs - (lastNs - lastTimeOf(records[1])));

  const RecordImportResult result = importRecordFiles(store_, {dir_.file("run1")});
  EXPECT_EQ(result.jobId, kJob);
  EXPECT_EQ(result.worldSize, 2);
  EXPECT_EQ(result.status, "finished");
  ASSERT_EQ(result.files.size(), 2u);
  for (const auto& f : result.files) {
    EXPECT_TRUE(f.ended) << f.path;
    EXPECT_FALSE(f.cutShort) << f.path;
    EXPECT_EQ(f.steps, 120u) << f.path;
    EXPECT_EQ(f.allreduceOps, 240u) << f.path;
    EXPECT_EQ(f.refused, 0u) << f.path;
  }
  EXPECT_EQ(result.files[1].path, b);
  EXPECT_EQ(result.files[1].host, "node-b");

  const auto info = store_.run(result.runId);
  ASSERT_TRUE(info);
  EXPECT_EQ(info->name, "run1");
  EXPECT_EQ(info->status, "finished");
  EXPECT_EQ(info->worldSize, 2);
  EXPECT_EQ(info->backend, "gloo");
  EXPECT_EQ(info->endedUnixNs, endUnixNs);
  EXPECT_EQ(info->startedUnixNs, endUnixNs - (lastNs - firstNs));
  EXPECT_EQ(info->environment.at("run id"), kJob);
  EXPECT_EQ(info->environment.at("torch"), "2.6.0");
  EXPECT_EQ(info->environment.at("python"), "3.11.2");
  const auto hosts = store_.hosts(result.runId);
  ASSERT_EQ(hosts.count("node-b"), 1u);
  EXPECT_EQ(hosts.at("node-b").at("torch"), "2.6.0");
  const auto ranks = store_.ranks(result.runId);
  ASSERT_EQ(ranks.size(), 2u);
  EXPECT_EQ(ranks[1].host, "node-b");
  EXPECT_EQ(ranks[1].pid, 101);
  EXPECT_EQ(ranks[1].state, v1::RankState::STATE_EXITED);
  EXPECT_EQ(ranks[1].exitCode, 0);
  const auto series = store_.rankSeries(result.runId);
  ASSERT_EQ(series.size(), 2u);
  EXPECT_EQ(series[0].steps.size(), 120u);
  EXPECT_EQ(series[1].steps.size(), 120u);
  EXPECT_EQ(series[1].allreduce.size(), 240u);
  EXPECT_EQ(series[1].memory.size(), 120u);

  const auto findings = diagnosis::storedFindings(store_, result.runId);
  const v1::Finding* straggler = test::findingOf(findings, v1::Finding::KIND_STRAGGLER, 1);
  ASSERT_NE(straggler, nullptr) << describe(findings);
  EXPECT_GT(straggler->severity(), v1::Finding::SEVERITY_INFO) << straggler->summary();
  EXPECT_NE(straggler->cause().find("data"), std::string::npos) << straggler->summary();
  EXPECT_EQ(straggler->host(), "node-b");
  EXPECT_EQ(test::findingOf(findings, v1::Finding::KIND_STRAGGLER, 0), nullptr) << describe(findings);
  EXPECT_EQ(test::findingOf(findings, v1::Finding::KIND_CRASH, 1), nullptr) << describe(findings);
  EXPECT_EQ(test::findingOf(findings, v1::Finding::KIND_STALL, 1), nullptr) << describe(findings);

  // The same records as a live run's agents hand them over.
  NewRun live;
  live.worldSize = 2;
  RunIngest ingest("", live);
  std::vector<v1::Record> merged;
  for (const auto& r : test::generate(run).records) merged.push_back(r);
  ingest.add(merged, "node-b");
  const auto liveFindings = ingest.findings();
  const v1::Finding* liveStraggler = test::findingOf(liveFindings, v1::Finding::KIND_STRAGGLER, 1);
  ASSERT_NE(liveStraggler, nullptr) << describe(liveFindings);
  EXPECT_EQ(straggler->cause(), liveStraggler->cause());
  EXPECT_EQ(straggler->since_step(), liveStraggler->since_step());
}

// Rank 1 is killed after step 59: its file has no end; rank 0 waits for it in its all-reduce, beating, for
// 30 s until it is killed too. The run is stored failed, with both ranks' steps, rank 1 as the rank that
// ended it and as the rank that went silent while rank 0 waited, as a live run would have told.
TEST_F(RecordImport, ARankWhoseRecordsStopWithoutItsEndIsTheCrashAndTheStall) {
  test::SyntheticRun run;
  run.ranks = 2;
  run.steps = 100;
  auto records = test::rankRecords(run, {60, 60}, {"node-a", "node-b"});
  // Rank 0 is in step 60's all-reduce, waiting for rank 1, until it is killed.
  const int64_t stopNs = lastTimeOf(records[0]);
  for (int s = 1; s <= 30; ++s)
    records[0].push_back(test::heartbeat(0, 59, "comm_wait", stopNs, stopNs + s * kSecondNs));
  // Both were killed mid-write: rank 1's last batch is torn.
  std::string rank1 = test::recordFile(kJob, 1, 2, "node-b", 101, records[1], false);
  rank1 += test::batchFrame({test::heartbeat(1, 59, "forward", stopNs, stopNs)}).substr(0, 9);
  write("run2/rank0-node-a-100.rmrecs", test::recordFile(kJob, 0, 2, "node-a", 100, records[0], false));
  write("run2/rank1-node-b-101.rmrecs", rank1);

  const RecordImportResult result = importRecordFiles(store_, {dir_.file("run2")}, "killed");
  EXPECT_EQ(result.status, "failed");
  ASSERT_EQ(result.files.size(), 2u);
  EXPECT_FALSE(result.files[0].ended);
  EXPECT_FALSE(result.files[0].cutShort);
  EXPECT_FALSE(result.files[1].ended);
  EXPECT_TRUE(result.files[1].cutShort);
  ASSERT_TRUE(result.files[1].lastStep);
  EXPECT_EQ(*result.files[1].lastStep, 59u);

  const auto info = store_.run(result.runId);
  ASSERT_TRUE(info);
  EXPECT_EQ(info->name, "killed");
  EXPECT_EQ(info->status, "failed");
  const auto ranks = store_.ranks(result.runId);
  ASSERT_EQ(ranks.size(), 2u);
  EXPECT_EQ(ranks[0].state, v1::RankState::STATE_LOST);
  EXPECT_EQ(ranks[1].state, v1::RankState::STATE_LOST);
  EXPECT_NE(ranks[1].message.find("after step 59"), std::string::npos) << ranks[1].message;
  const auto series = store_.rankSeries(result.runId);
  ASSERT_EQ(series.size(), 2u);
  EXPECT_EQ(series[0].steps.size(), 60u);
  EXPECT_EQ(series[1].steps.size(), 60u);

  const auto findings = diagnosis::storedFindings(store_, result.runId);
  ASSERT_FALSE(findings.empty());
  const v1::Finding* crash = test::findingOf(findings, v1::Finding::KIND_CRASH, 1);
  ASSERT_NE(crash, nullptr) << describe(findings);
  EXPECT_EQ(crash->cause(), "no end");
  EXPECT_EQ(crash->host(), "node-b");
  EXPECT_EQ(crash->since_step(), 60u);
  EXPECT_NE(crash->summary().find("stopped after step 59 without recording its end"), std::string::npos)
      << crash->summary();
  EXPECT_NE(crash->summary().find("Rank 0 then failed as well"), std::string::npos) << crash->summary();
  EXPECT_EQ(test::findingOf(findings, v1::Finding::KIND_CRASH, 0), nullptr) << describe(findings);
  const v1::Finding* stall = test::findingOf(findings, v1::Finding::KIND_STALL, 1);
  ASSERT_NE(stall, nullptr) << describe(findings);
  EXPECT_EQ(stall->cause(), "silent") << stall->summary();
  EXPECT_NEAR(stall->evidence().at("quiet_s"), 30, 1) << stall->summary();
  EXPECT_EQ(test::findingOf(findings, v1::Finding::KIND_STALL, 0), nullptr) << describe(findings);
}

// The same ranks, killed together: no rank waited for another, so there is no stall, only the ranks' ends.
TEST_F(RecordImport, RanksKilledTogetherAreLostWithoutAStall) {
  test::SyntheticRun run;
  run.ranks = 2;
  run.steps = 40;
  auto records = test::rankRecords(run, {40, 40}, {"node-a", "node-b"});
  write("run3/rank0-node-a-100.rmrecs", test::recordFile(kJob, 0, 2, "node-a", 100, records[0], false));
  write("run3/rank1-node-b-101.rmrecs", test::recordFile(kJob, 1, 2, "node-b", 101, records[1], true));
  const RecordImportResult result = importRecordFiles(store_, {dir_.file("run3")});
  EXPECT_EQ(result.status, "failed");
  const auto findings = diagnosis::storedFindings(store_, result.runId);
  const v1::Finding* crash = test::findingOf(findings, v1::Finding::KIND_CRASH, 0);
  ASSERT_NE(crash, nullptr) << describe(findings);
  EXPECT_EQ(test::findingOf(findings, v1::Finding::KIND_STALL, 0), nullptr) << describe(findings);
  EXPECT_EQ(test::findingOf(findings, v1::Finding::KIND_STALL, 1), nullptr) << describe(findings);
  const auto ranks = store_.ranks(result.runId);
  ASSERT_EQ(ranks.size(), 2u);
  EXPECT_EQ(ranks[0].state, v1::RankState::STATE_LOST);
  EXPECT_EQ(ranks[1].state, v1::RankState::STATE_EXITED);
}

TEST_F(RecordImport, RecordFilesAreToldByTheirMagicOrTheirName) {
  const std::string good = goodFile("a/rank0-node-a-100.rmrecs", 0);
  const std::string renamed = write("b/records.bin", test::readFile(good));
  write("c/trace.json", "[]");
  write("d/rank0-x-1.rmrecs", "not a record file");
  EXPECT_TRUE(isRecordFile(good));
  EXPECT_TRUE(isRecordFile(renamed));
  EXPECT_FALSE(isRecordFile(dir_.file("c/trace.json")));
  EXPECT_FALSE(isRecordFile(dir_.file("a")));
  EXPECT_TRUE(namesRecordFiles({dir_.file("a")}));
  EXPECT_TRUE(namesRecordFiles({dir_.file("b")}));
  EXPECT_TRUE(namesRecordFiles({renamed}));
  EXPECT_FALSE(namesRecordFiles({dir_.file("c")}));
  EXPECT_FALSE(namesRecordFiles({dir_.file("c/trace.json")}));
  EXPECT_TRUE(namesRecordFiles({dir_.file("d")}));
  // A folder's other files are left alone.
  write("a/README", "notes");
  EXPECT_EQ(importRecordFiles(store_, {dir_.file("a")}).files.size(), 1u);
}

TEST_F(RecordImport, AFileThatIsNoRecordFileIsRefusedByName) {
  goodFile("run/rank0-node-a-100.rmrecs", 0);
  const std::string bad = write("run/rank1-node-b-101.rmrecs", "{\"traceEvents\": []}\n");
  const std::string message =
      refused({dir_.file("run")}, {bad, "does not begin as a Ringmaster record file"});
  EXPECT_NE(message.find("nothing was imported"), std::string::npos) << message;
}

TEST_F(RecordImport, AFrameLongerThanAnyRankWritesIsDamage) {
  goodFile("run/rank0-node-a-100.rmrecs", 0);
  const std::string huge("\xff\xff\xff\x7f", 4);  // 2 GiB
  const std::string bad =
      write("run/rank1-node-b-101.rmrecs", std::string(kRecordFileMagic) +
                                               encodeRankFrame(test::helloFrame(kJob, 1, 2, "node-b", 101)) +
                                               huge + std::string(64, 'x'));
  refused({dir_.file("run")}, {bad, "more than the 64 MiB a frame may hold", "damaged"});
}

TEST_F(RecordImport, GarbageBetweenFramesIsDamageNamingWhere) {
  std::string bytes = test::readFile(goodFile("x/rank1-node-b-101.rmrecs", 1));
  goodFile("run/rank0-node-a-100.rmrecs", 0);
  const size_t at =
      kRecordFileMagic.size() + encodeRankFrame(test::helloFrame(kJob, 1, 2, "node-b", 101)).size();
  bytes.insert(at, std::string("\x05\x00\x00\x00\xff\xfe\xfd\xfc\xfb", 9));
  const std::string bad = write("run/rank1-node-b-101.rmrecs", bytes);
  refused({dir_.file("run")}, {bad, "frame 2 is not a RankFrame", "at byte " + std::to_string(at)});
}

// A rank killed while it wrote leaves a torn last frame, and a host that went down zeros after the last
// whole one: both are imported with every whole frame, and called cut short.
TEST_F(RecordImport, ATornOrZeroedTailKeepsEveryWholeFrame) {
  const std::string whole = test::readFile(goodFile("x/rank0-node-a-100.rmrecs", 0));
  const std::string withoutBye = whole.substr(0, whole.size() - test::byeFrame().size());
  test::SyntheticRun run;
  run.ranks = 2;
  run.steps = 20;
  const auto records = test::rankRecords(run, {20, 20}, {"node-a", "node-b"});
  const std::string torn = test::batchFrame({records[0].begin(), records[0].begin() + 5});
  write("torn/rank0-node-a-100.rmrecs", withoutBye + torn.substr(0, torn.size() - 3));
  write("zeros/rank0-node-a-100.rmrecs", withoutBye + std::string(4096, '\0'));
  for (const char* folder : {"torn", "zeros"}) {
    const auto result = importRecordFiles(store_, {dir_.file(folder)});
    ASSERT_EQ(result.files.size(), 1u) << folder;
    EXPECT_TRUE(result.files[0].cutShort) << folder;
    EXPECT_FALSE(result.files[0].ended) << folder;
    EXPECT_EQ(result.files[0].steps, 20u) << folder;
    EXPECT_EQ(result.files[0].bytes, withoutBye.size()) << folder;
    EXPECT_EQ(store_.rankSeries(result.runId).at(0).steps.size(), 20u) << folder;
  }
}

TEST_F(RecordImport, TwoFilesOfOneRankAreRefusedNamingBoth) {
  const std::string first = goodFile("run/rank1-node-b-101.rmrecs", 1);
  const std::string second = write("run/rank1-node-c-202.rmrecs", test::readFile(first));
  const std::string message = refused({dir_.file("run")}, {first, second, "both hold rank 1"});
  EXPECT_NE(message.find("two attempts"), std::string::npos) << message;
}

TEST_F(RecordImport, FilesOfTwoRunsAreRefusedNamingBoth) {
  const std::string first = goodFile("run/rank0-node-a-100.rmrecs", 0, "run-a");
  const std::string second = goodFile("run/rank1-node-b-101.rmrecs", 1, "run-b");
  refused({dir_.file("run")}, {first, second, "\"run-a\"", "\"run-b\"", "one run's record files at a time"});
}

TEST_F(RecordImport, AFileWithoutItsHelloIsRefused) {
  goodFile("run/rank0-node-a-100.rmrecs", 0);
  v1::Record step;
  step.mutable_step()->set_rank(1);
  const std::string noHello =
      write("run/rank1-node-b-101.rmrecs", std::string(kRecordFileMagic) + test::batchFrame({step}));
  refused({dir_.file("run")}, {noHello, "its first frame is not the rank's hello"});
  const std::string onlyMagic = write("run/rank1-node-b-101.rmrecs", std::string(kRecordFileMagic));
  refused({dir_.file("run")}, {onlyMagic, "holds no whole hello"});
  const std::string empty = write("run/rank1-node-b-101.rmrecs", "");
  refused({dir_.file("run")}, {empty, "ends before the record files' magic"});
}

TEST_F(RecordImport, FramesAfterTheEndOrOfAnotherKindAreDamage) {
  const std::string whole = test::readFile(goodFile("run/rank0-node-a-100.rmrecs", 0));
  const std::string afterBye = write("run/rank0-node-a-100.rmrecs", whole + test::batchFrame({}));
  refused({dir_.file("run")}, {afterBye, "comes after the rank's end"});
  v1::RankFrame poll;
  poll.mutable_poll();
  const std::string withPoll =
      write("run/rank0-node-a-100.rmrecs",
            whole.substr(0, whole.size() - test::byeFrame().size()) + encodeRankFrame(poll));
  refused({dir_.file("run")}, {withPoll, "a control poll, which a record file does not hold"});
}

TEST_F(RecordImport, AFolderWithoutRecordFilesIsNamed) {
  write("empty/notes.txt", "nothing here");
  refused({dir_.file("empty")}, {dir_.file("empty"), "holds no record files", "RINGMASTER_RECORD_DIR"});
  refused({dir_.file("missing")}, {dir_.file("missing"), "no such file or folder"});
}

// Records no rank can make (another rank's, a rank's exit, a finding) are dropped and counted, as the agent
// drops them; the rest of the file is imported.
TEST_F(RecordImport, RecordsNoRankCanMakeAreDroppedAndCounted) {
  test::SyntheticRun run;
  run.ranks = 2;
  run.steps = 10;
  auto records = test::rankRecords(run, {10, 10}, {"node-a", "node-b"});
  v1::Record other = records[1][3];
  v1::Record exit;
  exit.mutable_rank_state()->set_rank(0);
  exit.mutable_rank_state()->set_state(v1::RankState::STATE_SIGNALED);
  v1::Record finding;
  finding.mutable_finding()->set_kind(v1::Finding::KIND_STRAGGLER);
  records[0].push_back(other);
  records[0].push_back(exit);
  records[0].push_back(finding);
  write("run/rank0-node-a-100.rmrecs", test::recordFile(kJob, 0, 2, "node-a", 100, records[0], true));
  const auto result = importRecordFiles(store_, {dir_.file("run")});
  ASSERT_EQ(result.files.size(), 1u);
  EXPECT_EQ(result.files[0].refused, 3u);
  EXPECT_NE(result.files[0].firstRefused.find("it names rank 1"), std::string::npos)
      << result.files[0].firstRefused;
  EXPECT_EQ(result.files[0].steps, 10u);
  EXPECT_EQ(result.missingRanks, std::vector<int>{1});
  const auto ranks = store_.ranks(result.runId);
  ASSERT_EQ(ranks.size(), 1u);
  EXPECT_EQ(ranks[0].state, v1::RankState::STATE_EXITED);
  EXPECT_EQ(test::findingOf(store_.findings(result.runId), v1::Finding::KIND_STRAGGLER, 0), nullptr);
}

}  // namespace
}  // namespace record_files
}  // namespace ringmaster::console
