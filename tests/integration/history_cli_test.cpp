// SPDX-License-Identifier: GPL-3.0-or-later
// `ringmaster runs / show / compare / report / import` as a user runs them: the real binary on a real store
// file.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/json.h"
#include "console/session/ingest.h"
#include "console/session/run_summary.h"
#include "tests/support/diagnosis_synthetic.h"
#include "tests/support/files.h"
#include "tests/support/process.h"
#include "tests/support/record_files.h"
#include "tests/support/temp_dir.h"

using ringmaster::test::binPath;
using ringmaster::test::readFile;
using ringmaster::test::runProcess;
using ringmaster::test::writeFile;
namespace v1 = ringmaster::v1;

namespace {

class HistoryCli : public ::testing::Test {
 protected:
  std::string file(const std::string& name) const { return dir_.file(name); }

  ringmaster::test::ProcessResult ringmaster(std::vector<std::string> args) {
    args.insert(args.begin(), binPath("ringmaster"));
    args.push_back("--store");
    args.push_back(store_);
    return runProcess(args, {{"QT_QPA_PLATFORM", "offscreen"}}, std::chrono::seconds(120));
  }

  // A 4-rank run with a straggler (rank 2) ingested the way `ringmaster run` ingests.
  int64_t ingest(const std::string& name, double slowCompute, uint64_t seed) {
    ringmaster::test::SyntheticRun run;
    run.ranks = 4;
    run.steps = 120;
    run.seed = seed;
    run.slowRank = slowCompute > 0 ? 2 : -1;
    run.slowFrom = 30;
    run.slowCompute = slowCompute;
    ringmaster::NewRun spec;
    spec.name = name;
    spec.spec.set_engine(v1::ENGINE_DDP);
    spec.spec.set_backend(v1::BACKEND_GLOO);
    spec.spec.set_world_size(4);
    ringmaster::console::RunIngest ingest(store_, spec);
    std::vector<v1::Record> records;
    for (int rank = 0; rank < run.ranks; ++rank) {
      v1::Record state;  // no host: the ingest fills in the agent's
      state.mutable_rank_state()->set_rank(rank);
      state.mutable_rank_state()->set_state(v1::RankState::STATE_RUNNING);
      records.push_back(state);
    }
    for (auto& r : ringmaster::test::generate(run).records) records.push_back(std::move(r));
    ingest.add(records, "localhost");
    ingest.finish("finished");
    return ingest.runId();
  }

  void writeTimeline(const std::string& path, int iterations) {
    std::ofstream out(path);
    out << "[{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 0, \"args\": "
           "{\"start_time_since_epoch_in_micros\": 1}},\n"
        << "{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 1, \"args\": {\"name\": "
           "\"grad.fc.weight\"}}";
    long ts = 0;
    for (int i = 0; i < iterations; ++i) {
      out << ",\n{\"ph\": \"B\", \"name\": \"NEGOTIATE_ALLREDUCE\", \"ts\": " << ts << ", \"pid\": 1}";
      for (int r = 0; r < 3; ++r) {
        out << ",\n{\"ph\": \"X\", \"name\": \"" << r << "\", \"ts\": " << ts + r
            << ", \"pid\": 1, \"dur\": 0}";
      }
      out << ",\n{\"ph\": \"E\", \"ts\": " << ts + 5 << ", \"pid\": 1}";
      out << ",\n{\"ph\": \"B\", \"name\": \"ALLREDUCE\", \"ts\": " << ts + 5 << ", \"pid\": 1}";
      out << ",\n{\"ph\": \"E\", \"ts\": " << ts + 25 << ", \"pid\": 1}";
      ts += 30;
    }
    out << "]";
  }

  ringmaster::test::TempDir dir_{"history-cli"};
  std::string store_ = file("runs.sqlite");
};

size_t lines(const std::string& path) {
  std::ifstream in(path);
  size_t n = 0;
  for (std::string line; std::getline(in, line);) ++n;
  return n;
}

}  // namespace

// `ringmaster run` writes --summary-json from the records as they arrive and stores the same records; `show`
// reads them back from the store. Both state the same throughput, final loss and memory growth.
TEST_F(HistoryCli, ShowPrintsTheFiguresTheSummaryJsonHas) {
  ringmaster::test::SyntheticRun run;
  run.ranks = 3;
  run.steps = 150;
  run.slowRank = 1;
  run.slowFrom = 20;
  run.slowCompute = 0.3;
  run.leakRank = 2;
  run.leakMiBPerStep = 2;
  ringmaster::NewRun spec;
  spec.name = "both-ways";
  spec.spec.set_world_size(run.ranks);
  ringmaster::console::RunIngest ingest(store_, spec);
  ringmaster::console::RunSummaryBuilder summary(spec.spec);
  std::vector<v1::Record> records = ringmaster::test::generate(run).records;
  // Each rank's own loss, so that whose loss is "the" final loss shows.
  for (auto& record : records) {
    if (record.has_step()) record.mutable_step()->set_loss(1.0 + record.step().rank());
  }
  ingest.add(records, "localhost");
  summary.onRecords("job", "localhost", records);
  ingest.finish("finished");
  ringmaster::console::JobOutcome outcome;
  outcome.status = ringmaster::console::JobStatus::Succeeded;
  const rapidjson::Document json = ringmaster::parseJson(summary.toJson("job", outcome));

  auto show = ringmaster({"show", "both-ways"});
  ASSERT_EQ(show.exitCode, 0) << show.err;
  char throughput[64], loss[64], growth[64];
  std::snprintf(throughput, sizeof throughput, "throughput %.1f samples/s",
                json["samples_per_s"].GetDouble());
  std::snprintf(loss, sizeof loss, "final loss %.4f", json["final_loss"].GetDouble());
  double steepest = 0;
  for (const auto& rank : json["ranks"].GetArray()) {
    steepest = std::max(steepest, rank["memory"]["rss_slope_mb_per_step"].GetDouble());
  }
  std::snprintf(growth, sizeof growth, "steepest growth %.3f MiB/step", steepest);
  EXPECT_NE(show.out.find(throughput), std::string::npos) << throughput << "\n" << show.out;
  EXPECT_NE(show.out.find(loss), std::string::npos) << loss << "\n" << show.out;
  EXPECT_NE(show.out.find(growth), std::string::npos) << growth << "\n" << show.out;
  EXPECT_DOUBLE_EQ(json["final_loss"].GetDouble(), 1.0) << "rank 0's loss";
  EXPECT_NEAR(steepest, 2.0, 0.2) << "the leaking rank's growth";
}

TEST_F(HistoryCli, AnEmptyHistorySaysSo) {
  auto r = ringmaster({"runs"});
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("No runs yet"), std::string::npos) << r.out;
}

TEST_F(HistoryCli, RunsShowAndCompareStoredRuns) {
  int64_t slow = ingest("with-straggler", 0.4, 1);
  int64_t clean = ingest("clean", 0, 2);

  auto runs = ringmaster({"runs"});
  ASSERT_EQ(runs.exitCode, 0) << runs.err;
  EXPECT_NE(runs.out.find("with-straggler"), std::string::npos) << runs.out;
  EXPECT_NE(runs.out.find("finished"), std::string::npos) << runs.out;

  auto show = ringmaster({"show", std::to_string(slow)});
  ASSERT_EQ(show.exitCode, 0) << show.err;
  EXPECT_NE(show.out.find("straggler: rank 2 (localhost)"), std::string::npos) << show.out;
  EXPECT_NE(show.out.find("cause: compute"), std::string::npos) << show.out;
  EXPECT_NE(show.out.find("SAMPLES/S"), std::string::npos) << show.out;

  auto compare = ringmaster({"compare", "clean", std::to_string(slow)});
  ASSERT_EQ(compare.exitCode, 0) << compare.err;
  EXPECT_NE(compare.out.find("step time mean"), std::string::npos) << compare.out;
  EXPECT_NE(compare.out.find("slower than run " + std::to_string(clean)), std::string::npos) << compare.out;
  EXPECT_NE(compare.out.find("95% CI"), std::string::npos) << compare.out;
}

TEST_F(HistoryCli, ReportsInEveryFormat) {
  int64_t id = ingest("r", 0.4, 1);
  int64_t other = ingest("o", 0, 3);
  std::string html = file("report.html"), pdf = file("report.pdf"), csv = file("run.csv"),
              trace = file("trace.json");

  auto r = ringmaster(
      {"report", std::to_string(id), "--compare", std::to_string(other), "--format", "html", "-o", html});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  std::string page = readFile(html);
  EXPECT_NE(page.find("<svg"), std::string::npos);
  EXPECT_NE(page.find("Comparison"), std::string::npos);

  r = ringmaster({"report", std::to_string(id), "--format", "pdf", "--page", "letter", "-o", pdf});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("Letter pages"), std::string::npos) << r.out;
  auto info = runProcess({"/usr/bin/pdfinfo", pdf});
  if (info.exitCode == -1 && info.err.find("No such file") != std::string::npos) GTEST_SKIP() << "no pdfinfo";
  ASSERT_EQ(info.exitCode, 0) << info.err;
  size_t at = info.out.find("Pages:");
  ASSERT_NE(at, std::string::npos) << info.out;
  EXPECT_GE(std::stoi(info.out.substr(at + 6)), 3) << info.out;
  EXPECT_NE(info.out.find("pts (letter)"), std::string::npos) << info.out;

  r = ringmaster({"report", std::to_string(id), "-o", csv});  // format from the extension
  ASSERT_EQ(r.exitCode, 0) << r.err;
  size_t rows = lines(csv) - 1;
  EXPECT_NE(r.out.find(std::to_string(rows) + " rows"), std::string::npos) << r.out;
  // 4 ranks x 120 steps: 9 step metrics, 2 ops x 6 metrics, 5 memory metrics, plus the findings' evidence.
  EXPECT_GE(rows, size_t(4 * 120 * (9 + 12 + 5)));
  EXPECT_LT(rows, size_t(4 * 120 * (9 + 12 + 5) + 100));

  r = ringmaster({"report", "last", "--format", "trace", "-o", trace});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  std::string json = readFile(trace);
  for (int rank = 0; rank < 4; ++rank) {
    EXPECT_NE(json.find("\"pid\":" + std::to_string(rank)), std::string::npos) << "rank " << rank;
  }
}

TEST_F(HistoryCli, ImportsAHorovodTimelineACutCopyAndRefusesGarbage) {
  std::string timeline = file("timeline.json");
  writeTimeline(timeline, 40);
  auto r = ringmaster({"import", timeline, "--name", "horovod-run"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("Horovod timeline, 200 events on 3 ranks"), std::string::npos) << r.out;

  std::string text = readFile(timeline);
  std::string cut = file("cut.json");
  writeFile(cut, text.substr(0, text.size() / 2));
  r = ringmaster({"import", cut});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("cut short"), std::string::npos) << r.out;

  std::string garbage = file("garbage.json");
  writeFile(garbage, "[{\"ph\": \"B\", \"ts\": 1}, {\"ph\" \"E\"}]");
  r = ringmaster({"import", garbage});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("byte 29"), std::string::npos) << r.err;

  auto show = ringmaster({"show", "horovod-run"});
  ASSERT_EQ(show.exitCode, 0) << show.err;
  EXPECT_NE(show.out.find("200 timeline events"), std::string::npos) << show.out;
  auto runs = ringmaster({"runs"});
  EXPECT_NE(runs.out.find("cut.json"), std::string::npos);
  EXPECT_EQ(runs.out.find("garbage.json"), std::string::npos);  // nothing kept of it

  std::string trace = file("trace.json");
  r = ringmaster({"report", "horovod-run", "--format", "trace", "-o", trace});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("200 events"), std::string::npos) << r.out;
}

// A folder of per-rank PyTorch profiler traces (tests/fixtures/make_pytorch_traces.py): one run, diagnosed.
TEST_F(HistoryCli, ImportsAFolderOfPerRankTracesAsOneDiagnosedRun) {
  const std::string folder = std::string(RM_SOURCE_DIR) + "/tests/fixtures/pytorch_legacy";
  auto r = ringmaster({"import", folder, "--name", "ddp-traces"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("PyTorch profiler trace"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("on 2 ranks"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("rank from the number in each file's name"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("rank 1  " + folder + "/rank1.json.gz"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("straggler: rank 1"), std::string::npos) << r.out;

  auto show = ringmaster({"show", "ddp-traces"});
  ASSERT_EQ(show.exitCode, 0) << show.err;
  EXPECT_NE(show.out.find("status imported, 2 ranks"), std::string::npos) << show.out;
  EXPECT_NE(show.out.find("over 16 steps"), std::string::npos) << show.out;
  EXPECT_NE(show.out.find("straggler: rank 1"), std::string::npos) << show.out;
  auto runs = ringmaster({"runs"});
  EXPECT_EQ(runs.out.find("rank0.json"), std::string::npos) << "one run, not one per file: " << runs.out;

  // The same files named one by one make the same run.
  r = ringmaster({"import", folder + "/rank1.json.gz", folder + "/rank0.json"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("on 2 ranks"), std::string::npos) << r.out;

  std::filesystem::create_directories(file("empty"));
  r = ringmaster({"import", file("empty")});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("holds no trace files"), std::string::npos) << r.err;
  writeFile(file("bare.json"), "[]");
  r = ringmaster({"import", file("bare.json")});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("bare.json: the trace holds no events"), std::string::npos) << r.err;
}

// Kineto traces of 2 ranks of a 128-rank NCCL job (tests/fixtures/make_kineto_nccl_traces.py): `import` and
// `show` count each collective once, say the job's size, and print "not measured" for what a trace lacks
// (samples, memory, loss) rather than 0, and `compare` says what it lacks against a live run; the advice
// names DDP's own argument.
TEST_F(HistoryCli, AnImportedNcclTraceSaysWhatItMeasuredAndNeverPrintsAbsentFiguresAsZero) {
  const std::string folder = std::string(RM_SOURCE_DIR) + "/tests/fixtures/kineto_nccl";
  auto r = ringmaster({"import", folder, "--name", "nccl-pair"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("4 steps, 8 all-reduce ops and 4 other collectives"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("2 of the job's 128 ranks (distributedInfo.world_size)"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("--bucket-cap-mb"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("its bucket_cap_mb= argument"), std::string::npos) << r.out;

  auto show = ringmaster({"show", "nccl-pair"});
  ASSERT_EQ(show.exitCode, 0) << show.err;
  EXPECT_NE(show.out.find("2 ranks of a 128-rank job"), std::string::npos) << show.out;
  EXPECT_NE(show.out.find("backend nccl"), std::string::npos) << show.out;
  EXPECT_NE(show.out.find("all-reduce: 16 ops, median 1400.0 us, busbw 2.97 GB/s"), std::string::npos)
      << show.out;
  EXPECT_NE(show.out.find("memory: not measured; final loss not measured"), std::string::npos) << show.out;
  EXPECT_EQ(show.out.find("0.00 GB/s"), std::string::npos) << show.out;
  EXPECT_EQ(show.out.find("--bucket-cap-mb"), std::string::npos) << show.out;

  const int64_t imported = ringmaster::RunStore(store_).resolveRun("nccl-pair");
  ingest("live", 0, 3);
  auto compare = ringmaster({"compare", "live", "nccl-pair"});
  ASSERT_EQ(compare.exitCode, 0) << compare.err;
  std::istringstream lines(compare.out);
  int absentRows = 0;
  for (std::string line; std::getline(lines, line);) {
    for (const char* absent : {"throughput", "memory peak", "memory slope"}) {
      if (line.find("  " + std::string(absent) + " ") == 0) {
        ++absentRows;
        EXPECT_NE(line.find("run " + std::to_string(imported) + " (nccl-pair) has no"), std::string::npos)
            << "said missing, not a change to 0: " << line;
      }
    }
  }
  EXPECT_EQ(absentRows, 3) << compare.out;
}

// A rank that exited with an error: the terminal's advice names the command that prints its log (the window
// has a Logs page, the command line has none), and that command prints it.
TEST_F(HistoryCli, CrashAdviceNamesTheCommandThatPrintsTheRanksLog) {
  ringmaster::NewRun spec;
  spec.name = "crashed";
  spec.spec.set_world_size(2);
  ringmaster::console::RunIngest ingest(store_, spec);
  v1::Record log;
  log.mutable_log()->set_rank(1);
  log.mutable_log()->set_stream(v1::LogLine::STREAM_STDERR);
  log.mutable_log()->set_text("ValueError: the batch is empty");
  ingest.add({log, ringmaster::test::rankEnded(1, v1::RankState::STATE_EXITED, 3, "node1")}, "localhost");
  ingest.finish("failed");
  const std::string id = std::to_string(ingest.runId());

  auto show = ringmaster({"show", "crashed"});
  ASSERT_EQ(show.exitCode, 0) << show.err;
  EXPECT_EQ(show.out.find("Logs page"), std::string::npos) << show.out;
  EXPECT_NE(show.out.find("Rank 1's log (ringmaster show " + id + " --log 1) holds the error"),
            std::string::npos)
      << show.out;
  auto printed = ringmaster({"show", id, "--log", "1"});
  ASSERT_EQ(printed.exitCode, 0) << printed.err;
  EXPECT_NE(printed.out.find("[stderr] ValueError: the batch is empty"), std::string::npos) << printed.out;
  EXPECT_EQ(ringmaster({"show", id, "--log", "5"}).exitCode, 1);
}

// A folder of record files, as ranks run with RINGMASTER_RECORD_DIR leave it: `import` makes one run of it,
// says per rank what it holds and how it ended, and prints the run's findings; `show` has the same run.
TEST_F(HistoryCli, ImportsAFolderOfRecordFilesAsOneDiagnosedRun) {
  ringmaster::test::SyntheticRun run;
  run.ranks = 2;
  run.steps = 100;
  run.slowRank = 1;
  run.slowFrom = 10;
  run.slowData = 25;
  auto records = ringmaster::test::rankRecords(run, {100, 60}, {"node-a", "node-b"});
  const std::string folder = file("run1");
  std::filesystem::create_directories(folder);
  const std::string rank0 = folder + "/rank0-node-a-100.rmrecs";
  const std::string rank1 = folder + "/rank1-node-b-101.rmrecs";
  writeFile(rank0, ringmaster::test::recordFile("elastic-7", 0, 2, "node-a", 100, records[0], true));
  std::string torn = ringmaster::test::recordFile("elastic-7", 1, 2, "node-b", 101, records[1], false);
  writeFile(rank1, torn + ringmaster::test::batchFrame({records[1].back()}).substr(0, 6));

  auto r = ringmaster({"import", folder});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("as run 1: Ringmaster record files of run \"elastic-7\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("on 2 ranks"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("status failed"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("rank 0  " + rank0 + " (node-a, pid 100): "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("100 steps, 200 all-reduce ops\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("rank 1  " + rank1 + " (node-b, pid 101): "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("60 steps, 120 all-reduce ops (no end: its records stop after step 59) (cut short: "
                       "kept every whole frame)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("crash: rank 1 (node-b) stopped after step 59 without recording its end"),
            std::string::npos)
      << r.out;

  auto show = ringmaster({"show", "run1"});
  ASSERT_EQ(show.exitCode, 0) << show.err;
  EXPECT_NE(show.out.find("status failed, 2 ranks"), std::string::npos) << show.out;
  EXPECT_NE(show.out.find("source records:" + folder), std::string::npos) << show.out;
  EXPECT_NE(show.out.find("host node-b: python 3.11.2, torch 2.6.0"), std::string::npos) << show.out;
  EXPECT_NE(show.out.find("crash: rank 1 (node-b)"), std::string::npos) << show.out;
}

// Bad record files are refused with exit status 2, naming the files, and leave the history as it was.
TEST_F(HistoryCli, RefusedRecordFilesStoreNothing) {
  ringmaster::test::SyntheticRun run;
  run.ranks = 2;
  run.steps = 10;
  auto records = ringmaster::test::rankRecords(run, {10, 10}, {"node-a", "node-b"});
  const std::string folder = file("twice");
  std::filesystem::create_directories(folder);
  const std::string first = folder + "/rank1-node-b-101.rmrecs";
  const std::string second = folder + "/rank1-node-b-202.rmrecs";
  writeFile(first, ringmaster::test::recordFile("job", 1, 2, "node-b", 101, records[1], true));
  writeFile(second, ringmaster::test::recordFile("job", 1, 2, "node-b", 202, records[1], true));
  auto r = ringmaster({"import", folder});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find(first + " and " + second + " both hold rank 1"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("nothing was imported"), std::string::npos) << r.err;

  // A frame of 16 bytes that are no RankFrame.
  writeFile(second, std::string("RMRECS1\n") + std::string("\x10\0\0\0", 4) + "garbage bytes, not a frame");
  r = ringmaster({"import", second});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find(second + ": frame 1 is not a RankFrame message (at byte 8)"), std::string::npos)
      << r.err;
  auto runs = ringmaster({"runs"});
  EXPECT_NE(runs.out.find("No runs in"), std::string::npos) << runs.out;
}

TEST_F(HistoryCli, BadInputGetsAClearMessage) {
  ingest("x", 0, 1);
  auto r = ringmaster({"show", "no-such-run"});
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("no run 'no-such-run'"), std::string::npos) << r.err;

  r = ringmaster({"report", "x", "-o", file("report.txt")});
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("--format"), std::string::npos) << r.err;

  r = ringmaster({"report", "x", "--format", "html", "-o", file("missing/dir/report.html")});
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("missing/dir/report.html"), std::string::npos) << r.err;

  r = ringmaster({"report", "x", "--format", "docx", "-o", file("r.docx")});
  EXPECT_EQ(r.exitCode, 2);

  r = ringmaster({"report", "x", "--page", "legal", "-o", file("r.pdf")});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("--page"), std::string::npos) << r.err;

  r = ringmaster({"compare", "x"});
  EXPECT_EQ(r.exitCode, 2);

  writeFile(file("corrupt.sqlite"), std::string(8192, 'x'));
  auto corrupt = runProcess({binPath("ringmaster"), "runs", "--store", file("corrupt.sqlite")});
  EXPECT_EQ(corrupt.exitCode, 1);
  EXPECT_NE(corrupt.err.find("corrupt.sqlite is damaged or not a database"), std::string::npos)
      << corrupt.err;
}
