// SPDX-License-Identifier: GPL-3.0-or-later
// Findings' summaries in any language: every sentence a detector writes is kept as the message it says
// (common/sentence.h): its English is the summary as it always read, and a reader's catalogue replaces every
// pattern in it, the sentences inside it each in their own context, with the same figures.
#include "diagnosis/summary_text.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "common/sentence.h"
#include "diagnosis/comparison.h"
#include "diagnosis/duration_text.h"
#include "diagnosis/run_diagnosis.h"
#include "tests/support/diagnosis_synthetic.h"

using namespace ringmaster::diagnosis;
using ringmaster::Decimal;
using ringmaster::Figure;
using ringmaster::render;
using ringmaster::Sentence;
using ringmaster::sentence;
using ringmaster::toText;
using ringmaster::test::generate;
using ringmaster::test::rankEnded;
using ringmaster::test::SyntheticRun;

namespace {

// A "translation" that shows each pattern it was asked for, with its context: «context|pattern».
std::string marked(const std::string& context, const std::string& pattern) {
  return "\u00ab" + context + "|" + pattern + "\u00bb";
}

v1::Record step(int rank, uint64_t number, double loss) {
  v1::Record r;
  r.mutable_step()->set_rank(rank);
  r.mutable_step()->set_step(number);
  r.mutable_step()->set_total_ns(1'000'000);
  r.mutable_step()->set_loss(loss);
  return r;
}

// Every sentence inside `s` (itself included) is of a catalogue context of Ringmaster's and has a pattern.
void expectOwnSentences(const Sentence& s) {
  EXPECT_TRUE(s.context() == kFindingContext || s.context() == ringmaster::kComparisonContext ||
              s.context() == ringmaster::kDurationContext)
      << s.context() << ": " << s.pattern();
  EXPECT_FALSE(s.pattern().empty());
  for (const auto& arg : s.args()) {
    EXPECT_NE(arg.value_case(), Sentence::Arg::VALUE_NOT_SET) << s.pattern();
    if (arg.has_sentence()) expectOwnSentences(arg.sentence());
  }
}

// Every finding of `findings` carries its summary as a sentence whose English is the summary, made of
// Ringmaster's patterns only: a translation replaces the whole of it (no English is left outside the
// marks). Its cause is one of the cause words.
void expectTranslatable(const std::vector<v1::Finding>& findings) {
  ASSERT_FALSE(findings.empty());
  const auto& causes = causeWords();
  for (const v1::Finding& f : findings) {
    ASSERT_TRUE(f.has_sentence()) << f.summary();
    EXPECT_EQ(toText(f.sentence()), f.summary());
    expectOwnSentences(f.sentence());
    const std::string shown = render(f.sentence(), marked);
    EXPECT_EQ(shown.rfind("\u00ab", 0), 0u) << shown;
    EXPECT_EQ(shown.substr(shown.size() - std::string("\u00bb").size()), "\u00bb") << shown;
    EXPECT_TRUE(std::any_of(causes.begin(), causes.end(), [&](const char* w) { return f.cause() == w; }))
        << "cause \"" << f.cause() << "\" is no cause word";
  }
}

}  // namespace

TEST(Sentences, FiguresOfEachTypeReadAsPrintfWouldPrintThem) {
  const Sentence s = sentence("c", "%1|%2|%3|%4|%5|%6",
                              {"node2", 7, uint64_t(18'446'744'073'709'551'615u) / 2, Decimal{8.125, 1},
                               Decimal{2, 1, true}, Decimal{-0.5, 0}});
  EXPECT_EQ(toText(s), "node2|7|9223372036854775807|8.1|+2.0|-0");
  EXPECT_TRUE(ringmaster::isEmpty(Sentence{}));
}

TEST(Sentences, EachSentenceInsideAnotherIsTranslatedInItsOwnContext) {
  const Sentence who = sentence("people", "rank %1 (%2)", {2, "node2"});
  const Sentence s = sentence("findings", "%1 is late by %2 ms", {who, Decimal{5.04, 1}});
  EXPECT_EQ(toText(s), "rank 2 (node2) is late by 5.0 ms");
  EXPECT_EQ(render(s, marked), "\u00abfindings|\u00abpeople|rank 2 (node2)\u00bb is late by 5.0 ms\u00bb");
  // A catalogue may put the figures where its language wants them.
  const auto reordered = [](const std::string&, const std::string& pattern) {
    return pattern == "%1 is late by %2 ms" ? std::string("%2 ms late: %1") : pattern;
  };
  EXPECT_EQ(render(s, reordered), "5.0 ms late: rank 2 (node2)");
}

TEST(Sentences, AStoredSentenceOfAnyShapeRendersWithoutFailing) {
  // Nested far deeper than Ringmaster nests (a damaged or hostile store): the innermost parts are elided.
  Sentence deep = sentence("c", "end");
  for (int i = 0; i < 50; ++i) deep = sentence("c", "(%1)", {deep});
  const std::string text = toText(deep);
  EXPECT_NE(text.find("\u2026"), std::string::npos) << text;
  EXPECT_EQ(text.find("end"), std::string::npos) << text;
  // Figures missing or of no type, a pattern that is not one of Ringmaster's.
  Sentence odd;
  odd.set_pattern("%1, %2 and %3");
  odd.add_args()->set_text("a");
  odd.add_args();
  EXPECT_EQ(toText(odd), "a,  and %3");
  Sentence::Decimal& wide = *odd.add_args()->mutable_decimal();
  wide.set_value(1e300);
  wide.set_digits(4'000'000'000u);
  EXPECT_FALSE(toText(odd).empty());
}

TEST(FindingText, EnglishSummariesReadAsBefore) {
  RunDiagnosis crashed(3);
  v1::Record line;
  line.mutable_log()->set_rank(1);
  line.mutable_log()->set_stream(v1::LogLine::STREAM_STDERR);
  line.mutable_log()->set_text("RuntimeError: boom");
  crashed.observe(step(0, 29, 1.0));
  crashed.observe(step(1, 29, 1.0));
  crashed.observe(line);
  crashed.observe(rankEnded(1, v1::RankState::STATE_SIGNALED, 6, "node1"));
  crashed.observe(rankEnded(2, v1::RankState::STATE_EXITED, 1, "node2"));
  const auto findings = crashed.findings();
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].summary(),
            "rank 1 (node1) was killed by SIGABRT after step 29, which ended the run. Its last error line: "
            "\"RuntimeError: boom\". Rank 2 then failed as well.");
}

TEST(FindingText, EverySummaryADetectorWritesIsASentenceOfRingmastersPatterns) {
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
    one.observe(rankEnded(1, state, 9, "node1", "no such file"));
    expectTranslatable(one.findings());
    RunDiagnosis many(4);
    many.observe(step(1, 3, 1.0));
    many.observe(rankEnded(1, state, 9, "node1"));
    many.observe(rankEnded(2, state, 9, "node2"));
    many.observe(rankEnded(3, state, 9, "node3"));
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

TEST(FindingText, StallsFromProgressAndHeartbeatsAreSentencesOfRingmastersPatterns) {
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
  setSummary(wentOn, say(text::kThenItWentOn, {wentOn.sentence()}));
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
