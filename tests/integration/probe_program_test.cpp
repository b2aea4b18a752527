// SPDX-License-Identifier: GPL-3.0-or-later
// Users' own C++ programs that report through Ringmaster::probe, under `ringmaster run -np 2 -- PROGRAM`: a
// small program whose every record the test can predict, and the LibTorch example built against an installed
// Ringmaster (cmake --install, find_package(Ringmaster)), as a user builds it.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <regex>
#include <set>

#include "tests/integration/program_run_support.h"
#include "tests/support/files.h"

using namespace ringmaster;
using namespace ringmaster::test;
using namespace std::chrono_literals;

namespace {

class ProbeProgram : public ProgramRunTest {
 protected:
  ProbeProgram() : ProgramRunTest("probe-program") {}

  // Runs `args` under `ringmaster run`; each rank's series of the one run, which has to finish.
  std::vector<RankSeries> runToTheEnd(const std::vector<std::string>& args, int steps,
                                      std::chrono::seconds timeout = 120s) {
    auto result = run(args, timeout);
    EXPECT_EQ(result.exitCode, 0) << result.err;
    const RunInfo info = onlyRun();
    EXPECT_EQ(info.status, "finished");
    auto series = RunStore(store_).rankSeries(info.id);
    EXPECT_EQ(series.size(), 2u);
    for (const auto& s : series) EXPECT_EQ(s.steps.size(), static_cast<size_t>(steps)) << "rank " << s.rank;
    return series;
  }
};

// Every record arrives, those sent with a scalar whose name is not UTF-8 among them (probe_steps logs one at
// the end: the probe makes the name UTF-8, which the agent needs to read the batch at all).
TEST_F(ProbeProgram, EveryStepPhaseAllreduceMemoryAndLossArrivesPerRank) {
  const int steps = 12;
  const std::string trace = dir_.file("trace.json");
  const auto series = runToTheEnd(
      {"-np", "2", "--timeline", trace, "--", binPath("probe_steps"), std::to_string(steps)}, steps);
  ASSERT_EQ(series.size(), 2u);
  const RunInfo info = onlyRun();
  RunStore store(store_);
  for (const auto& s : series) {
    SCOPED_TRACE("rank " + std::to_string(s.rank));
    for (size_t i = 0; i < s.steps.size(); ++i) {
      const auto& step = s.steps[i];
      EXPECT_EQ(step.step(), i);
      EXPECT_EQ(step.epoch(), 3u);
      EXPECT_EQ(step.samples(), 16u + static_cast<uint32_t>(s.rank));
      EXPECT_DOUBLE_EQ(step.loss(), 1.0 / static_cast<double>(i + 1));  // logged after the step's scope
      EXPECT_GT(step.data_ns(), 0);
      EXPECT_GT(step.forward_ns(), 0);
      EXPECT_GT(step.backward_ns(), 0);
      EXPECT_GT(step.comm_wait_ns(), 0);
      EXPECT_GT(step.optimizer_ns(), 0);
      EXPECT_EQ(step.total_ns(), step.data_ns() + step.forward_ns() + step.backward_ns() +
                                     step.comm_wait_ns() + step.optimizer_ns());
      if (i > 0) {
        EXPECT_GE(step.start_ns(), s.steps[i - 1].start_ns() + s.steps[i - 1].total_ns());
      }
    }
    ASSERT_EQ(s.allreduce.size(), 2u * steps);
    std::set<uint64_t> stepsWithOps;
    for (const auto& op : s.allreduce) {
      stepsWithOps.insert(op.step());
      EXPECT_EQ(op.bytes(), 4096u * (op.bucket() + 1));
      EXPECT_EQ(op.tensors(), 3u);
      EXPECT_GT(op.end_ns(), op.start_ns());
      EXPECT_GT(op.algbw_gbps(), 0.0);
      EXPECT_DOUBLE_EQ(op.busbw_gbps(), op.algbw_gbps());  // 2(n-1)/n = 1 for two ranks
    }
    EXPECT_EQ(stepsWithOps.size(), static_cast<size_t>(steps));
    ASSERT_EQ(s.memory.size(), static_cast<size_t>(steps));
    for (const auto& m : s.memory) {
      EXPECT_GT(m.rss_bytes(), 1u << 20);
      EXPECT_GT(m.host_total_bytes(), m.rss_bytes());
    }
  }
  for (const auto& rank : store.ranks(info.id)) {
    SCOPED_TRACE("rank " + std::to_string(rank.rank));
    EXPECT_EQ(rank.exitCode, 0);
    EXPECT_EQ(rank.steps, static_cast<uint64_t>(steps));
    ASSERT_TRUE(rank.finalLoss.has_value());
    EXPECT_DOUBLE_EQ(*rank.finalLoss, 1.0 / steps);
    ASSERT_TRUE(rank.testAccuracy.has_value());
    EXPECT_DOUBLE_EQ(*rank.testAccuracy, 0.75);
    EXPECT_GT(rank.samplesPerS, 0.0);
    EXPECT_EQ(rank.recordsDropped, 0u);
  }
  std::set<std::string> reported;
  for (const auto& line : store.logs(info.id)) {
    if (line.text().find("steps, reported") != std::string::npos) reported.insert(line.text().substr(0, 6));
  }
  EXPECT_EQ(reported, (std::set<std::string>{"rank 0", "rank 1"}));

  // The timeline holds both ranks' compute phases and all-reduces, as the worker's does.
  std::set<std::string> names;
  store.forEachTimelineEvent(info.id, [&](const v1::TimelineEvent& e) { names.insert(e.name()); });
  EXPECT_EQ(names, (std::set<std::string>{"DATA", "FORWARD", "BACKWARD", "OPTIMIZER", "ALLREDUCE"}));
  EXPECT_TRUE(std::filesystem::exists(trace)) << trace;
}

// Heartbeats say where each rank's loop is: the rank that stopped before its collective is the stall's
// culprit.
TEST_F(ProbeProgram, ARankThatStopsCallingCollectivesIsAStallFindingNamingIt) {
  auto result = run({"-np", "2", "--", binPath("probe_steps"), "100", "1:4:12"});
  EXPECT_EQ(result.exitCode, 1) << result.err;
  RunStore store(store_);
  std::vector<v1::Finding> stalls;
  std::string all;
  for (const auto& f : store.findings(onlyRun().id)) {
    all += "\n  " + f.summary();
    if (f.kind() == v1::Finding::KIND_STALL) stalls.push_back(f);
  }
  ASSERT_FALSE(stalls.empty()) << "findings:" << all << "\n" << result.err;
  EXPECT_EQ(stalls.front().rank(), 1) << all;
  EXPECT_NE(stalls.front().summary().find("rank 1"), std::string::npos) << all;
  // The step each rank gave up in (its scope left by an exception) is no step.
  for (const auto& s : store.rankSeries(onlyRun().id)) EXPECT_EQ(s.steps.size(), 4u) << "rank " << s.rank;
}

TEST_F(ProbeProgram, WithoutRingmasterTheProgramRunsAloneAndReportsNothing) {
  auto result = runProcess({binPath("probe_steps"), "3"}, {}, 60s);
  ASSERT_EQ(result.exitCode, 0) << result.err;
  EXPECT_NE(result.out.find("rank 0 of 1: 3 steps\n"), std::string::npos) << result.out;
}

// What a user does: install Ringmaster, build the example against the installed package, run it.
TEST_F(ProbeProgram, TheLibTorchExampleBuiltAgainstTheInstalledPackageIsMeasuredPerRank) {
  const std::string prefix = dir_.file("prefix");
  auto install =
      runProcess({RM_CMAKE, "--install", RM_BUILD_DIR, "--prefix", prefix, "--component", "probe"});
  ASSERT_EQ(install.exitCode, 0) << install.out << install.err;
  // The build's library folder: lib/<multiarch> under /usr on Debian.
  for (const char* file :
       {"include/ringmaster/probe.h", RM_INSTALL_LIBDIR "/cmake/Ringmaster/RingmasterConfig.cmake",
        RM_INSTALL_LIBDIR "/cmake/Ringmaster/RingmasterConfigVersion.cmake",
        RM_INSTALL_LIBDIR "/cmake/Ringmaster/RingmasterTargets.cmake"}) {
    EXPECT_TRUE(std::filesystem::exists(prefix + "/" + file)) << file;
  }
  bool library = false;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(prefix)) {
    library = library || entry.path().filename().string().rfind("libringmaster-probe.so", 0) == 0;
  }
  EXPECT_TRUE(library) << "no libringmaster-probe.so under " << prefix;

  // ccache keeps the LibTorch translation unit's compile from the first run for the next.
  const std::string build = dir_.file("example");
  const std::map<std::string, std::string> ccache = {{"CCACHE_BASEDIR", dir_.path()},
                                                     {"CCACHE_NOHASHDIR", "1"}};
  std::vector<std::string> configure = {RM_CMAKE,
                                        "-S",
                                        std::string(RM_SOURCE_DIR) + "/examples",
                                        "-B",
                                        build,
                                        "-G",
                                        "Ninja",
                                        "-DCMAKE_MAKE_PROGRAM=" RM_MAKE_PROGRAM,
                                        "-DCMAKE_CXX_COMPILER=" RM_CXX_COMPILER,
                                        "-DCMAKE_BUILD_TYPE=Release",
                                        "-DCMAKE_PREFIX_PATH=" + prefix,
                                        "-DTorch_DIR=" RM_TORCH_DIR};
  if (std::string(RM_CCACHE).size() > 0) configure.push_back("-DCMAKE_CXX_COMPILER_LAUNCHER=" RM_CCACHE);
  // The flags Ringmaster was built with: a sanitizer build's example links the sanitizer runtime its
  // instrumented probe library needs.
  if (std::string(RM_CXX_FLAGS).size() > 0) configure.push_back("-DCMAKE_CXX_FLAGS=" RM_CXX_FLAGS);
  auto configured = runProcess(configure, ccache, 120s);
  ASSERT_EQ(configured.exitCode, 0) << configured.out << configured.err;
  const std::string cache = readFile(build + "/CMakeCache.txt");
  EXPECT_NE(cache.find("Ringmaster_DIR:PATH=" + prefix + "/" RM_INSTALL_LIBDIR "/cmake/Ringmaster"),
            std::string::npos)
      << "the installed package was not the one found";
  auto built = runProcess({RM_CMAKE, "--build", build}, ccache, 300s);
  ASSERT_EQ(built.exitCode, 0) << built.out << built.err;

  const int steps = 20;
  const auto series =
      runToTheEnd({"-np", "2", "--", build + "/probe_mlp", "--steps", std::to_string(steps)}, steps, 180s);
  ASSERT_EQ(series.size(), 2u);
  for (const auto& s : series) {
    SCOPED_TRACE("rank " + std::to_string(s.rank));
    for (const auto& step : s.steps) {
      EXPECT_EQ(step.samples(), 64u);
      EXPECT_GT(step.forward_ns(), 0);
      EXPECT_GT(step.backward_ns(), 0);
      EXPECT_GT(step.comm_wait_ns(), 0);
      EXPECT_GT(step.optimizer_ns(), 0);
      EXPECT_TRUE(std::isfinite(step.loss()) && step.loss() > 0.0) << step.loss();
    }
    // One all-reduce a step of every gradient: the MLP's 85,002 float parameters.
    ASSERT_EQ(s.allreduce.size(), static_cast<size_t>(steps));
    for (const auto& op : s.allreduce) {
      EXPECT_EQ(op.bytes(), 85002u * 4);
      EXPECT_GT(op.end_ns(), op.start_ns());
    }
    ASSERT_EQ(s.memory.size(), static_cast<size_t>(steps));
    for (const auto& m : s.memory) EXPECT_GT(m.rss_bytes(), 10u << 20);
  }
  // The loss the program printed last is the one its rank's summary holds.
  const RunInfo info = onlyRun();
  RunStore store(store_);
  std::map<int, double> printed;
  const std::regex line(R"(rank (\d+): trained (\d+) steps, final loss ([0-9.e+-]+))");
  for (const auto& log : store.logs(info.id)) {
    std::smatch m;
    if (std::regex_search(log.text(), m, line)) {
      EXPECT_EQ(std::stoi(m[2]), steps);
      printed[std::stoi(m[1])] = std::stod(m[3]);
    }
  }
  ASSERT_EQ(printed.size(), 2u);
  for (const auto& rank : store.ranks(info.id)) {
    ASSERT_TRUE(rank.finalLoss.has_value()) << "rank " << rank.rank;
    EXPECT_NEAR(*rank.finalLoss, printed[rank.rank], 1e-5 * printed[rank.rank]) << "rank " << rank.rank;
    EXPECT_EQ(rank.steps, static_cast<uint64_t>(steps));
  }
}

}  // namespace
