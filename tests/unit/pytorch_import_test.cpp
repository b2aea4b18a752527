// SPDX-License-Identifier: GPL-3.0-or-later
// Per-rank PyTorch profiler traces imported as one run: the legacy traces Debian's python3-torch writes (made
// by tests/fixtures/make_pytorch_traces.py: 2-rank Gloo DDP, rank 1 slow in its data path) and Kineto traces
// written by hand in the form current PyTorch writes (tests/fixtures/kineto: 2 ranks, GPU kernels, NCCL
// all-reduce).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "diagnosis/comparison.h"
#include "diagnosis/evidence_keys.h"
#include "diagnosis/run_diagnosis.h"
#include "tests/support/files.h"
#include "tests/support/temp_dir.h"
#include "traces/horovod_timeline_reader.h"
#include "traces/pytorch_trace.h"

namespace v1 = ringmaster::v1;
using ringmaster::importTraces;
using ringmaster::InputError;
using ringmaster::RunStore;

namespace {

std::string fixture(const std::string& name) {
  return std::string(RM_SOURCE_DIR) + "/tests/fixtures/" + name;
}

class PyTorchImport : public ::testing::Test {
 protected:
  std::string write(const std::string& name, const std::string& text) {
    const std::string path = dir_.file(name);
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    ringmaster::test::writeFile(path, text);
    return path;
  }
  std::vector<v1::TimelineEvent> events(int64_t run) {
    std::vector<v1::TimelineEvent> out;
    store_.forEachTimelineEvent(run, [&](const v1::TimelineEvent& e) { out.push_back(e); });
    return out;
  }
  // The message importing `inputs` is refused with; "" when it is imported.
  std::string refusal(const std::vector<std::string>& inputs) {
    try {
      importTraces(store_, inputs);
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  }

  ringmaster::test::TempDir dir_{"pytorch-import"};
  RunStore store_{dir_.file("runs.sqlite")};
};

// A legacy-form trace of `steps` steps whose every op is on thread 1.
std::string legacyTrace(int steps) {
  std::string text = "[";
  for (int n = 1; n <= steps; ++n) {
    const int t = n * 1000;
    text +=
        (n > 1 ? ", " : "") + std::string(R"({"name": "ProfilerStep#)") + std::to_string(n) +
        R"(", "ph": "X", "ts": )" + std::to_string(t) +
        R"(, "dur": 900, "tid": 1, "pid": "CPU functions", "args": {}}, {"name": "Optimizer.step#SGD.step", )"
        R"("ph": "X", "ts": )" +
        std::to_string(t + 800) + R"(, "dur": 50, "tid": 1, "pid": "CPU functions", "args": {}})";
  }
  return text + "]";
}

double mean(const std::vector<v1::StepSample>& steps, int64_t (v1::StepSample::*field)() const) {
  double sum = 0;
  for (const auto& s : steps) sum += double((s.*field)());
  return steps.empty() ? 0 : sum / double(steps.size());
}

}  // namespace

TEST(PyTorchOps, PhasesComeFromOpNames) {
  using ringmaster::OpPhase;
  using ringmaster::opPhase;
  EXPECT_EQ(opPhase("ProfilerStep#12"), OpPhase::Step);
  EXPECT_EQ(opPhase("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__"), OpPhase::Data);
  EXPECT_EQ(opPhase("DistributedDataParallel.forward"), OpPhase::Forward);
  EXPECT_EQ(opPhase("nn.Module: Linear_0"), OpPhase::Forward);
  EXPECT_EQ(opPhase("autograd::engine::evaluate_function: AddmmBackward0"), OpPhase::Backward);
  EXPECT_EQ(opPhase("MseLossBackward0"), OpPhase::Backward);
  EXPECT_EQ(opPhase("Optimizer.step#SGD.step"), OpPhase::Optimizer);
  EXPECT_EQ(opPhase("Optimizer.zero_grad#SGD.zero_grad"), OpPhase::Optimizer);
  for (const char* comm : {"gloo:all_reduce", "nccl:all_reduce", "c10d::allreduce_", "record_param_comms"}) {
    EXPECT_EQ(opPhase(comm), OpPhase::Communication) << comm;
  }
  EXPECT_EQ(opPhase("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)", true),
            OpPhase::Communication);
  EXPECT_EQ(opPhase("void gemm_kernel<float>()", true), OpPhase::Other);
  EXPECT_EQ(opPhase("aten::addmm"), OpPhase::Other);

  EXPECT_EQ(
      ringmaster::commBytes({{"dtype", "BFloat16"}, {"In msg nelems", "1024"}, {"Out msg nelems", "4096"}}),
      8192u);
  EXPECT_EQ(ringmaster::commBytes({{"dtype", "Float"}, {"In msg nelems", "10"}}), 40u);
  EXPECT_EQ(ringmaster::commBytes({{"In msg nelems", "10"}}), 0u);
  EXPECT_EQ(ringmaster::commBytes({{"dtype", "Float"}, {"In msg nelems", "ten"}}), 0u);
}

TEST_F(PyTorchImport, LegacyDdpTracesBecomeOneRunWhoseSlowRankIsTheStraggler) {
  auto result = importTraces(store_, {fixture("pytorch_legacy")});
  EXPECT_EQ(result.summary.format, ringmaster::TraceFormat::PyTorchProfiler);
  EXPECT_EQ(result.summary.ranks, 2);
  EXPECT_TRUE(result.summary.complete);
  EXPECT_NE(result.rankRule.find("file's name"), std::string::npos) << result.rankRule;
  EXPECT_NE(result.clock.find("ProfilerStep#"), std::string::npos) << result.clock;
  ASSERT_EQ(result.files.size(), 2u);
  EXPECT_EQ(std::filesystem::path(result.files[0].path).filename(), "rank0.json");
  EXPECT_EQ(result.files[0].rank, 0);
  EXPECT_EQ(std::filesystem::path(result.files[1].path).filename(), "rank1.json.gz");  // read through zlib
  EXPECT_EQ(result.files[1].rank, 1);
  auto run = store_.run(result.runId);
  ASSERT_TRUE(run);
  EXPECT_EQ(run->worldSize, 2);
  EXPECT_EQ(run->name, "pytorch_legacy");

  auto series = store_.rankSeries(result.runId);
  ASSERT_EQ(series.size(), 2u);
  ASSERT_GE(series[0].steps.size(), 14u);  // enough for the straggler detector's warm-up and window
  ASSERT_EQ(series[0].steps.size(), series[1].steps.size());
  for (size_t i = 0; i < series[0].steps.size(); ++i) {
    const auto& fast = series[0].steps[i];
    const auto& slow = series[1].steps[i];
    EXPECT_EQ(fast.step(), slow.step());
    EXPECT_GT(fast.forward_ns(), 0);
    EXPECT_GT(fast.backward_ns(), 0);
    EXPECT_GT(fast.optimizer_ns(), 0);
    EXPECT_GE(fast.total_ns(), fast.data_ns() + fast.forward_ns() + fast.backward_ns() + fast.optimizer_ns());
    EXPECT_GT(slow.data_ns(), 15'000'000) << "rank 1 sleeps 20 ms in its data path, step " << slow.step();
  }
  // Rank 0 waits in Gloo's all-reduce (on Gloo's threads) for rank 1 with nothing to compute: exposed.
  EXPECT_LT(mean(series[0].steps, &v1::StepSample::data_ns), 5e6);
  EXPECT_GT(mean(series[0].steps, &v1::StepSample::comm_wait_ns), 10e6);
  EXPECT_LT(mean(series[1].steps, &v1::StepSample::comm_wait_ns),
            mean(series[0].steps, &v1::StepSample::comm_wait_ns) / 2);
  for (const auto& s : series) {
    ASSERT_EQ(s.allreduce.size(), s.steps.size());  // one bucket per step: the model is tiny
    for (const auto& op : s.allreduce) {
      EXPECT_EQ(op.rank(), s.rank);
      EXPECT_GT(op.latency_us(), 0);
      EXPECT_EQ(op.bytes(), 0u);  // the legacy profiler keeps no args
    }
  }
  // No shared clock: both ranks' first common step starts at the same time.
  EXPECT_EQ(series[0].steps.front().start_ns(), series[1].steps.front().start_ns());

  auto findings = ringmaster::diagnosis::storedFindings(store_, result.runId);
  auto straggler = std::find_if(findings.begin(), findings.end(),
                                [](const v1::Finding& f) { return f.kind() == v1::Finding::KIND_STRAGGLER; });
  ASSERT_NE(straggler, findings.end());
  EXPECT_EQ(straggler->rank(), 1) << straggler->summary();
  EXPECT_EQ(straggler->cause(), "data") << straggler->summary();

  // Timeline rows per nesting depth: the step, DDP's forward inside it, aten::linear inside that.
  std::map<std::string, std::set<std::string>> lanesOf;
  for (const auto& e : events(result.runId)) lanesOf[e.name()].insert(e.lane());
  EXPECT_EQ(lanesOf["ProfilerStep#5"], (std::set<std::string>{"thread 1 \u00b7 depth 0"}));
  EXPECT_EQ(lanesOf["DistributedDataParallel.forward"], (std::set<std::string>{"thread 1 \u00b7 depth 1"}));
  EXPECT_EQ(lanesOf["aten::linear"], (std::set<std::string>{"thread 1 \u00b7 depth 2"}));
  ASSERT_FALSE(lanesOf["gloo:all_reduce"].empty());
  for (const auto& lane : lanesOf["gloo:all_reduce"])
    EXPECT_NE(lane.rfind(" \u00b7 depth 0"), std::string::npos);
}

TEST_F(PyTorchImport, KinetoTracesTakeTheirRanksAndClockFromTheTrace) {
  auto result = importTraces(store_, {fixture("kineto")}, "h100");
  EXPECT_NE(result.rankRule.find("distributedInfo.rank"), std::string::npos) << result.rankRule;
  ASSERT_EQ(result.files.size(), 2u);
  // node-a.json.gz sorts first but is rank 1 by its trace.
  EXPECT_EQ(std::filesystem::path(result.files[0].path).filename(), "node-a.json.gz");
  EXPECT_EQ(result.files[0].rank, 1);
  EXPECT_EQ(result.files[1].rank, 0);
  auto run = store_.run(result.runId);
  ASSERT_TRUE(run);
  EXPECT_EQ(run->name, "h100");
  // baseTimeNanoseconds: the run starts at rank 0's first event, 100 us after its base.
  EXPECT_EQ(run->startedUnixNs, 1'700'000'000'000'100'000);

  auto series = store_.rankSeries(result.runId);
  ASSERT_EQ(series.size(), 2u);
  for (const auto& s : series) {
    ASSERT_EQ(s.steps.size(), 3u) << "GPU-side copies of ProfilerStep#N are no steps";
    for (size_t i = 0; i < 3; ++i) {
      const auto& step = s.steps[i];
      EXPECT_EQ(step.step(), i + 1);
      EXPECT_EQ(step.total_ns(), 1'000'000);
      // The loader's 90 us, and the 70 us of the step in which neither the host nor the GPU ran anything
      // (100..105, 195..200, 400..420, 980..1000 and 1080..1100 us into the trace): the rank's own time.
      EXPECT_EQ(step.data_ns(), 160'000);
      EXPECT_EQ(step.forward_ns(), 200'000);
      EXPECT_EQ(step.backward_ns(), 180'000);
      EXPECT_EQ(step.optimizer_ns(), 80'000);
      // The NCCL kernel runs 520..880 us into the step; compute kernels cover it until the backward kernel
      // ends (600 us on rank 0, 560 us on rank 1).
      EXPECT_EQ(step.comm_wait_ns(), s.rank == 0 ? 280'000 : 320'000);
    }
    ASSERT_EQ(s.allreduce.size(), 3u);
    for (const auto& op : s.allreduce) {
      EXPECT_EQ(op.bytes(), 1'048'576u);  // 262144 Float elements, from the call that launched the kernel
      EXPECT_NEAR(op.latency_us(), 360, 1e-6);
      EXPECT_NEAR(op.algbw_gbps(), 1'048'576 / 360e-6 / 1e9, 1e-9);
      EXPECT_NEAR(op.busbw_gbps(), op.algbw_gbps(), 1e-9);  // 2(n-1)/n = 1 for two ranks
    }
  }
  // One shared clock: rank 1's base is 0.5 ms later.
  EXPECT_EQ(series[0].steps[0].start_ns(), 0);
  EXPECT_EQ(series[1].steps[0].start_ns(), 500'000);

  std::map<std::string, std::set<std::string>> lanesOf;
  for (const auto& e : events(result.runId)) {
    if (e.rank() == 0) lanesOf[e.name()].insert(e.lane());
  }
  EXPECT_EQ(lanesOf["cudaLaunchKernel"], (std::set<std::string>{"thread 4100 (python) \u00b7 depth 5"}));
  EXPECT_EQ(lanesOf["ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)"],
            (std::set<std::string>{"stream 20 \u00b7 depth 0"}));
}

TEST_F(PyTorchImport, CutCompressedAndMarkedFilesAreRead) {
  auto cut = importTraces(store_, {fixture("kineto/node-b.json"), fixture("kineto_cut.json")});
  EXPECT_FALSE(cut.summary.complete);
  ASSERT_EQ(cut.files.size(), 2u);
  EXPECT_TRUE(cut.files[0].summary.complete);
  EXPECT_FALSE(cut.files[1].summary.complete);
  EXPECT_EQ(cut.files[1].rank, 1);
  EXPECT_EQ(cut.files[0].steps, 3u);
  EXPECT_GE(cut.files[1].steps, 2u);
  EXPECT_LE(cut.files[1].steps, 3u);

  // A byte order mark before the JSON.
  const std::string text = ringmaster::test::readFile(fixture("kineto/node-b.json"));
  auto marked = importTraces(store_, {write("bom/node-b.json", "\xEF\xBB\xBF" + text)});
  EXPECT_EQ(marked.steps, 3u);
  EXPECT_EQ(store_.run(marked.runId)->worldSize, 1);
}

TEST_F(PyTorchImport, EmptyMalformedOrMissingInputIsRefusedAndNothingKept) {
  const std::string bare = write("bare.json", "[]");
  std::string message = refusal({bare});
  EXPECT_NE(message.find(bare), std::string::npos) << message;
  EXPECT_NE(message.find("no events"), std::string::npos) << message;
  message = refusal({write("empty.json", R"({"traceEvents": [], "distributedInfo": {"rank": 0}})")});
  EXPECT_NE(message.find("no events"), std::string::npos) << message;
  message =
      refusal({write("metadata.json", R"([{"ph": "M", "name": "process_name", "pid": 1, "args": {}}])")});
  EXPECT_NE(message.find("no events"), std::string::npos) << message;

  write("notes/readme.txt", "not a trace");
  message = refusal({dir_.file("notes")});
  EXPECT_NE(message.find("holds no trace files"), std::string::npos) << message;
  message = refusal({dir_.file("nowhere")});
  EXPECT_NE(message.find("nowhere: no such file or folder"), std::string::npos) << message;

  // One bad file of two: nothing of either is kept, and the bad one is named.
  const std::string good = write("two/rank0.json", legacyTrace(3));
  const std::string bad = write("two/rank1.json", legacyTrace(3).substr(0, 40) + "}}");
  message = refusal({dir_.file("two")});
  EXPECT_NE(message.find(bad), std::string::npos) << message;
  EXPECT_NE(message.find("nothing was imported"), std::string::npos) << message;
  EXPECT_EQ(message.find(good), std::string::npos) << message;

  // A Horovod timeline holds every rank: it is no one rank of several.
  const std::string horovod = write(
      "horovod.json",
      R"([{"name": "process_name", "ph": "M", "pid": 0, "args": {"start_time_since_epoch_in_micros": 1}},)"
      R"({"ph": "B", "name": "NEGOTIATE_ALLREDUCE", "ts": 1, "pid": 1}, {"ph": "E", "ts": 2, "pid": 1}])");
  message = refusal({good, horovod});
  EXPECT_NE(message.find("Horovod timeline"), std::string::npos) << message;

  // Damaged compressed data.
  message = refusal({write("damaged.json.gz", std::string("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03", 10) +
                                                  std::string(64, '\x7f'))});
  EXPECT_NE(message.find("damaged.json.gz"), std::string::npos) << message;
  EXPECT_TRUE(store_.runs().empty());
}

TEST_F(PyTorchImport, RanksComeFromTheTraceElseTheFileNameElseTheOrder) {
  struct Case {
    std::vector<std::pair<std::string, std::string>> files;  // name, distributedInfo rank ("" for none)
    std::vector<int> ranks;                                  // of the files in name order
    std::string rule;
  };
  const std::vector<Case> cases = {
      {{{"a.json", "1"}, {"b.json", "0"}}, {1, 0}, "distributedInfo.rank"},
      {{{"worker3.json", ""}, {"worker1.json", ""}}, {1, 3}, "file's name"},
      {{{"trace-2.json", ""}, {"trace-0.json", ""}}, {0, 2}, "file's name"},
      {{{"host_rank7.json", "0"}, {"host_rank5.json", "0"}}, {5, 7}, "file's name"},  // the traces disagree
      {{{"b.json", ""}, {"a.json", ""}}, {0, 1}, "file order"},
      {{{"x-1.json", ""}, {"y-1.json", ""}}, {0, 1}, "file order"},  // the names do not tell them apart
  };
  int n = 0;
  for (const auto& c : cases) {
    const std::string folder = "case" + std::to_string(n++);
    for (const auto& [name, rank] : c.files) {
      std::string text = legacyTrace(3);
      if (!rank.empty())
        text = R"({"distributedInfo": {"rank": )" + rank + R"(}, "traceEvents": )" + text + "}";
      write(folder + "/" + name, text);
    }
    auto result = importTraces(store_, {dir_.file(folder)});
    std::vector<int> ranks;
    for (const auto& f : result.files) ranks.push_back(f.rank);
    EXPECT_EQ(ranks, c.ranks) << folder;
    EXPECT_NE(result.rankRule.find(c.rule), std::string::npos) << folder << ": " << result.rankRule;
    const int worldSize = *std::max_element(c.ranks.begin(), c.ranks.end()) + 1;
    EXPECT_EQ(store_.run(result.runId)->worldSize, std::max(worldSize, 2)) << folder;
    EXPECT_EQ(result.steps, 6u) << folder;
  }
}

// A rank slow outside any op (tests/fixtures/make_sleeping_rank_traces.py: rank 1 sleeps 40 ms at the start
// of every ProfilerStep#N, before its first op): the step's time no op covers is the rank's own, and the
// others' longer wait in the all-reduce is what it costs them.
TEST_F(PyTorchImport, TimeOutsideAnyOpIsTheRanksOwnAndMakesItTheStraggler) {
  auto result = importTraces(store_, {fixture("pytorch_sleeping_rank")});
  auto series = store_.rankSeries(result.runId);
  ASSERT_EQ(series.size(), 2u);
  ASSERT_GE(series[1].steps.size(), 20u);
  for (const auto& step : series[1].steps) {
    EXPECT_GT(step.data_ns(), 35'000'000) << "rank 1 sleeps 40 ms outside any op, step " << step.step();
    EXPECT_LE(step.data_ns() + step.forward_ns() + step.backward_ns() + step.optimizer_ns(), step.total_ns());
  }
  EXPECT_LT(mean(series[0].steps, &v1::StepSample::data_ns), 10e6);
  EXPECT_GT(mean(series[0].steps, &v1::StepSample::comm_wait_ns),
            mean(series[1].steps, &v1::StepSample::comm_wait_ns) + 30e6)
      << "rank 0 waits for rank 1 in the all-reduce";

  auto findings = ringmaster::diagnosis::storedFindings(store_, result.runId);
  auto straggler = std::find_if(findings.begin(), findings.end(),
                                [](const v1::Finding& f) { return f.kind() == v1::Finding::KIND_STRAGGLER; });
  ASSERT_NE(straggler, findings.end());
  EXPECT_EQ(straggler->rank(), 1) << straggler->summary();
  EXPECT_EQ(straggler->cause(), "data") << straggler->summary();
  EXPECT_GT(straggler->severity(), v1::Finding::SEVERITY_INFO) << straggler->summary();
  EXPECT_GT(straggler->evidence().at(ringmaster::diagnosis::evidence::kOthersCommExcessMsPerStep), 30)
      << "the others' longer exposed wait is the evidence";
  for (const auto& f : findings) EXPECT_NE(f.rank(), 0) << f.summary();
}

// Kineto traces of 2 ranks of a 128-rank NCCL job (tests/fixtures/make_kineto_nccl_traces.py): each
// collective counts once though the host's call, record_param_comms, the nccl: annotations and the kernel all
// show it; bus bandwidth is measured against the job's 128 ranks, which the run records beside the 2 it
// holds.
TEST_F(PyTorchImport, NcclTracesCountEachCollectiveOnceAgainstTheJobsWorldSize) {
  auto result = importTraces(store_, {fixture("kineto_nccl")});
  EXPECT_EQ(result.worldSize, 128);
  ASSERT_EQ(result.files.size(), 2u);
  for (const auto& file : result.files) {
    EXPECT_EQ(file.steps, 4u);
    EXPECT_EQ(file.allreduceOps, 8u) << file.path << ": two buckets a step";
    EXPECT_EQ(file.otherCollectives, 4u)
        << file.path << ": an all-gather a step; the broadcast is before them";
  }
  auto run = store_.run(result.runId);
  ASSERT_TRUE(run);
  EXPECT_EQ(run->worldSize, 2) << "the ranks the run holds";
  EXPECT_EQ(run->environment.at("world size"), "128");
  EXPECT_EQ(run->backend, "nccl");

  const auto series = store_.rankSeries(result.runId);
  ASSERT_EQ(series.size(), 2u);
  for (const auto& s : series) {
    ASSERT_EQ(s.allreduce.size(), 8u);
    for (const auto& op : s.allreduce) {
      const bool big = op.bucket() == 0;
      EXPECT_EQ(op.bytes(), big ? 4u << 20 : 1u << 20);
      const double us = big ? (s.rank == 0 ? 2000 : 2500) : 800;
      EXPECT_NEAR(op.latency_us(), us, 1e-6) << "timed by its kernel";
      EXPECT_NEAR(op.algbw_gbps(), double(op.bytes()) / (us * 1e-6) / 1e9, 1e-9);
      EXPECT_NEAR(op.busbw_gbps(), op.algbw_gbps() * 2 * 127 / 128, 1e-9);
    }
  }
  const auto metrics = ringmaster::loadMetrics(store_, result.runId);
  EXPECT_GT(metrics.busbwGbps, 2);
  EXPECT_GT(metrics.allreduceLatencyUs, 0);
  EXPECT_FALSE(metrics.finalLoss) << "a profiler trace reports no loss";
}

// An NCCL trace without its kernels (a profile of the host alone) still counts its collectives, with their
// sizes; their host spans only queue them, so latency and bandwidth are not measured, never 0.
TEST_F(PyTorchImport, NcclCallsWithoutKernelsAreCountedButNotTimed) {
  auto trace = [](int rank) {
    std::string events;
    for (int n = 1; n <= 3; ++n) {
      const int t = n * 1000;
      auto event = [&](const std::string& cat, const std::string& name, int ts, int dur,
                       const std::string& args) {
        return R"(, {"ph": "X", "cat": ")" + cat + R"(", "name": ")" + name +
               R"(", "pid": 1, "tid": 1, "ts": )" + std::to_string(ts) + R"(, "dur": )" +
               std::to_string(dur) + R"(, "args": {)" + args + "}}";
      };
      events += (n > 1 ? std::string(", ") : std::string()) + R"({"ph": "X", "cat": "user_annotation", )" +
                R"("name": "ProfilerStep#)" + std::to_string(n) + R"(", "pid": 1, "tid": 1, "ts": )" +
                std::to_string(t) + R"(, "dur": 900, "args": {}})";
      events += event("cpu_op", "c10d::allreduce_", t + 500, 60, "");
      events += event("cpu_op", "record_param_comms", t + 505, 50,
                      R"("Collective name": "allreduce", "In msg nelems": 1024, "Out msg nelems": 1024, )"
                      R"("dtype": "Float", "Group size": 8)");
      events += event("user_annotation", "nccl:all_reduce", t + 510, 40, "");
      events += event("cpu_op", "aten::mm", t + 100, 300, "");
    }
    return R"({"distributedInfo": {"backend": "nccl", "rank": )" + std::to_string(rank) +
           R"(, "world_size": 8}, "traceEvents": [)" + events + "]}";
  };
  auto result = importTraces(store_, {write("host/a.json", trace(0)), write("host/b.json", trace(1))});
  EXPECT_EQ(result.worldSize, 8);
  EXPECT_EQ(result.allreduceOps, 6u);
  for (const auto& s : store_.rankSeries(result.runId)) {
    ASSERT_EQ(s.allreduce.size(), 3u);
    for (const auto& op : s.allreduce) {
      EXPECT_EQ(op.bytes(), 4096u);
      EXPECT_EQ(op.latency_us(), 0);
      EXPECT_EQ(op.busbw_gbps(), 0);
    }
  }
  const auto metrics = ringmaster::loadMetrics(store_, result.runId);
  EXPECT_EQ(metrics.allreduceOps, 6u);
  EXPECT_EQ(metrics.busbwGbps, 0) << "not measured";
  EXPECT_EQ(metrics.allreduceLatencyUs, 0) << "not measured";
  // Against a run that measured them, the comparison says so instead of a change to 0.
  ringmaster::RunMetrics measured = metrics;
  measured.busbwGbps = 10;
  measured.allreduceLatencyUs = 500;
  const auto comparison = ringmaster::compareRuns(measured, metrics);
  for (const auto& d : comparison.deltas) {
    if (d.metric == "all-reduce busbw" || d.metric == "all-reduce latency p50") {
      EXPECT_FALSE(ringmaster::isEmpty(d.missing)) << d.metric;
      EXPECT_EQ(d.changeText(), "not measured") << d.metric;
    }
  }
}
