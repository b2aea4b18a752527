// SPDX-License-Identifier: GPL-3.0-or-later
// Findings that say what to do, with their evidence in words: the advice of each kind quotes the detector's
// own figures, and a slowness that costs the job little stays information.
#include "diagnosis/advice.h"

#include <gtest/gtest.h>

#include <csignal>
#include <set>

#include "common/sentence.h"
#include "diagnosis/comparison.h"
#include "diagnosis/evidence_keys.h"
#include "diagnosis/evidence_text.h"
#include "diagnosis/run_diagnosis.h"
#include "tests/support/diagnosis_synthetic.h"

using namespace ringmaster::diagnosis;
using ringmaster::evidenceLine;
using ringmaster::evidenceText;
using ringmaster::evidenceTexts;
using ringmaster::fillPattern;
using ringmaster::toText;
using ringmaster::test::generate;
using ringmaster::test::rankEnded;
using ringmaster::test::SyntheticRun;

namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// The run through every detector, with a host named for each rank; the findings of `kind` for `rank`.
std::vector<v1::Finding> diagnose(const SyntheticRun& run, v1::Finding::Kind kind, int rank) {
  RunDiagnosis diagnosis(run.ranks);
  for (int r = 0; r < run.ranks; ++r) diagnosis.setHost(r, "node" + std::to_string(r));
  for (const auto& record : generate(run).records) diagnosis.observe(record);
  std::vector<v1::Finding> out;
  for (const auto& f : diagnosis.findings()) {
    if (f.kind() == kind && f.rank() == rank) out.push_back(f);
  }
  return out;
}

// A figure of `f`'s evidence as the evidence shows it.
std::string shown(const v1::Finding& f, const std::string& key) {
  return evidenceText(key, f.evidence().at(key)).value;
}

}  // namespace

TEST(Sentences, FiguresGoWhereTheirNumbersSayInOnePass) {
  EXPECT_EQ(fillPattern("%2 before %1, %1 again", {"a", "b"}), "b before a, a again");
  EXPECT_EQ(fillPattern("%1 and %2", {"%2", "x"}), "%2 and x") << "a figure is never filled in again";
  EXPECT_EQ(fillPattern("100% of %1, %3 unknown", {"it"}), "100% of it, %3 unknown");
}

TEST(EvidenceWords, KeysBecomeLabelsAndValuesCarryTheirUnits) {
  auto limit = evidenceText("limit_mib", 2.411e+04);
  EXPECT_EQ(limit.label, "limit");
  EXPECT_EQ(limit.value, "23.5 GiB");
  EXPECT_TRUE(limit.known);
  EXPECT_EQ(evidenceText("minutes_to_limit", 8.2).label, "time to full");
  EXPECT_EQ(evidenceText("minutes_to_limit", 8.2).value, "8.2 min");
  EXPECT_EQ(evidenceText("mib_per_step", 4).value, "4.00 MiB");
  EXPECT_EQ(evidenceText("throughput_lost_pct", 0.2612).value, "0.261 %");
  EXPECT_EQ(evidenceText("others_wait_ms_per_step", 8.1).value, "8.1 ms");
  EXPECT_EQ(evidenceText("quiet_s", 12.25).value, "12.2 s");
  EXPECT_EQ(evidenceText("busbw_gbps", 2.5).value, "2.5 GB/s");
  EXPECT_EQ(evidenceText("signal", SIGABRT).value, "SIGABRT (6)");
  EXPECT_EQ(evidenceText("steps_slow", 142).value, "142");
  auto unknown = evidenceText("queue_depth_x", 3.25);
  EXPECT_FALSE(unknown.known);
  EXPECT_EQ(unknown.label, "queue depth x");
  EXPECT_EQ(unknown.value, "3.25");

  // A finding's figures: the most telling first, and no raw key anywhere.
  v1::Finding f;
  (*f.mutable_evidence())["mib_per_step"] = 4;
  (*f.mutable_evidence())["limit_mib"] = 2.411e+04;
  (*f.mutable_evidence())["minutes_to_limit"] = 8.2;
  auto texts = evidenceTexts(f);
  ASSERT_EQ(texts.size(), 3u);
  EXPECT_EQ(texts[0].key, "mib_per_step");
  EXPECT_EQ(evidenceLine(f), "growth per step 4.00 MiB, time to full 8.2 min, limit 23.5 GiB");
}

TEST(EvidenceKeys, EveryKeyIsSpelledOnceAndHasItsWords) {
  namespace evidence = ringmaster::diagnosis::evidence;
  std::set<std::string> seen;
  v1::Finding all;
  for (const char* key : evidence::kAll) {
    EXPECT_TRUE(seen.insert(key).second) << key << " is listed twice";
    const auto text = evidenceText(key, 1);
    EXPECT_TRUE(text.known) << key << " has no label";
    (*all.mutable_evidence())[key] = 1;
  }
  // The table's order is kAll's: a finding holding every key shows them in it.
  const auto texts = evidenceTexts(all);
  ASSERT_EQ(texts.size(), std::size(evidence::kAll));
  for (size_t i = 0; i < texts.size(); ++i) EXPECT_EQ(texts[i].key, evidence::kAll[i]);
  // Stored runs and summary files hold these spellings.
  EXPECT_STREQ(evidence::kSlowdownPct, "slowdown_pct");
  EXPECT_STREQ(evidence::kMinutesToLimit, "minutes_to_limit");
  EXPECT_STREQ(evidence::kResumedFromStep, "resumed_from_step");
  EXPECT_STREQ(evidence::kNotStoredFromStep, "not_stored_from_step");
}

TEST(Advice, ASlowDataPathIsSentToTheRanksInputPipelineOnItsHost) {
  SyntheticRun run;
  run.steps = 100;
  run.slowRank = 5;
  run.slowFrom = 20;
  run.slowData = 15;
  auto found = diagnose(run, v1::Finding::KIND_STRAGGLER, 5);
  ASSERT_EQ(found.size(), 1u);
  const v1::Finding& f = found[0];
  ASSERT_EQ(f.cause(), "data");
  EXPECT_NEAR(f.evidence().at("data_excess_ms_per_step"), 15, 2);
  EXPECT_EQ(f.advice(), "Rank 5 spends " + shown(f, "data_excess_ms_per_step") +
                            " more per step than the others in its data path: check its input pipeline "
                            "(loader workers, prefetching), its disk and CPU contention on node5.");
}

TEST(Advice, SlowComputeAndASlowLinkAreToldApart) {
  SyntheticRun compute;
  compute.steps = 100;
  compute.slowRank = 3;
  compute.slowFrom = 20;
  compute.slowCompute = 0.2;
  auto slow = diagnose(compute, v1::Finding::KIND_STRAGGLER, 3);
  ASSERT_EQ(slow.size(), 1u);
  EXPECT_TRUE(contains(slow[0].advice(), "Rank 3 computes " + shown(slow[0], "compute_excess_ms_per_step") +
                                             " longer per step than the others"))
      << slow[0].advice();
  EXPECT_TRUE(contains(slow[0].advice(), "CPUs or GPU of node3")) << slow[0].advice();

  SyntheticRun link;
  link.steps = 100;
  link.slowRank = 2;
  link.slowFrom = 20;
  link.slowCommUs = 6000;
  auto comm = diagnose(link, v1::Finding::KIND_STRAGGLER, 2);
  ASSERT_EQ(comm.size(), 1u);
  ASSERT_EQ(comm[0].cause(), "communication");
  EXPECT_TRUE(contains(comm[0].advice(), "Rank 2's all-reduce takes " +
                                             shown(comm[0], "comm_excess_ms_per_step") + " longer per step"))
      << comm[0].advice();
  EXPECT_TRUE(contains(comm[0].advice(), "network of node2")) << comm[0].advice();
  EXPECT_TRUE(contains(comm[0].advice(), "NCCL_SOCKET_IFNAME")) << comm[0].advice();
}

// Four ranks, one of them computing about a fifth longer for the whole run: the others wait for it at every
// all-reduce, some 15 % of the job's throughput.
TEST(Materiality, AFifteenPercentLossIsAWarning) {
  SyntheticRun run;
  run.ranks = 4;
  run.steps = 150;
  run.slowRank = 1;
  run.slowFrom = 0;
  run.slowCompute = 0.2;
  auto found = diagnose(run, v1::Finding::KIND_STRAGGLER, 1);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NEAR(found[0].evidence().at("throughput_lost_pct"), 15, 3) << found[0].summary();
  EXPECT_EQ(found[0].severity(), v1::Finding::SEVERITY_WARNING) << found[0].summary();
}

// Two ranks, one of whose all-reduce is a little slower than the other's now and then: the other waits a
// millisecond or two a step while it lasts, well under 2 % of the throughput (as little as the 0.26 % of a
// real run that once made a warning). Said, but as information.
TEST(Materiality, ACommunicationLossUnderTwoPercentStaysInformation) {
  SyntheticRun run;
  run.ranks = 8;
  run.steps = 150;
  run.forwardMs = 160;
  run.backwardMs = 320;
  run.slowRank = 0;
  run.slowFrom = 0;
  run.slowCommUs = 6000;  // 1.2 % of a step, and plain to see among quiet ranks
  run.jitter = 0.005;
  run.rankBias = 0;
  auto found = diagnose(run, v1::Finding::KIND_STRAGGLER, 0);
  ASSERT_FALSE(found.empty()) << "the slower all-reduce is meant to be seen";
  for (const auto& f : found) {
    EXPECT_EQ(f.cause(), "communication");
    EXPECT_LT(f.evidence().at("throughput_lost_pct"), kMaterialLossPct);
    EXPECT_EQ(f.severity(), v1::Finding::SEVERITY_INFO) << f.summary();
    EXPECT_TRUE(contains(f.advice(), "Only " + shown(f, "throughput_lost_pct") + " of throughput was lost"))
        << f.advice();
  }
}

// A rank whose link is slow costs at most the step time the job waits on all-reduce.
TEST(Materiality, ASlowLinkMattersOnlyWhereTheJobWaitsOnAllReduce) {
  for (double exposedPct : {0.5, 20.0}) {
    CommunicationMonitor monitor;
    for (int step = 0; step < 50; ++step) {
      for (int r = 0; r < 4; ++r) {
        v1::StepSample s;
        s.set_rank(r);
        s.set_step(uint64_t(step));
        s.set_total_ns(100'000'000);
        s.set_comm_wait_ns(int64_t(exposedPct * 1'000'000));
        monitor.add(s);
        v1::AllreduceOp op;
        op.set_rank(r);
        op.set_step(uint64_t(step));
        op.set_bytes(1 << 24);
        op.set_latency_us(30'000);
        op.set_busbw_gbps(r == 3 ? 2.0 : 5.0);
        monitor.add(op);
      }
    }
    std::vector<v1::Finding> ranked;
    for (const auto& f : monitor.findings()) {
      if (f.rank() >= 0) ranked.push_back(f);
    }
    ASSERT_EQ(ranked.size(), 1u) << exposedPct;
    EXPECT_EQ(ranked[0].rank(), 3);
    if (exposedPct < kMaterialLossPct) {
      EXPECT_EQ(ranked[0].severity(), v1::Finding::SEVERITY_INFO);
      EXPECT_TRUE(contains(ranked[0].advice(), "Only 0.5 % of step time waits on all-reduce"))
          << ranked[0].advice();
    } else {
      EXPECT_EQ(ranked[0].severity(), v1::Finding::SEVERITY_WARNING);
      EXPECT_TRUE(contains(ranked[0].advice(),
                           "Rank 3's all-reduce runs at 2 GB/s against the other ranks' "
                           "5 GB/s"))
          << ranked[0].advice();
    }
  }
}

TEST(Advice, ALeakSaysItsRateAndWhenMemoryRunsOut) {
  SyntheticRun run;
  run.steps = 150;
  run.leakRank = 1;
  run.leakMiBPerStep = 4;
  auto found = diagnose(run, v1::Finding::KIND_MEMORY_LEAK, 1);
  ASSERT_EQ(found.size(), 1u);
  const v1::Finding& f = found[0];
  EXPECT_EQ(shown(f, "limit_mib"), "64.0 GiB");
  EXPECT_EQ(f.advice(), "RSS grows " + shown(f, "mib_per_step") +
                            " per step and reaches the host's 64.0 GiB in "
                            "about " +
                            shown(f, "minutes_to_limit") +
                            ": look for tensors kept across steps (e.g. appending `loss` instead of "
                            "`loss.item()`) and lists or caches that only grow.");
  EXPECT_TRUE(contains(evidenceLine(f), "time to full " + shown(f, "minutes_to_limit"))) << evidenceLine(f);
}

// Exposed communication: the advice follows the measured figures.
TEST(Advice, ExposedCommunicationIsToldToFuseToStartEarlierOrToSendLess) {
  struct Case {
    int opsPerStep;
    int64_t bytes;
    double latencyMs;  // per op; the step waits 40 ms of 100
    const char* expected;
  };
  const Case cases[] = {
      {20, 256 << 10, 2.5,
       "40 % of step time waits on 20 all-reduce ops per step of 256 KiB each: fuse them"},
      {2, 25 << 20, 25,
       "40 % of step time waits on all-reduce and only 20 % of it overlaps with the backward "
       "pass: start it earlier with smaller buckets"},
      {2, 25 << 20, 100,
       "40 % of step time waits on all-reduce at 1 GB/s of bus bandwidth, though 80 % of it "
       "overlaps with compute: the network is the limit"},
  };
  for (const Case& c : cases) {
    CommunicationMonitor monitor;
    for (int step = 0; step < 10; ++step) {
      v1::StepSample s;
      s.set_total_ns(100'000'000);
      s.set_comm_wait_ns(40'000'000);
      monitor.add(s);
      for (int i = 0; i < c.opsPerStep; ++i) {
        v1::AllreduceOp op;
        op.set_bytes(uint64_t(c.bytes));
        op.set_latency_us(c.latencyMs * 1e3);
        op.set_busbw_gbps(1);
        monitor.add(op);
      }
    }
    auto found = monitor.findings();
    ASSERT_EQ(found.size(), 1u);
    EXPECT_TRUE(contains(found[0].advice(), c.expected)) << found[0].advice();
  }
}

TEST(Advice, ACrashSaysWhereToLookForItsSignalOrExitCode) {
  struct Case {
    v1::RankState::State state;
    int code;
    const char* expected;
  };
  const Case cases[] = {
      {v1::RankState::STATE_SIGNALED, SIGKILL, "out-of-memory killer. Check `dmesg` on node1"},
      {v1::RankState::STATE_SIGNALED, SIGSEGV, "SIGSEGV is a crash in native code: rank 1's last log lines"},
      {v1::RankState::STATE_EXITED, 3,
       "Rank 1's log (Logs page, rank 1) holds the error that made it exit with "
       "code 3"},
      {v1::RankState::STATE_FAILED_TO_START, 0, "Check the program's path and permissions on node1"},
  };
  for (const Case& c : cases) {
    RunDiagnosis diagnosis(2);
    diagnosis.observe(rankEnded(1, c.state, c.code, "node1"));
    auto findings = diagnosis.findings();
    ASSERT_EQ(findings.size(), 1u);
    EXPECT_EQ(findings[0].kind(), v1::Finding::KIND_CRASH);
    EXPECT_TRUE(contains(findings[0].advice(), c.expected)) << findings[0].advice();
    EXPECT_FALSE(contains(findings[0].summary(), findings[0].advice())) << "said once, as advice";
  }
}

// A rank that found no Horovod to import is told about --horovod, from the finding's cause alone: a stored
// finding (no stderr left to read) gets the same advice; another exit keeps the exit-code advice.
TEST(Advice, AMissingHorovodNamesRingmastersLayer) {
  RunDiagnosis diagnosis(2);
  v1::Record line;
  line.mutable_log()->set_rank(1);
  line.mutable_log()->set_stream(v1::LogLine::STREAM_STDERR);
  line.mutable_log()->set_text("ModuleNotFoundError: No module named 'horovod'");
  diagnosis.observe(line);
  diagnosis.observe(rankEnded(1, v1::RankState::STATE_EXITED, 1, "node1"));
  auto findings = diagnosis.findings();
  ASSERT_EQ(findings.size(), 1u);
  const std::string& advice = findings[0].advice();
  EXPECT_TRUE(contains(advice, "Rank 1's program imports Horovod, which is not installed where it ran"))
      << advice;
  EXPECT_TRUE(contains(advice, "`ringmaster run --horovod ...`")) << advice;
  EXPECT_TRUE(contains(advice, "or install Horovod on its host")) << advice;
  EXPECT_FALSE(contains(findings[0].summary(), advice)) << "said once, as advice";

  v1::Finding stored;
  stored.set_kind(v1::Finding::KIND_CRASH);
  stored.set_rank(3);
  stored.set_cause("horovod missing");
  (*stored.mutable_evidence())[evidence::kExitCode] = 1;
  EXPECT_TRUE(contains(toText(adviceFor(stored)), "Rank 3's program imports Horovod"))
      << toText(adviceFor(stored));
  stored.set_cause("exit code");
  EXPECT_TRUE(contains(toText(adviceFor(stored)), "holds the error that made it exit with code 1"))
      << toText(adviceFor(stored));
}

TEST(Advice, StallsDivergenceAndScalingSayWhatToDo) {
  RunDiagnosis stalled(4);
  v1::Record record;
  auto* stall = record.mutable_stall();
  stall->set_reporting_rank(0);
  stall->add_missing_ranks(2);
  stall->add_tensors("fc1.weight");
  stall->add_tensors("fc1.bias");
  stall->set_waited_s(7.5);
  stalled.observe(record);
  auto stalls = stalled.findings();
  ASSERT_EQ(stalls.size(), 1u);
  EXPECT_TRUE(contains(stalls[0].advice(), "Rank 2 has not submitted 2 tensors that the others have"))
      << stalls[0].advice();

  RunDiagnosis diverged(2);
  for (uint64_t step = 0; step < 10; ++step) {
    for (int rank = 0; rank < 2; ++rank) {
      v1::Record r;
      r.mutable_step()->set_rank(rank);
      r.mutable_step()->set_step(step);
      r.mutable_step()->set_total_ns(1'000'000);
      r.mutable_step()->set_loss(step < 7 ? 1.0 : std::nan(""));
      diverged.observe(r);
    }
  }
  auto divergence = diverged.findings();
  ASSERT_EQ(divergence.size(), 1u);
  EXPECT_TRUE(contains(divergence[0].advice(), "Lower the learning rate")) << divergence[0].advice();
  EXPECT_TRUE(contains(divergence[0].advice(), "a checkpoint taken before step 7")) << divergence[0].advice();

  ringmaster::RunMetrics two, four;
  two.ranks = 2;
  two.throughput = 1000;
  four.ranks = 4;
  four.throughput = 1200;
  auto scaling = ringmaster::scalingFinding(two, four);
  EXPECT_EQ(scaling.severity(), v1::Finding::SEVERITY_WARNING);
  EXPECT_TRUE(contains(scaling.advice(), "4 ranks reach only 60 % of linear scaling from 2"))
      << scaling.advice();
}

// Every finding a detector makes carries advice, and the advice is what adviceFor makes of the finding, so
// the GUI, which makes it again from the stored figures to translate it, shows the same.
TEST(Advice, EveryFindingOfARunCarriesTheAdviceItsFiguresGive) {
  SyntheticRun run;
  run.steps = 150;
  run.slowRank = 6;
  run.slowFrom = 40;
  run.slowCompute = 0.3;
  run.leakRank = 2;
  run.leakMiBPerStep = 3;
  RunDiagnosis diagnosis(run.ranks);
  for (const auto& record : generate(run).records) diagnosis.observe(record);
  auto findings = diagnosis.findings();
  ASSERT_GE(findings.size(), 2u);
  for (const auto& f : findings) {
    EXPECT_FALSE(f.advice().empty()) << f.summary();
    EXPECT_EQ(f.advice(), ringmaster::toText(adviceFor(f)));
    v1::Finding stored = f;
    stored.clear_advice();
    addAdvice(stored);
    EXPECT_EQ(stored.advice(), f.advice()) << "the stored figures give the same advice";
  }
}

TEST(Advice, ARestartSaysWhatToFixSoThatTheNextAttemptDoesNotNeedOne) {
  v1::Finding killed;
  killed.set_kind(v1::Finding::KIND_RESTART);
  killed.set_rank(1);
  killed.set_host("node1");
  killed.set_cause("signal");
  (*killed.mutable_evidence())["signal"] = SIGKILL;
  EXPECT_TRUE(contains(toText(adviceFor(killed)), "out-of-memory killer. Check `dmesg` on node1"));

  v1::Finding stalled = killed;
  stalled.set_cause("stall");
  stalled.mutable_evidence()->clear();
  EXPECT_TRUE(contains(toText(adviceFor(stalled)), "Rank 1 stalled and every rank was started again"))
      << toText(adviceFor(stalled));

  v1::Finding lost;
  lost.set_kind(v1::Finding::KIND_RESTART);
  lost.set_rank(-1);
  lost.set_host("node2");
  lost.set_cause("lost host");
  EXPECT_TRUE(contains(toText(adviceFor(lost)), "Check that the agent on node2 still runs"));
  lost.clear_host();
  EXPECT_EQ(toText(adviceFor(lost)), "") << "no host to name, nothing specific to say";
}

// Advice names what its reader can do: a program of its own (an imported trace, a user's program) sets its
// buckets with DDP's own argument, not with the flags of Ringmaster's engines, and the command line, which
// has no Logs page, names the command that prints a rank's log.
TEST(Advice, ItFitsTheRunsSourceAndWhereItIsRead) {
  const AdviceReader imported = adviceReaderOf("import:/traces", false, 7, false);
  const AdviceReader program = adviceReaderOf("live", true, 7, false);
  const AdviceReader ours = adviceReaderOf("live", false, 7, false);
  EXPECT_FALSE(imported.ringmasterEngine);
  EXPECT_FALSE(program.ringmasterEngine);
  EXPECT_FALSE(adviceReaderOf("records:/recs", false, 7, false).ringmasterEngine);
  EXPECT_TRUE(ours.ringmasterEngine);
  for (const int opsPerStep : {20, 2}) {  // many small ops to fuse; a few that overlap too little
    CommunicationMonitor monitor;
    for (int step = 0; step < 10; ++step) {
      v1::StepSample s;
      s.set_total_ns(100'000'000);
      s.set_comm_wait_ns(40'000'000);
      monitor.add(s);
      for (int i = 0; i < opsPerStep; ++i) {
        v1::AllreduceOp op;
        op.set_bytes(opsPerStep == 20 ? 256 << 10 : 25 << 20);
        op.set_latency_us(opsPerStep == 20 ? 2.5e3 : 25e3);
        op.set_busbw_gbps(1);
        monitor.add(op);
      }
    }
    auto found = monitor.findings();
    ASSERT_EQ(found.size(), 1u);
    for (const AdviceReader& reader : {imported, program}) {
      const std::string advice = toText(adviceFor(found[0], reader));
      EXPECT_FALSE(contains(advice, "--bucket-cap-mb")) << advice;
      EXPECT_FALSE(contains(advice, "--fusion-threshold-mb")) << advice;
      EXPECT_FALSE(contains(advice, "--cycle-time-ms")) << advice;
      EXPECT_TRUE(contains(advice, "its bucket_cap_mb= argument")) << advice;
      EXPECT_EQ(adviceTextFor(found[0], reader), advice);
    }
    EXPECT_TRUE(contains(toText(adviceFor(found[0], ours)), "--bucket-cap-mb"));
    EXPECT_EQ(toText(adviceFor(found[0], ours)), found[0].advice()) << "the stored advice is the window's";
  }

  RunDiagnosis diagnosis(2);
  diagnosis.observe(rankEnded(1, v1::RankState::STATE_EXITED, 3, "node1"));
  const v1::Finding crash = diagnosis.findings().at(0);
  AdviceReader terminal = imported;
  terminal.terminal = true;
  const std::string printed = adviceTextFor(crash, terminal);
  EXPECT_FALSE(contains(printed, "Logs page")) << printed;
  EXPECT_TRUE(contains(printed,
                       "Rank 1's log (ringmaster show 7 --log 1) holds the error that made it exit "
                       "with code 3"))
      << printed;
  EXPECT_TRUE(contains(adviceTextFor(crash, imported), "Logs page")) << "the window keeps its page names";
  // Advice a finding came with from elsewhere is printed as it came.
  v1::Finding told = crash;
  told.set_advice("Restart the switch.");
  EXPECT_EQ(adviceTextFor(told, terminal), "Restart the switch.");
}

// A straggler still slow at the last step measured did not stop: there were too few steps to tell more, and
// its advice says what its cause calls for rather than "nothing to do unless it lasts".
TEST(Advice, AStragglerSlowToTheLastStepIsNotToldItMayPass) {
  v1::Finding f;
  f.set_kind(v1::Finding::KIND_STRAGGLER);
  f.set_severity(v1::Finding::SEVERITY_INFO);
  f.set_rank(1);
  f.set_since_step(9);
  f.set_cause("data");
  auto& ev = *f.mutable_evidence();
  ev[evidence::kThroughputLostPct] = 30;
  ev[evidence::kLastSlowStep] = 16;
  ev[evidence::kDataExcessMsPerStep] = 20;
  std::string advice = toText(adviceFor(f));
  EXPECT_FALSE(contains(advice, "unless it lasts")) << advice;
  EXPECT_TRUE(contains(advice, "Rank 1 was slow from step 9 to step 16, the last one measured")) << advice;
  EXPECT_TRUE(contains(advice, "check its input pipeline")) << advice;
  ev[evidence::kThroughputLostPct] = 1;
  advice = toText(adviceFor(f));
  EXPECT_FALSE(contains(advice, "unless it lasts")) << advice;
  EXPECT_TRUE(contains(advice, "nothing to do unless it grows")) << advice;
  // Slow for many steps and still information: the slowdown was too small, not the steps too few.
  ev[evidence::kThroughputLostPct] = 3;
  ev[evidence::kSlowdownPct] = 4;
  ev[evidence::kStepsSlow] = 73;
  ev[evidence::kLastSlowStep] = 99;
  f.set_since_step(27);
  advice = toText(adviceFor(f));
  EXPECT_FALSE(contains(advice, "too few steps")) << advice;
  EXPECT_TRUE(contains(advice, "Rank 1 has been slower than the others from step 27 to step 99")) << advice;
  EXPECT_TRUE(contains(advice, "too little to act on unless it grows")) << advice;
  // One that recovered before the end was slow only for a while.
  ev[evidence::kThroughputLostPct] = 30;
  ev[evidence::kRecoveredAtStep] = 14;
  EXPECT_TRUE(contains(toText(adviceFor(f)), "nothing to do unless it lasts")) << toText(adviceFor(f));
}
