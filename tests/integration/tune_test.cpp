// SPDX-License-Identifier: GPL-3.0-or-later
// `ringmaster tune` as a user runs it: real trials of a tiny job through the real binary, read back from the
// store the trials were kept in.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <regex>
#include <set>
#include <sstream>

#include "common/job_spec.h"
#include "console/tune/tune_search.h"
#include "history/run_store.h"
#include "tests/support/process.h"
#include "tests/support/temp_dir.h"

using ringmaster::test::binPath;
using ringmaster::test::runProcess;
using ringmaster::test::TempDir;

namespace {

// A relative change with its interval, as the trial table and the recommendation print it: "+7.0 % [+3.1,
// +11.2]".
const std::regex kChangeWithInterval(R"([+-]\d+\.\d % \[[+-]\d+\.\d, [+-]\d+\.\d\])");

std::string lastLine(const std::string& text) {
  std::string line, last;
  std::istringstream in(text);
  while (std::getline(in, line)) {
    if (!line.empty()) last = line;
  }
  return last;
}

}  // namespace

TEST(Tune, FourTrialsOfATinyJobRecommendTheTrialWithTheBestMeasuredThroughput) {
  TempDir dir("tune");
  const std::string store = dir.file("runs.sqlite");
  auto r = runProcess(
      {binPath("ringmaster"), "tune", "-np", "2", "--model", "mlp", "--data", "synthetic", "--steps", "20",
       "--trials", "4", "--name", "tiny", "--store", store, "--state-dir", dir.file("state")},
      {}, std::chrono::minutes(3));
  ASSERT_FALSE(r.timedOut) << r.out << r.err;
  ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
  EXPECT_NE(r.err.find("tagged tune:tiny"), std::string::npos) << r.err;

  // Every trial is a finished run in the history, tagged with the session; the job as given (the ddp
  // engine's 25 MiB buckets) is one of them.
  ringmaster::RunStore::Options readOnly;
  readOnly.readOnly = true;
  ringmaster::RunStore runs(store, readOnly);
  std::vector<ringmaster::RunInfo> trials;
  for (const auto& run : runs.runs()) {
    if (std::find(run.tags.begin(), run.tags.end(), "tune:tiny") != run.tags.end()) trials.push_back(run);
  }
  ASSERT_EQ(trials.size(), 4u) << r.out;
  std::set<double> buckets;
  const ringmaster::RunInfo* best = nullptr;
  double bestThroughput = 0;
  for (const auto& t : trials) {
    EXPECT_EQ(t.status, "finished") << t.name;
    EXPECT_EQ(t.spec.hyper().steps(), 20u) << t.name;
    buckets.insert(t.spec.hyper().bucket_cap_mb());
    const double throughput = ringmaster::console::measureTrial(runs, t.id).throughput;
    EXPECT_GT(throughput, 0) << t.name;
    // Each trial's row names its run and the throughput measured.
    const std::regex row("\\s" + std::to_string(t.id) + "\\s+finished");
    EXPECT_TRUE(std::regex_search(r.out, row)) << "no row for run " << t.id << ":\n" << r.out;
    if (!best || throughput > bestThroughput) {
      best = &t;
      bestThroughput = throughput;
    }
  }
  EXPECT_EQ(buckets.size(), 4u) << "four different settings: " << r.out;
  EXPECT_EQ(buckets.count(25), 1u) << "the default is one of the trials: " << r.out;

  // The recommendation names the trial whose stored figures give the highest throughput, with the interval
  // of its change against the default.
  const std::string verdict = lastLine(r.out);
  EXPECT_TRUE(std::regex_search(verdict, kChangeWithInterval)) << verdict;
  const std::string bestRun = "run " + std::to_string(best->id);
  if (best->spec.hyper().bucket_cap_mb() == 25) {
    EXPECT_EQ(
        verdict.rfind(
            "the default is as good as any trial: it measured the highest throughput (" + bestRun + ")", 0),
        0u)
        << verdict;
  } else {
    const std::string flags =
        "--bucket-cap-mb " + ringmaster::formatNumber(best->spec.hyper().bucket_cap_mb());
    const bool beats = verdict.rfind("best: " + flags + ", ", 0) == 0;
    const bool withinNoise =
        verdict.rfind("the default is as good as any trial: the best, " + flags + ", ", 0) == 0;
    EXPECT_TRUE(beats || withinNoise) << "the best measured is " << flags << ": " << verdict;
    EXPECT_NE(verdict.find("(" + bestRun + " against run "), std::string::npos) << verdict;
  }

  // The history shows the tag.
  auto list = runProcess({binPath("ringmaster"), "runs", "--store", store});
  EXPECT_EQ(list.exitCode, 0) << list.err;
  EXPECT_NE(list.out.find("tune:tiny"), std::string::npos) << list.out;
  auto show = runProcess({binPath("ringmaster"), "show", std::to_string(best->id), "--store", store});
  EXPECT_EQ(show.exitCode, 0) << show.err;
  EXPECT_NE(show.out.find("tags tune:tiny"), std::string::npos) << show.out;
}

TEST(Tune, BadTuningFlagsAreRefusedNamingTheFlagBeforeAnyTrialRuns) {
  TempDir dir("tune-flags");
  const std::string store = dir.file("runs.sqlite");
  const std::vector<std::string> job = {"-np",       "2",       "--model", "mlp",         "--data",
                                        "synthetic", "--store", store,     "--state-dir", dir.file("state")};
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--trials", "1"}, "--trials"},
      {{"--trials", "many"}, "--trials"},
      {{"--trials", "101"}, "--trials"},
      {{"--tune", "learning-rate"}, "--tune"},
      {{"--tune", "fusion"}, "--tune fusion"},
      {{"--engine", "horovod", "--tune", "bucket-cap"}, "--tune bucket-cap"},
      {{"--no-store"}, "--no-store"},
      {{"--summary-json", dir.file("s.json")}, "--summary-json"},
      {{"--steps", "3"}, "--steps"},
      {{"--name",
        "a\x1f"
        "b"},
       "--name"},
  };
  for (const auto& [flags, mention] : cases) {
    std::vector<std::string> argv = {binPath("ringmaster"), "tune"};
    argv.insert(argv.end(), job.begin(), job.end());
    argv.insert(argv.end(), flags.begin(), flags.end());
    if (std::find(flags.begin(), flags.end(), "--steps") == flags.end()) {
      argv.insert(argv.end(), {"--steps", "20"});
    }
    std::string shown;
    for (const auto& f : flags) shown += f + " ";
    auto r = runProcess(argv, {}, std::chrono::seconds(60));
    EXPECT_EQ(r.exitCode, 2) << shown << ": " << r.err;
    EXPECT_NE(r.err.find(mention), std::string::npos)
        << shown << "- stderr does not name " << mention << ": " << r.err;
    EXPECT_EQ(r.err.find("terminate called"), std::string::npos) << shown << ": " << r.err;
  }
  // Nothing ran: no trial is in the history.
  EXPECT_FALSE(std::filesystem::exists(store));
}
