// SPDX-License-Identifier: GPL-3.0-or-later
// A user's own PyTorch DDP script under `ringmaster run -- /usr/bin/python3 ...`: real ranks of Debian's
// torch on gloo, instrumented by the ringmaster Python package, watched, diagnosed and stored like
// Ringmaster's own runs. RINGMASTER_TEST_PYTHON names another interpreter for the ranks: the torch2 tests run
// these again with Debian 13's python3 and torch 2.6 (<build>/python3-debian13).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <set>

#include "agent/agent_server.h"
#include "diagnosis/advice.h"
#include "tests/integration/program_run_support.h"
#include "tests/support/files.h"

using namespace ringmaster;
using namespace ringmaster::test;
using namespace std::chrono_literals;

namespace {

// Debian's, the one python3-torch is installed for, unless the environment names another.
const std::string kPython = [] {
  const char* other = std::getenv("RINGMASTER_TEST_PYTHON");
  return std::string(other && *other ? other : "/usr/bin/python3");
}();

std::string program() {
  return std::string(RM_TEST_PROGRAMS) + "/fashion_ddp.py";
}

class UserProgram : public ProgramRunTest {
 protected:
  UserProgram() : ProgramRunTest("user-program") {}

  std::vector<v1::Finding> findings(v1::Finding::Kind kind) {
    RunStore store(store_);
    std::vector<v1::Finding> out;
    for (const auto& f : store.findings(onlyRun().id)) {
      if (f.kind() == kind) out.push_back(f);
    }
    return out;
  }

  static std::string describe(const std::vector<v1::Finding>& findings) {
    std::string text;
    for (const auto& f : findings) text += "\n  " + f.summary();
    return text;
  }

  std::string everyFinding() {
    RunStore store(store_);
    return describe(store.findings(onlyRun().id));
  }
};

TEST_F(UserProgram, AnUnmodifiedDdpScriptTrainsOnFashionMnistAndIsMeasuredPerRank) {
  const int steps = 30;
  auto result = run({"-np", "2", "--", kPython, program(), "--steps", std::to_string(steps)});
  ASSERT_EQ(result.exitCode, 0) << result.err;
  EXPECT_NE(result.err.find("finished"), std::string::npos) << result.err;

  RunInfo info = onlyRun();
  EXPECT_EQ(info.status, "finished");
  EXPECT_EQ(info.name, "fashion_ddp.py x2");
  ASSERT_EQ(info.spec.program().argv_size(), 4);
  EXPECT_EQ(info.spec.program().argv(0), kPython);

  RunStore store(store_);
  auto series = store.rankSeries(info.id);
  ASSERT_EQ(series.size(), 2u);
  for (const auto& s : series) {
    SCOPED_TRACE("rank " + std::to_string(s.rank));
    ASSERT_EQ(s.steps.size(), static_cast<size_t>(steps));
    for (const auto& step : s.steps) {
      EXPECT_EQ(step.samples(), 64u);
      EXPECT_GT(step.forward_ns(), 0);
      EXPECT_GT(step.backward_ns(), 0);
      EXPECT_GT(step.optimizer_ns(), 0);
      EXPECT_GE(step.total_ns(), step.forward_ns() + step.backward_ns() + step.optimizer_ns());
      EXPECT_TRUE(std::isfinite(step.loss()));
    }
    // The 3 MiB of gradients make two all-reduces a step once DDP has rebuilt its buckets after the first
    // step (its first bucket closes past 1 MiB), each of bytes and a duration.
    std::set<uint64_t> stepsWithOps;
    for (const auto& op : s.allreduce) stepsWithOps.insert(op.step());
    EXPECT_EQ(stepsWithOps.size(), static_cast<size_t>(steps));
    EXPECT_GE(s.allreduce.size(), 2u * steps - 1);
    for (const auto& op : s.allreduce) {
      EXPECT_GT(op.bytes(), 0u);
      EXPECT_GE(op.end_ns(), op.start_ns());
    }
    EXPECT_GE(s.memory.size(), static_cast<size_t>(steps) - 1);
    for (const auto& m : s.memory) EXPECT_GT(m.rss_bytes(), 10u << 20);
  }
  // The script's own output is kept, and ends as it ends without Ringmaster.
  std::set<std::string> trained;
  for (const auto& line : store.logs(info.id)) {
    if (line.text().find("trained " + std::to_string(steps) + " steps") != std::string::npos) {
      trained.insert(line.text().substr(0, 6));
    }
  }
  EXPECT_EQ(trained, (std::set<std::string>{"rank 0", "rank 1"}));
  for (const auto& rank : store.ranks(info.id)) {
    EXPECT_EQ(rank.state, v1::RankState::STATE_EXITED);
    EXPECT_EQ(rank.exitCode, 0);
  }
}

TEST_F(UserProgram, ASlowDataPathOnOneRankIsAStragglerFindingNamingIt) {
  auto result = run({"-np", "2", "--", kPython, program(), "--steps", "40", "--slow-data", "1:120"});
  ASSERT_EQ(result.exitCode, 0) << result.err;
  auto stragglers = findings(v1::Finding::KIND_STRAGGLER);
  ASSERT_FALSE(stragglers.empty()) << "findings:" << everyFinding();
  const auto& f = stragglers.front();
  EXPECT_EQ(f.rank(), 1) << f.summary();
  EXPECT_TRUE(f.cause() == "data" || f.cause() == "compute") << f.cause() << ": " << f.summary();
}

TEST_F(UserProgram, TensorsKeptAcrossStepsAreALeakFindingOnThatRank) {
  auto result =
      run({"-np", "2", "--", kPython, program(), "--steps", "120", "--batch", "256", "--keep-tensors", "1"});
  ASSERT_EQ(result.exitCode, 0) << result.err;
  auto leaks = findings(v1::Finding::KIND_MEMORY_LEAK);
  ASSERT_FALSE(leaks.empty()) << "findings:" << everyFinding();
  std::set<int> ranks;
  for (const auto& f : leaks) ranks.insert(f.rank());
  EXPECT_EQ(ranks, std::set<int>{1}) << describe(leaks);
}

TEST_F(UserProgram, AProgramThatSpawnsItsOwnRanksIsWatchedAsThoseRanks) {
  // One process launched; it spawns 3 ranks (torch.multiprocessing.spawn), each with 2 DataLoader workers
  // forked. Every rank reports as itself, presenting the secret of the process it descends from.
  const int steps = 12;
  auto result = run({"-np", "1", "--", kPython, program(), "--steps", std::to_string(steps), "--spawn", "3",
                     "--loader-workers", "2", "--samples", "4096"});
  ASSERT_EQ(result.exitCode, 0) << result.err;
  RunInfo info = onlyRun();
  EXPECT_EQ(info.status, "finished");
  EXPECT_EQ(info.worldSize, 3);
  RunStore store(store_);
  auto series = store.rankSeries(info.id);
  ASSERT_EQ(series.size(), 3u) << result.err;
  for (const auto& s : series) {
    SCOPED_TRACE("rank " + std::to_string(s.rank));
    EXPECT_EQ(s.steps.size(), static_cast<size_t>(steps));
    EXPECT_FALSE(s.allreduce.empty());
    for (const auto& step : s.steps) EXPECT_GT(step.data_ns() + step.forward_ns(), 0);
  }
  std::set<int> joined;
  for (const auto& rank : store.ranks(info.id)) joined.insert(rank.rank);
  EXPECT_EQ(joined, (std::set<int>{0, 1, 2}));
}

TEST_F(UserProgram, SpawnedRanksWhoseTelemetryIsRefusedOrNeverArrivesAreAFinding) {
  // Of 4 ranks the program spawns, rank 2 presents a wrong secret and rank 3 has no telemetry socket: both
  // train, neither reports.
  auto result = run({"-np", "1", "--", kPython, program(), "--steps", "12", "--spawn", "4", "--samples",
                     "4096", "--refused-rank", "2", "--unreported-rank", "3"});
  ASSERT_EQ(result.exitCode, 0) << result.err;
  auto missing = findings(v1::Finding::KIND_MISSING_TELEMETRY);
  ASSERT_EQ(missing.size(), 1u) << "findings:" << everyFinding() << "\n" << result.err;
  const std::string& summary = missing.front().summary();
  EXPECT_NE(summary.find("Ranks 2, 3 sent no telemetry while the others finished 12 steps"),
            std::string::npos)
      << summary;
  EXPECT_NE(summary.find("The program's output says: \"ringmaster: "), std::string::npos) << summary;
  EXPECT_NE(summary.find("refused this rank: the secret presented is not rank 0's"), std::string::npos)
      << summary;
  RunStore store(store_);
  EXPECT_EQ(store.rankSeries(onlyRun().id).size(), 2u);
}

TEST_F(UserProgram, ARankThatStopsCallingCollectivesIsAStallFindingNamingIt) {
  // Rank 1 sleeps from step 8 on; rank 0 waits in its all-reduce until gloo gives up after 25 s.
  auto result = run({"-np", "2", "--", kPython, program(), "--steps", "200", "--stop-collectives", "1:8",
                     "--timeout-s", "25"});
  EXPECT_EQ(result.exitCode, 1) << result.err;
  auto stalls = findings(v1::Finding::KIND_STALL);
  ASSERT_FALSE(stalls.empty()) << "findings:" << everyFinding() << "\n" << result.err;
  EXPECT_EQ(stalls.front().rank(), 1) << describe(stalls);
  EXPECT_NE(stalls.front().summary().find("rank 1"), std::string::npos) << describe(stalls);
}

TEST_F(UserProgram, ARankThatRaisesFailsTheRunNamingItWithTheTraceback) {
  auto result = run({"-np", "2", "--", kPython, program(), "--steps", "200", "--raise", "1:5"});
  EXPECT_EQ(result.exitCode, 1) << result.err;
  EXPECT_NE(result.err.find("failed: rank 1"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("RuntimeError: rank 1 cannot go on at step 5"), std::string::npos) << result.err;
  EXPECT_EQ(onlyRun().status, "failed");
}

TEST_F(UserProgram, WithoutInstrumentationItStillRunsAndItsOutputAndExitsAreWatched) {
  // Uninstrumented, the program is left as it is: where torch's TCPStore lacks the libuv it uses by default
  // (Debian's torch 2.6), its user says USE_LIBUV=0, as the instrumentation would; torch 1.13 ignores it.
  auto result =
      run({"-np", "2", "--no-instrument", "--env", "USE_LIBUV=0", "--", kPython, program(), "--steps", "5"});
  ASSERT_EQ(result.exitCode, 0) << result.err;
  RunStore store(store_);
  const RunInfo info = onlyRun();
  EXPECT_EQ(info.status, "finished");
  EXPECT_EQ(store.counts(info.id).steps, 0) << "nothing measured the steps";
  bool trained = false;
  for (const auto& line : store.logs(info.id))
    trained = trained || line.text().find("trained 5 steps") != std::string::npos;
  EXPECT_TRUE(trained);
  EXPECT_EQ(store.ranks(info.id).size(), 2u);
}

// --horovod tells the ranks, through RINGMASTER_HOROVOD, to import Ringmaster's Horovod layer; without it
// they are not told.
TEST_F(UserProgram, OnlyARunWithHorovodTellsItsRanksToUseRingmastersHorovodLayer) {
  const std::vector<std::string> program = {"/bin/sh", "-c",
                                            "echo \"rank $RANK horovod=${RINGMASTER_HOROVOD:-unset}\""};
  for (const bool horovod : {true, false}) {
    SCOPED_TRACE(horovod ? "--horovod" : "without --horovod");
    const std::string name = horovod ? "with horovod" : "without";
    std::vector<std::string> args = {"-np", "2", "--name", name};
    if (horovod) args.push_back("--horovod");
    args.push_back("--");
    args.insert(args.end(), program.begin(), program.end());
    auto result = run(args);
    ASSERT_EQ(result.exitCode, 0) << result.err;
    RunStore store(store_);
    std::optional<RunInfo> info;
    for (const auto& r : store.runs()) {
      if (r.name == name) info = r;
    }
    ASSERT_TRUE(info.has_value());
    EXPECT_EQ(info->spec.program().horovod(), horovod);
    std::set<std::string> said;
    for (const auto& line : store.logs(info->id)) said.insert(line.text());
    const std::string value = horovod ? "1" : "unset";
    EXPECT_EQ(said, (std::set<std::string>{"rank 0 horovod=" + value, "rank 1 horovod=" + value}));
  }
  auto refused = run({"-np", "1", "--horovod", "--no-instrument", "--", "/bin/sh", "-c", "true"});
  EXPECT_EQ(refused.exitCode, 2) << refused.err;
  EXPECT_NE(refused.err.find("--horovod cannot go with --no-instrument"), std::string::npos) << refused.err;
}

// A Horovod script run as a plain program, where no Horovod is installed, fails at its import: the crash
// finding says so and its advice names --horovod.
TEST_F(UserProgram, AHorovodScriptRunWithoutHorovodIsAFindingThatNamesTheHorovodFlag) {
  const std::string script = dir_.file("train_hvd.py");
  writeFile(script, "import horovod.torch as hvd\n\nhvd.init()\n");
  auto result = run({"-np", "2", "--", kPython, script});
  EXPECT_EQ(result.exitCode, 1) << result.err;
  EXPECT_NE(result.err.find("No module named 'horovod'"), std::string::npos) << result.err;
  const auto crashes = findings(v1::Finding::KIND_CRASH);
  ASSERT_EQ(crashes.size(), 1u) << "findings:" << everyFinding();
  EXPECT_EQ(crashes[0].cause(), "horovod missing") << crashes[0].summary();
  // Said when it happened, and made again from the stored finding wherever the run is shown.
  EXPECT_NE(result.err.find("'s program imports Horovod, which is not installed"), std::string::npos)
      << result.err;
  EXPECT_NE(result.err.find("`ringmaster run --horovod ...`"), std::string::npos) << result.err;
  const std::string advice = toText(diagnosis::adviceFor(crashes[0]));
  EXPECT_NE(advice.find("`ringmaster run --horovod ...`"), std::string::npos) << advice;
  EXPECT_EQ(onlyRun().status, "failed");
}

// The example pair: one model, seed and data as a DDP script and as a Horovod script run with --horovod.
TEST_F(UserProgram, TheDdpAndHorovodExamplesTrainAlikeAndCompareWithTheirAllReduces) {
  const std::string examples = RM_EXAMPLES;
  const std::vector<std::string> common = {"--steps", "30", "--samples", "4096"};
  auto launch = [&](const std::vector<std::string>& flags, const std::string& script) {
    std::vector<std::string> args = flags;
    args.insert(args.end(), {"--", kPython, examples + "/" + script});
    args.insert(args.end(), common.begin(), common.end());
    return run(args);
  };
  auto ddp = launch({"-np", "2", "--name", "ddp"}, "fashion_ddp.py");
  ASSERT_EQ(ddp.exitCode, 0) << ddp.err;
  auto horovod = launch({"-np", "2", "--name", "horovod", "--horovod"}, "fashion_horovod.py");
  ASSERT_EQ(horovod.exitCode, 0) << horovod.err;

  RunStore store(store_);
  std::map<std::string, std::set<std::string>> checksums;  // run name -> the parameters its ranks ended with
  std::map<std::string, bool> saysWhichHorovod;
  for (const auto& info : store.runs()) {
    EXPECT_EQ(info.status, "finished") << info.name;
    for (const auto& line : store.logs(info.id)) {
      if (auto at = line.text().find("parameters "); at != std::string::npos)
        checksums[info.name].insert(line.text().substr(at));
      if (line.text().find("horovod is Ringmaster's Horovod-compatible layer") != std::string::npos)
        saysWhichHorovod[info.name] = true;
    }
    const auto series = store.rankSeries(info.id);
    ASSERT_EQ(series.size(), 2u) << info.name;
    for (const auto& s : series) {
      EXPECT_EQ(s.steps.size(), 30u) << info.name;
      for (const auto& step : s.steps) EXPECT_EQ(step.samples(), 64u) << info.name;
      EXPECT_GE(s.allreduce.size(), 59u) << info.name << ": two buckets a step";
    }
  }
  ASSERT_EQ(checksums["ddp"].size(), 1u) << "every DDP rank ends with the same parameters";
  ASSERT_EQ(checksums["horovod"].size(), 1u) << "every Horovod rank ends with the same parameters";
  EXPECT_TRUE(saysWhichHorovod["horovod"]) << "the ranks' log says which Horovod runs";
  EXPECT_FALSE(saysWhichHorovod["ddp"]);

  auto compared =
      runProcess({binPath("ringmaster"), "compare", "--store", store_, "ddp", "horovod"}, {}, 60s);
  ASSERT_EQ(compared.exitCode, 0) << compared.err;
  for (const char* metric :
       {"step time mean", "exposed comm wait", "all-reduces", "all-reduced", "time to loss"})
    EXPECT_NE(compared.out.find(metric), std::string::npos) << metric << " in\n" << compared.out;
}

// A Horovod script's rank that calls a collective the others do not: the layer's stall inspector names it to
// the console, which stops the job (--stall-timeout-s) with a stall finding for that rank.
TEST_F(UserProgram, AHorovodRankCallingACollectiveTheOthersDoNotIsTheStallFinding) {
  const std::string script = std::string(RM_PYTHON_TEST_PROGRAMS) + "/train_hvd.py";
  auto result = run({"-np", "4", "--horovod", "--stall-timeout-s", "20", "--", kPython, script, "--steps",
                     "40", "--extra-collective", "1:3"});
  EXPECT_EQ(result.exitCode, 1) << result.err;
  auto stalls = findings(v1::Finding::KIND_STALL);
  ASSERT_FALSE(stalls.empty()) << "findings:" << everyFinding() << "\n" << result.err;
  EXPECT_EQ(stalls.front().rank(), 1) << describe(stalls);
  EXPECT_EQ(stalls.front().cause(), "missing tensors") << describe(stalls);
  EXPECT_NE(stalls.front().summary().find("ranks 0,2,3"), std::string::npos) << describe(stalls);
  // Named once the waiting ranks had waited the inspector's 5 s, not Horovod's 60 s.
  ASSERT_TRUE(stalls.front().evidence().count("waited_s")) << describe(stalls);
  EXPECT_LT(stalls.front().evidence().at("waited_s"), 60) << describe(stalls);
  RunStore store(store_);
  bool told = false;
  for (const auto& line : store.logs(onlyRun().id))
    told = told || line.text().find("rank 1 waits in extra, which ranks 0, 2, 3 have not called") !=
                       std::string::npos;
  EXPECT_TRUE(told) << "rank 1's log says what it waits in";
}

TEST_F(UserProgram, ARankZeroOnlyAllReduceIsNamedAsCollectivesOutOfStepAndTheRunStillEndsWithTheCrash) {
  // At step 30 rank 0 calls a 1-element all_reduce before its forward; rank 1 goes on into DDP's first bucket
  // all-reduce. Gloo pairs the two and fails (or, at worst, waits out the 30 s timeout).
  auto result = run({"-np", "2", "--", kPython, program(), "--steps", "200", "--extra-all-reduce", "0:30",
                     "--timeout-s", "30"});
  EXPECT_EQ(result.exitCode, 1) << result.err;
  auto outOfStep = findings(v1::Finding::KIND_COLLECTIVES);
  ASSERT_EQ(outOfStep.size(), 1u) << "findings:" << everyFinding() << "\n" << result.err;
  const v1::Finding& f = outOfStep.front();
  EXPECT_EQ(f.rank(), 0) << f.summary();
  EXPECT_EQ(f.since_step(), 30u) << f.summary();
  EXPECT_NE(f.summary().find("From step 30 rank 0"), std::string::npos) << f.summary();
  EXPECT_NE(f.summary().find("all_reduce of 1 float32 (fashion_ddp.py:"), std::string::npos) << f.summary();
  // Where rank 1 was when Gloo aborted rank 0: seen in its heartbeat ("rank 1 is in"), or, when it was
  // stopped before one said so, what its steps call there ("where rank 1 calls").
  EXPECT_TRUE(f.summary().find("; rank 1") != std::string::npos ||
              f.summary().find(" where rank 1") != std::string::npos)
      << f.summary();
  EXPECT_NE(f.summary().find("float32 (DDP bucket 0)"), std::string::npos) << f.summary();
  EXPECT_FALSE(findings(v1::Finding::KIND_CRASH).empty()) << "findings:" << everyFinding();
  EXPECT_EQ(onlyRun().status, "failed");
}

TEST_F(UserProgram, ALayerAddedAfterDdpWrappedTheModelIsNamedAsDriftingFromTheFirstCheckAfterItTrained) {
  // The layer starts alike on both ranks (the same seed) and drifts once each rank's optimizer has stepped it
  // with its own gradients, which DDP never all-reduces.
  auto result = run({"-np", "2", "--check-replicas-every", "10", "--", kPython, program(), "--steps", "40",
                     "--layer-after-wrap"});
  ASSERT_EQ(result.exitCode, 0) << result.err;
  auto drift = findings(v1::Finding::KIND_REPLICA_DRIFT);
  ASSERT_EQ(drift.size(), 1u) << "findings:" << everyFinding() << "\n" << result.err;
  const v1::Finding& f = drift.front();
  EXPECT_EQ(f.since_step(), 10u) << f.summary();
  EXPECT_EQ(f.rank(), 1) << f.summary();
  EXPECT_EQ(f.summary(),
            "From step 10 the replicas differ: 2 of 10 tensors (head.weight, head.bias) hold other values on "
            "rank 1 than on rank 0; at step 0 they were equal.");
  EXPECT_TRUE(findings(v1::Finding::KIND_COLLECTIVES).empty()) << everyFinding();
}

// Ringmaster's own ranks check their replicas too: a parameter one rank changes outside the optimizer.
TEST_F(UserProgram, BuiltInTrainingNamesAReplicaThatDrifted) {
  auto result = run({"-np", "2", "--model", "mlp", "--steps", "16", "--batch-size", "32",
                     "--check-replicas-every", "4", "--inject-drift", "1:6"});
  ASSERT_EQ(result.exitCode, 0) << result.err;
  auto drift = findings(v1::Finding::KIND_REPLICA_DRIFT);
  ASSERT_EQ(drift.size(), 1u) << "findings:" << everyFinding() << "\n" << result.err;
  EXPECT_EQ(drift.front().since_step(), 8u) << drift.front().summary();
  EXPECT_EQ(drift.front().rank(), 1) << drift.front().summary();
  EXPECT_NE(drift.front().summary().find("on rank 1 than on rank 0; at step 4 they were equal."),
            std::string::npos)
      << drift.front().summary();
}

// Ten clean runs of a program and ten of Ringmaster's own training, replicas checked every 4 steps: none
// drifts and none is out of step (the checks are there: a run's ranks sent their hashes).
TEST_F(UserProgram, CleanRunsOfProgramsAndBuiltInTrainingHaveNoDriftOrOutOfStepFinding) {
  for (int i = 0; i < 20; ++i) {
    const bool builtIn = i % 2 == 1;
    SCOPED_TRACE((builtIn ? "built-in run " : "program run ") + std::to_string(i));
    std::vector<std::string> args = {"-np", "2",      "--check-replicas-every",
                                     "4",   "--name", "clean" + std::to_string(i)};
    if (builtIn) {
      for (const char* a : {"--model", "mlp", "--steps", "12", "--batch-size", "32"}) args.push_back(a);
    } else {
      for (const std::string& a : {std::string("--"), kPython, program(), std::string("--steps"),
                                   std::string("12"), std::string("--samples"), std::string("2048")})
        args.push_back(a);
    }
    auto result = run(args);
    ASSERT_EQ(result.exitCode, 0) << result.err;
  }
  RunStore store(store_);
  const auto runs = store.runs();
  ASSERT_EQ(runs.size(), 20u);
  for (const auto& info : runs) {
    SCOPED_TRACE(info.name);
    for (const auto& f : store.findings(info.id)) {
      EXPECT_NE(f.kind(), v1::Finding::KIND_REPLICA_DRIFT) << f.summary();
      EXPECT_NE(f.kind(), v1::Finding::KIND_COLLECTIVES) << f.summary();
    }
  }
}

TEST_F(UserProgram, TrainingFlagsWithAProgramAreAUsageError) {
  auto result = run({"-np", "2", "--model", "mlp", "--", kPython, program()});
  EXPECT_EQ(result.exitCode, 2) << result.err;
  EXPECT_NE(result.err.find("--model"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("cannot go with a program"), std::string::npos) << result.err;
}

// An agent started by a host's owner runs users' programs only where they allowed them, by resolved path.
TEST_F(UserProgram, AnAgentRunsOnlyTheProgramsItsOwnerAllowed) {
  agent::AgentOptions options;
  options.port = 0;
  options.stateDir = dir_.file("agent-state");
  options.workerPath = binPath("ringmaster-worker");
  {
    agent::AgentServer refusing(options);
    auto result = run({"-np", "1", "-H", "127.0.0.1:1", "--agent-port", std::to_string(refusing.port()), "--",
                       kPython, program(), "--steps", "2"});
    EXPECT_EQ(result.exitCode, 1) << result.err;
    EXPECT_NE(result.err.find("--allow-program"), std::string::npos) << result.err;
  }
  // Allowed by the name it was given (/usr/bin/python3 is a link), the program is started by the file it
  // resolves to too.
  options.allowedPrograms = {kPython};
  agent::AgentServer allowing(options);
  std::string realPython = std::filesystem::canonical(kPython).string();
  auto result = run({"-np", "1", "-H", "127.0.0.1:1", "--agent-port", std::to_string(allowing.port()), "--",
                     realPython, program(), "--steps", "2"});
  EXPECT_EQ(result.exitCode, 0) << result.err;
  // Another program is still refused.
  result = run({"-np", "1", "-H", "127.0.0.1:1", "--agent-port", std::to_string(allowing.port()), "--",
                "/bin/sh", "-c", "true"});
  EXPECT_EQ(result.exitCode, 1) << result.err;
  EXPECT_NE(result.err.find("--allow-program /bin/sh"), std::string::npos) << result.err;
}

}  // namespace
