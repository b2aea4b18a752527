// SPDX-License-Identifier: GPL-3.0-or-later
// Imported traces whose writer recorded absurd durations: the real activity stays visible and nothing is
// lost.
#include "traces/trace_extent.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "diagnosis/run_diagnosis.h"
#include "tests/support/temp_dir.h"
#include "traces/horovod_timeline_reader.h"

namespace {

constexpr double kNineDaysUs = 9 * 86400e6;

// A Chrome trace of `events` 1 ms events spread over about a second on one thread, and `absurd` more that
// start within that second and last nine days.
std::string traceWith(int events, int absurd) {
  std::ostringstream out;
  out << "[";
  for (int i = 0; i < events; ++i) {
    out << (i ? ",\n" : "") << R"({"name":"op","ph":"X","pid":0,"tid":1,"ts":)" << 1000 + i * 10000
        << R"(,"dur":1000})";
  }
  for (int i = 0; i < absurd; ++i) {
    out << ",\n"
        << R"({"name":"stuck","ph":"X","pid":0,"tid":2,"ts":)" << 5000 + i * 100000 << R"(,"dur":)"
        << static_cast<long long>(kNineDaysUs) << "}";
  }
  out << "]\n";
  return out.str();
}

struct Imported {
  ringmaster::test::TempDir dir{"trace-extent"};
  std::unique_ptr<ringmaster::RunStore> store;
  int64_t runId = 0;

  explicit Imported(const std::string& trace) {
    const std::string path = dir.file("trace.json");
    std::ofstream(path) << trace;
    store = std::make_unique<ringmaster::RunStore>(dir.file("runs.sqlite"));
    runId = ringmaster::importTimeline(*store, path).runId;
  }
};

}  // namespace

TEST(TraceExtent, AbsurdDurationsAreClippedToTheTracesEndAndSaidSo) {
  Imported imported(traceWith(100, 3));
  int64_t lastEnd = 0, clipped = 0, kept = 0;
  imported.store->forEachTimelineEvent(imported.runId, [&](const ringmaster::v1::TimelineEvent& e) {
    lastEnd = std::max(lastEnd, e.end_ns());
    if (e.name() == "stuck") {
      ++clipped;
      EXPECT_EQ(e.args().at("recorded_dur_ns"), std::to_string(static_cast<long long>(kNineDaysUs * 1000)));
    } else {
      ++kept;
      EXPECT_EQ(e.end_ns() - e.start_ns(), 1'000'000) << "a plausible event was changed";
      EXPECT_EQ(e.args().count("recorded_dur_ns"), 0u);
    }
  });
  EXPECT_EQ(clipped, 3);
  EXPECT_EQ(kept, 100);
  // The real activity: the last plausible event ends at 1000 + 99 * 10000 + 1000 µs.
  EXPECT_EQ(lastEnd, (1000 + 99 * 10000 + 1000) * 1000LL);

  auto findings = ringmaster::diagnosis::storedFindings(*imported.store, imported.runId);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_NE(findings.front().summary().find("3 events have implausible durations (up to 9 d in a trace whose "
                                            "events all start within 990 ms)"),
            std::string::npos)
      << findings.front().summary();
}

TEST(TraceExtent, ATraceWithoutAbsurdDurationsIsLeftAsRecorded) {
  Imported imported(traceWith(100, 0));
  EXPECT_TRUE(ringmaster::diagnosis::storedFindings(*imported.store, imported.runId).empty());
  int64_t lastEnd = 0;
  imported.store->forEachTimelineEvent(imported.runId, [&](const ringmaster::v1::TimelineEvent& e) {
    lastEnd = std::max(lastEnd, e.end_ns());
  });
  EXPECT_EQ(lastEnd, (1000 + 99 * 10000 + 1000) * 1000LL);
}

TEST(TraceExtent, ALongEventInALongTraceIsPlausible) {
  // Events start over a whole hour; one lasts two hours from the start: long, but not beyond the trace's
  // scale.
  ringmaster::TraceExtent extent;
  ringmaster::v1::TimelineEvent e;
  e.set_start_ns(0);
  e.set_end_ns(7200e9);
  extent.observe(e);
  e.set_start_ns(3600e9);
  e.set_end_ns(3600e9 + 1000);
  extent.observe(e);
  EXPECT_FALSE(extent.anyImplausible());
  e.set_end_ns(3600e9 * 3);
  extent.observe(e);
  EXPECT_TRUE(extent.anyImplausible());
}
