// SPDX-License-Identifier: GPL-3.0-or-later
// Who kept a Horovod job waiting, read from timelines in Horovod's own format through the timeline reader.
#include "diagnosis/horovod_readiness.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "diagnosis/duration_text.h"
#include "diagnosis/run_diagnosis.h"
#include "tests/support/temp_dir.h"
#include "traces/horovod_timeline_reader.h"

namespace {

namespace diagnosis = ringmaster::diagnosis;
namespace v1 = ringmaster::v1;

// One tensor's negotiation: each rank's ready time, in microseconds after the span opens.
using ReadyTimes = std::vector<double>;

// A Horovod timeline (rank 0's file) with one tensor per negotiation, as Horovod writes it: tensors are
// processes named by metadata, NEGOTIATE_ALLREDUCE is a B/E pair, and each rank's tick is a zero-length event
// named by the rank inside it, followed by the ALLREDUCE.
std::string horovodTimeline(const std::vector<ReadyTimes>& negotiations, int tensors = 8) {
  std::ostringstream out;
  out << "[\n";
  for (int t = 0; t < tensors; ++t) {
    out << R"({"name": "process_name", "ph": "M", "pid": )" << t << R"(, "args": {"name": "grad.layer)" << t
        << R"(.weight"}},)"
        << "\n";
  }
  double ts = 1000;
  for (size_t i = 0; i < negotiations.size(); ++i) {
    const int pid = static_cast<int>(i) % tensors;
    const auto& ready = negotiations[i];
    const double end = *std::max_element(ready.begin(), ready.end()) + 10;
    out << R"({"name": "NEGOTIATE_ALLREDUCE", "ph": "B", "ts": )" << ts << R"(, "pid": )" << pid << "},\n";
    for (size_t rank = 0; rank < ready.size(); ++rank) {
      out << R"({"name": ")" << rank << R"(", "ph": "X", "ts": )" << ts + ready[rank]
          << R"(, "dur": 0, "pid": )" << pid << "},\n";
    }
    out << R"({"ph": "E", "ts": )" << ts + end << R"(, "pid": )" << pid << "},\n";
    out << R"({"name": "ALLREDUCE", "ph": "B", "ts": )" << ts + end << R"(, "pid": )" << pid << "},\n";
    out << R"({"ph": "E", "ts": )" << ts + end + 300 << R"(, "pid": )" << pid << "}";
    out << (i + 1 < negotiations.size() ? ",\n" : "\n");
    ts += end + 1000;
  }
  out << "]\n";
  return out.str();
}

diagnosis::ReadinessTally tallyOf(const std::string& timeline) {
  diagnosis::ReadinessTally tally;
  std::istringstream in(timeline);
  auto summary = ringmaster::readTimeline(in, [&](v1::TimelineEvent& e) { tally.observe(e); });
  EXPECT_EQ(summary.format, ringmaster::TraceFormat::HorovodTimeline);
  return tally;
}

// `ranks` ranks ready within 1 ms of each other in random order; `late` (if >= 0) comes `lateUs` after them
// all.
std::vector<ReadyTimes> negotiationsWith(int count, int ranks, int late, double lateUs, unsigned seed = 7) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<double> jitter(0, 1000);
  std::vector<ReadyTimes> out;
  for (int i = 0; i < count; ++i) {
    ReadyTimes ready(static_cast<size_t>(ranks));
    for (auto& t : ready) t = jitter(random);
    if (late >= 0) ready[static_cast<size_t>(late)] = *std::max_element(ready.begin(), ready.end()) + lateUs;
    out.push_back(ready);
  }
  return out;
}

}  // namespace

TEST(HorovodReadiness, TheRankThatIsAlwaysLastIsNamedWithHowOftenAndByHowMuch) {
  auto tally = tallyOf(horovodTimeline(negotiationsWith(60, 4, 2, 4100)));
  EXPECT_EQ(tally.worldSize(), 4);
  EXPECT_EQ(tally.completeNegotiations(), 60u);
  auto late = tally.lateness();
  ASSERT_FALSE(late.empty());
  EXPECT_EQ(late.front().rank, 2);
  EXPECT_EQ(late.front().last, 60u);
  EXPECT_NEAR(late.front().medianLateNs, 4.1e6, 1);

  auto findings = tally.findings();
  ASSERT_EQ(findings.size(), 1u);
  const v1::Finding& f = findings.front();
  EXPECT_EQ(f.kind(), v1::Finding::KIND_STRAGGLER);
  EXPECT_EQ(f.severity(), v1::Finding::SEVERITY_WARNING);
  EXPECT_EQ(f.rank(), 2);
  EXPECT_EQ(f.cause(), "readiness");
  EXPECT_NE(f.summary().find("Rank 2 was the last to be ready for 100 % of 60 negotiated tensors"),
            std::string::npos)
      << f.summary();
  EXPECT_NE(f.summary().find("by 4.1 ms median"), std::string::npos) << f.summary();
  EXPECT_DOUBLE_EQ(f.evidence().at("last_share_pct"), 100);
}

TEST(HorovodReadiness, ARankLateMoreOftenThanItsShareButNotAlwaysIsStillNamed) {
  // Rank 1 of 2 is late in 45 of 60 negotiations; in the rest the order is random.
  auto negotiations = negotiationsWith(45, 2, 1, 2000);
  auto rest = negotiationsWith(15, 2, -1, 0, 11);
  negotiations.insert(negotiations.end(), rest.begin(), rest.end());
  auto findings = tallyOf(horovodTimeline(negotiations)).findings();
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings.front().rank(), 1);
  EXPECT_GE(findings.front().evidence().at("last_share_pct"), 75);
}

TEST(HorovodReadiness, RanksReadyInRandomOrderAreNotBlamed) {
  for (int ranks : {2, 4, 8}) {
    auto tally = tallyOf(horovodTimeline(negotiationsWith(200, ranks, -1, 0, static_cast<unsigned>(ranks))));
    EXPECT_EQ(tally.completeNegotiations(), 200u);
    EXPECT_TRUE(tally.findings().empty()) << ranks << " ranks: " << tally.findings().front().summary();
  }
}

TEST(HorovodReadiness, ReadyInTheSameInstantBlamesNoOne) {
  std::vector<ReadyTimes> ties(40, ReadyTimes{100, 500, 500});
  auto tally = tallyOf(horovodTimeline(ties));
  EXPECT_EQ(tally.completeNegotiations(), 40u);
  EXPECT_TRUE(tally.lateness().empty());
  EXPECT_TRUE(tally.findings().empty());
}

TEST(HorovodReadiness, TooFewCompleteNegotiationsAreSaidToBeTooFewToJudge) {
  // With the response cache on, most cycles negotiate nothing: 6 negotiations, rank 3 last in each.
  auto findings = tallyOf(horovodTimeline(negotiationsWith(6, 4, 3, 5000))).findings();
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings.front().severity(), v1::Finding::SEVERITY_INFO);
  EXPECT_EQ(findings.front().rank(), -1);
  EXPECT_NE(findings.front().summary().find("too few"), std::string::npos) << findings.front().summary();
  EXPECT_NE(findings.front().summary().find("HOROVOD_CACHE_CAPACITY=0"), std::string::npos);
}

TEST(HorovodReadiness, NegotiationsMissingARanksTickAreNotJudged) {
  auto negotiations = negotiationsWith(30, 4, 0, 3000);
  for (auto& ready : negotiations) ready.resize(3);  // rank 3's tick never came
  negotiations.push_back({10, 20, 30, 40});
  auto tally = tallyOf(horovodTimeline(negotiations));
  EXPECT_EQ(tally.worldSize(), 4);
  EXPECT_EQ(tally.completeNegotiations(), 1u);
  EXPECT_EQ(tally.incompleteNegotiations(), 30u);
  auto findings = tally.findings();
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings.front().severity(), v1::Finding::SEVERITY_INFO);
}

TEST(HorovodReadiness, ATimelineWithoutTicksHasNoFinding) {
  std::istringstream in(R"([{"name":"step","ph":"X","ts":10,"dur":5,"pid":0,"tid":0}])");
  diagnosis::ReadinessTally tally;
  ringmaster::readTimeline(in, [&](v1::TimelineEvent& e) { tally.observe(e); });
  EXPECT_TRUE(tally.findings().empty());
}

TEST(DurationText, EveryScaleReadsInItsOwnUnit) {
  using ringmaster::formatDuration;
  EXPECT_EQ(formatDuration(0), "0 ns");
  EXPECT_EQ(formatDuration(-1e-9), "0 ns");
  EXPECT_EQ(formatDuration(350), "350 ns");
  EXPECT_EQ(formatDuration(300e3), "300 µs");
  EXPECT_EQ(formatDuration(4.1e6), "4.1 ms");
  EXPECT_EQ(formatDuration(-2.5e9), "-2.5 s");
  EXPECT_EQ(formatDuration(90e9), "1.5 min");
  EXPECT_EQ(formatDuration(2 * 3600e9), "2 h");
  EXPECT_EQ(formatDuration(1e14), "1.16 d");  // what an axis once showed as "1e+05 s"
  EXPECT_EQ(formatDuration(1500 * 86400e9), "1500 d");
  EXPECT_EQ(formatDuration(std::numeric_limits<double>::quiet_NaN()), "unknown");
}

TEST(DurationText, ARunsLengthReadsInWholeSecondsAsAClockSaysIt) {
  using ringmaster::elapsedSentence;
  using ringmaster::formatElapsed;
  EXPECT_EQ(formatElapsed(0), "0 s");
  EXPECT_EQ(formatElapsed(45.4), "45 s");
  EXPECT_EQ(formatElapsed(59.6), "1 min 0 s") << "rounded, then split";
  EXPECT_EQ(formatElapsed(185), "3 min 5 s");
  EXPECT_EQ(formatElapsed(3599), "59 min 59 s");
  EXPECT_EQ(formatElapsed(2 * 3600 + 5 * 60 + 59), "2 h 5 min");
  EXPECT_EQ(formatElapsed(-3), "0 s");
  EXPECT_EQ(formatElapsed(std::numeric_limits<double>::quiet_NaN()), "0 s");
  EXPECT_EQ(formatElapsed(std::numeric_limits<double>::infinity()), "0 s");
  EXPECT_EQ(formatElapsed(1e300), "8888888888 h 53 min") << "capped, never undefined";
  // The window translates the pattern and fills in the same figures.
  const ringmaster::Sentence phrase = elapsedSentence(185);
  EXPECT_EQ(phrase.context(), ringmaster::kDurationContext);
  EXPECT_EQ(phrase.pattern(), "%1 min %2 s");
  ASSERT_EQ(phrase.args_size(), 2);
  EXPECT_EQ(phrase.args(0).integer(), 3);
  EXPECT_EQ(phrase.args(1).integer(), 5);
}

TEST(HorovodReadiness, AnImportedTimelineKeepsItsLatenessFindingWithTheRun) {
  ringmaster::test::TempDir dir("readiness-import");
  const std::string path = dir.file("horovod_timeline.json");
  {
    std::ofstream out(path);
    out << horovodTimeline(negotiationsWith(50, 4, 1, 6000));
  }
  ringmaster::RunStore store(dir.file("runs.sqlite"));
  auto imported = ringmaster::importTimeline(store, path);
  EXPECT_EQ(imported.summary.format, ringmaster::TraceFormat::HorovodTimeline);
  auto findings = diagnosis::storedFindings(store, imported.runId);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings.front().rank(), 1);
  EXPECT_NE(findings.front().summary().find("Rank 1 was the last to be ready"), std::string::npos);
}
