// SPDX-License-Identifier: GPL-3.0-or-later
// Findings' summaries and causes in any language: every sentence a detector writes is made of a pattern of
// the one table (diagnosis/summary_text), found again from the stored English, so the GUI can show
// its translation filled with the same figures, parts in their own translation; English stays as it was.
#include "diagnosis/summary_text.h"

#include <gtest/gtest.h>

#include <cmath>

#include "common/phrase.h"
#include "diagnosis/comparison.h"
#include "diagnosis/run_diagnosis.h"
#include "tests/support/diagnosis_synthetic.h"

using namespace ringmaster::diagnosis;
using ringmaster::PatternEntry;
using ringmaster::translateText;
using ringmaster::test::generate;
using ringmaster::test::SyntheticRun;

namespace {

// A "translation" that shows which pattern was used: [pattern].
std::string marked(const char*, const char* pattern) {
  return std::string("[") + pattern + "]";
}

std::string english(const char*, const char* pattern) {
  return pattern;
}

v1::Record rankEnded(int rank, v1::RankState::State state, int code, const std::string& message = {}) {
  v1::Record r;
  auto* s = r.mutable_rank_state();
  s->set_rank(rank);
  s->set_state(state);
  if (state == v1::RankState::STATE_SIGNALED) s->set_signal(code);
  if (state == v1::RankState::STATE_EXITED) s->set_exit_code(code);
  s->set_message(message);
  s->set_host("node" + std::to_string(rank));
  return r;
}

v1::Record step(int rank, uint64_t number, double loss) {
  v1::Record r;
  r.mutable_step()->set_rank(rank);
  r.mutable_step()->set_step(number);
  r.mutable_step()->set_total_ns(1'000'000);
  r.mutable_step()->set_loss(loss);
  return r;
}

// Every summary and cause of `findings` is made by the table: in English it comes back as it was, and a
// translation replaces every pattern, parts included (no English word of the table is left outside
// brackets).
void expectTranslatable(const std::vector<v1::Finding>& findings) {
  ASSERT_FALSE(findings.empty());
  for (const v1::Finding& f : findings) {
    for (const std::string& text : {f.summary(), f.cause()}) {
      const auto same = translateText(text, findingPatterns(), kFindingContext, english);
      ASSERT_TRUE(same.has_value()) << "no pattern makes \"" << text << "\"";
      EXPECT_EQ(*same, text);
      const std::string shown = translateFinding(text, marked);
      EXPECT_EQ(shown.front(), '[') << shown;
      EXPECT_EQ(shown.back(), ']') << shown;
    }
  }
}

}  // namespace

TEST(TextPatterns, AFigureMarkedAsAPartIsASentenceOfTheTableInItsTurn) {
  const std::vector<PatternEntry> table = {
      {"%1 is late by %2", 1u},           {"rank %1 (%2)"}, {"rank %1"},
      {"%1 waits for %2 and %3", 0b110u}, {"the data"},
  };
  EXPECT_EQ(translateText("rank 2 (node2) is late by 5 ms", table, "c", marked),
            "[[rank 2 (node2)] is late by 5 ms]");
  EXPECT_EQ(translateText("rank 2 is late by 5 ms", table, "c", marked), "[[rank 2] is late by 5 ms]");
  // The first " and " would leave "rank 3 and the data" as a part no pattern makes: the matcher goes on.
  EXPECT_EQ(translateText("x and y waits for rank 3 and the data", table, "c", marked),
            "[x and y waits for [rank 3] and [the data]]");
  EXPECT_FALSE(translateText("something else", table, "c", marked).has_value());
  EXPECT_FALSE(translateText("the dat", table, "c", marked).has_value());
  EXPECT_EQ(translateFinding("written by another program", marked), "written by another program");
}

TEST(TextPatterns, TheMostSpecificPatternWins) {
  const std::vector<PatternEntry> table = {{"%1: %2"}, {"%1: %2 per step"}};
  const auto which = [](const char*, const char* pattern) {
    return std::string(pattern) == "%1: %2" ? std::string("A(%1, %2)") : std::string("B(%1, %2)");
  };
  EXPECT_EQ(translateText("rss: 5 MiB per step", table, "c", which), "B(rss, 5 MiB)");
  EXPECT_EQ(translateText("rss: 5 MiB", table, "c", which), "A(rss, 5 MiB)");
  const std::vector<PatternEntry> repeated = {{"rank %1 (Logs page, rank %1)"}};
  EXPECT_TRUE(translateText("rank 2 (Logs page, rank 2)", repeated, "c", english).has_value());
  EXPECT_FALSE(translateText("rank 2 (Logs page, rank 3)", repeated, "c", english).has_value());
}

TEST(FindingText, EnglishSummariesReadAsBefore) {
  RunDiagnosis crashed(3);
  v1::Record line;
  line.mutable_log()->set_rank(1);
  line.mutable_log()->set_stream(v1::LogLine::STREAM_STDERR);
  line.mutable_log()->set_text("RuntimeError: boom");
  crashed.observe(step(1, 29, 1.0));
  crashed.observe(line);
  crashed.observe(rankEnded(1, v1::RankState::STATE_SIGNALED, 6));
  crashed.observe(rankEnded(2, v1::RankState::STATE_EXITED, 1));
  const auto findings = crashed.findings();
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].summary(),
            "rank 1 (node1) was killed by SIGABRT after step 29, which ended the run. Its last error line: "
            "\"RuntimeError: boom\". Rank 2 then failed as well.");
}

TEST(FindingText, EverySummaryAndCauseADetectorWritesIsInTheTable) {
  // Stragglers (compute, data, communication), a leak, slow links.
  for (int kind = 0; kind < 3; ++kind) {
    SyntheticRun run;
    run.steps = 150;
    run.slowRank = 3;
    run.slowFrom = 30;
    if (kind == 0) run.slowCompute = 0.3;
    if (kind == 1) run.slowData = 20;
    if (kind == 2) run.slowCommUs = 30000;
    run.leakRank = 2;
    run.leakMiBPerStep = 3;
    RunDiagnosis diagnosis(run.ranks);
    if (kind == 1)
      for (int r = 0; r < run.ranks; ++r) diagnosis.setHost(r, "node" + std::to_string(r));
    for (const auto& record : generate(run).records) diagnosis.observe(record);
    SCOPED_TRACE(kind);
    expectTranslatable(diagnosis.findings());
  }
  // Crashes: killed, exited, could not start; with and without a host, a last line and other ranks.
  for (auto state :
       {v1::RankState::STATE_SIGNALED, v1::RankState::STATE_EXITED, v1::RankState::STATE_FAILED_TO_START}) {
    RunDiagnosis one(2);
    one.observe(rankEnded(1, state, 9, "no such file"));
    expectTranslatable(one.findings());
    RunDiagnosis many(4);
    many.observe(step(1, 3, 1.0));
    many.observe(rankEnded(1, state, 9));
    many.observe(rankEnded(2, state, 9));
    many.observe(rankEnded(3, state, 9));
    expectTranslatable(many.findings());
  }
  // Divergence on every rank, on one rank, from the first step.
  RunDiagnosis diverged(2), oneRank(3), fromStart(2);
  for (uint64_t s = 0; s < 10; ++s) {
    for (int rank = 0; rank < 2; ++rank) {
      diverged.observe(step(rank, s, s < 7 ? 1.0 : std::nan("")));
      fromStart.observe(step(rank, s, INFINITY));
    }
    oneRank.observe(step(1, s, s < 4 ? 1.0 : INFINITY));
  }
  expectTranslatable(diverged.findings());
  expectTranslatable(oneRank.findings());
  expectTranslatable(fromStart.findings());
  // A Horovod stall report with more tensors than are named.
  RunDiagnosis stalled(4);
  v1::Record record;
  auto* stall = record.mutable_stall();
  stall->set_reporting_rank(0);
  stall->add_missing_ranks(2);
  for (const char* t : {"fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias", "fc3.weight"})
    stall->add_tensors(t);
  stall->set_waited_s(7.5);
  stalled.observe(record);
  expectTranslatable(stalled.findings());
  // Scaling.
  ringmaster::RunMetrics two, four;
  two.ranks = 2;
  two.throughput = 1000;
  four.ranks = 4;
  four.throughput = 1200;
  expectTranslatable({ringmaster::scalingFinding(two, four)});
}

TEST(FindingText, StallsFromProgressAndHeartbeatsAreInTheTable) {
  StallDetector detector(3, {});
  v1::StepSample sample;
  for (int rank = 0; rank < 3; ++rank) {
    sample.set_rank(rank);
    sample.set_step(rank == 1 ? 4 : 5);
    detector.progress(sample, 1'000'000'000);
  }
  auto behind = detector.findings(100'000'000'000);
  expectTranslatable(behind);
  ASSERT_FALSE(behind.empty());
  v1::Finding wentOn = behind[0];
  wentOn.set_summary(say(text::kThenItWentOn, {wentOn.summary()}));
  expectTranslatable({wentOn});
  StallDetector together(2, {});
  for (int rank = 0; rank < 2; ++rank) {
    sample.set_rank(rank);
    sample.set_step(5);
    together.progress(sample, 1'000'000'000);
  }
  expectTranslatable(together.findings(100'000'000'000));

  StallDetector beating(3, {});
  for (int rank = 0; rank < 3; ++rank) {
    v1::Heartbeat beat;
    beat.set_rank(rank);
    beat.set_last_step(rank == 2 ? -1 : 7);
    beat.set_phase(rank == 1 ? "data" : "comm_wait");
    beating.heartbeat(beat, rank == 2 ? 1'000'000'000 : 99'000'000'000);
    sample.set_rank(rank);
    sample.set_step(7);
    beating.progress(sample, 1'000'000'000);
  }
  expectTranslatable(beating.findings(100'000'000'000));
}
