// SPDX-License-Identifier: GPL-3.0-or-later
#include "console/models/timeline_model.h"

#include <gtest/gtest.h>

#include <optional>
#include <random>

#include "diagnosis/duration_text.h"

namespace ringmaster::console {
namespace {

v1::TimelineEvent event(int rank, const std::string& lane, const std::string& name, int64_t start,
                        int64_t end, std::map<std::string, std::string> args = {}) {
  v1::TimelineEvent e;
  e.set_rank(rank);
  e.set_lane(lane);
  e.set_name(name);
  e.set_start_ns(start);
  e.set_end_ns(end);
  e.set_step(7);
  for (const auto& [k, v] : args) (*e.mutable_args())[k] = v;
  return e;
}

int laneOf(const TimelineModel& model, int rank, const std::string& name) {
  for (int i = 0; i < model.laneCount(); ++i) {
    if (model.lane(i).rank == rank && model.lane(i).name == name) return i;
  }
  return -1;
}

TEST(TimelineModel, RowsByRankAndByTensor) {
  TimelineModel model;
  model.add(event(1, "comm", "ALLREDUCE", 0, 10));
  model.add(event(1, "compute", "FORWARD", 0, 10));
  model.add(event(0, "compute", "FORWARD", 0, 10));
  model.add(event(0, "comm", "ALLREDUCE", 0, 10));
  model.add(event(1, "grad.fc1", "QUEUE", 5, 9));
  model.add(event(0, "grad.fc2", "QUEUE", 1, 2));
  model.add(event(0, "grad.fc1", "QUEUE", 3, 4));
  const std::vector<int> byRank = model.rankRows();
  ASSERT_EQ(byRank.size(), 4u);
  EXPECT_EQ(byRank, (std::vector<int>{laneOf(model, 0, "compute"), laneOf(model, 0, "comm"),
                                      laneOf(model, 1, "compute"), laneOf(model, 1, "comm")}));
  // One row per tensor from its lowest rank, in order of first activity.
  EXPECT_EQ(model.tensorRows(),
            (std::vector<int>{laneOf(model, 0, "grad.fc2"), laneOf(model, 0, "grad.fc1")}));
  EXPECT_EQ(model.eventCount(), 7u);
  EXPECT_EQ(model.beginNs(), 0);
  EXPECT_EQ(model.endNs(), 10);
}

// An imported PyTorch trace: one lane per thread and nesting depth, shown by rank, depth by depth.
TEST(TimelineModel, RowsByRankHoldAnImportedTracesDepthLanesInOrder) {
  TimelineModel model;
  for (int rank : {1, 0}) {
    for (int depth : {10, 2, 0, 1}) {
      model.add(event(rank, "thread 1 \u00b7 depth " + std::to_string(depth), "aten::mm", depth, depth + 1));
    }
    model.add(event(rank, "stream 7 \u00b7 depth 0", "gemm", 0, 5));
  }
  std::vector<int> expected;
  for (int rank : {0, 1}) {
    for (const char* lane : {"stream 7 \u00b7 depth 0", "thread 1 \u00b7 depth 0", "thread 1 \u00b7 depth 1",
                             "thread 1 \u00b7 depth 2", "thread 1 \u00b7 depth 10"}) {
      expected.push_back(laneOf(model, rank, lane));
    }
  }
  EXPECT_EQ(model.rankRows(), expected);
  EXPECT_TRUE(model.tensorRows().empty());
}

TEST(TimelineModel, SortsEventsThatArriveOutOfOrder) {
  TimelineModel model;
  model.add(event(0, "compute", "BACKWARD", 300, 600));
  model.add(event(0, "compute", "DATA", 0, 100));
  model.add(event(0, "compute", "FORWARD", 100, 300));
  const auto& events = model.events(0);
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(model.name(events[0].name), "DATA");
  EXPECT_EQ(model.name(events[2].name), "BACKWARD");
  EXPECT_EQ(model.eventAt(0, 150), 1);
}

class LevelOfDetail : public ::testing::Test {
 protected:
  void SetUp() override {
    // 100 events of 10 ns back to back over [0, 1000), then one of 1000 ns at [2000, 3000).
    for (int i = 0; i < 100; ++i)
      model.add(event(0, "compute", i % 2 ? "FORWARD" : "DATA", i * 10, i * 10 + 10));
    model.add(event(0, "compute", "BACKWARD", 2000, 3000));
  }
  TimelineModel model;
};

TEST_F(LevelOfDetail, MergesEventsNarrowerThanAPixel) {
  const auto boxes = model.boxes(0, 0, 5000, 100.0);  // 100 ns per pixel: the 10 ns events are narrow
  ASSERT_EQ(boxes.size(), 2u);
  EXPECT_EQ(boxes[0].startNs, 0);
  EXPECT_EQ(boxes[0].endNs, 1000);
  EXPECT_EQ(boxes[0].count, 100u);
  EXPECT_EQ(boxes[1].startNs, 2000);
  EXPECT_EQ(boxes[1].endNs, 3000);
  EXPECT_EQ(boxes[1].count, 1u);
  EXPECT_EQ(model.name(boxes[1].name), "BACKWARD");
}

TEST_F(LevelOfDetail, DrawsEveryEventWhenZoomedIn) {
  EXPECT_EQ(model.boxes(0, 0, 5000, 5.0).size(), 101u);  // 10 ns = 2 pixels each
  const auto visible = model.boxes(0, 95, 125, 5.0);  // events overlapping [95, 125): [90,100) .. [120,130)
  ASSERT_EQ(visible.size(), 4u);
  EXPECT_EQ(visible.front().startNs, 90);
  EXPECT_EQ(visible.front().event, 9u);
  EXPECT_EQ(visible.back().startNs, 120);
}

TEST_F(LevelOfDetail, ClipsToTheVisibleRange) {
  const auto boxes = model.boxes(0, 500, 2500, 100.0);
  ASSERT_EQ(boxes.size(), 2u);
  EXPECT_EQ(boxes[0].startNs, 500);
  EXPECT_EQ(boxes[0].count, 50u);
  EXPECT_TRUE(model.boxes(0, 1100, 1900, 100.0).empty());
}

TEST(TimelineModelLod, KeepsDistantNarrowEventsApartAndNamesByTheLongest) {
  TimelineModel model;
  model.add(event(0, "compute", "DATA", 0, 10));
  model.add(event(0, "compute", "FORWARD", 100, 130));  // within one pixel (100 ns) of the first: merged
  model.add(event(0, "compute", "DATA", 500, 510));     // 370 ns after: a box of its own
  const auto boxes = model.boxes(0, 0, 1000, 100.0);
  ASSERT_EQ(boxes.size(), 2u);
  EXPECT_EQ(boxes[0].count, 2u);
  EXPECT_EQ(boxes[0].endNs, 130);
  EXPECT_EQ(model.name(boxes[0].name), "FORWARD");
  EXPECT_EQ(boxes[1].startNs, 500);
}

// The boxes as the view's contract states them, event by event: an event narrower than minPixels joins the
// open merged box when it starts less than a pixel after its end, any other event closes it; wide events
// stand alone.
std::vector<TimelineModel::Box> boxesOneByOne(const TimelineModel& model, int lane, int64_t t0, int64_t t1,
                                              double nsPerPixel, double minPixels) {
  const double narrow = minPixels * nsPerPixel;
  auto joins = [&](int64_t start, int64_t end) {
    return static_cast<double>(start) - static_cast<double>(end) < nsPerPixel;
  };
  std::vector<TimelineModel::Box> out;
  std::optional<TimelineModel::Box> merged;
  int64_t longest = -1;
  const auto& events = model.events(lane);
  for (uint32_t i = 0; i < events.size(); ++i) {
    const auto& e = events[i];
    if (e.startNs >= t1 || !(e.endNs > t0 || e.startNs >= t0)) continue;
    const int64_t duration = e.endNs - e.startNs;
    if (static_cast<double>(duration) >= narrow) {
      if (merged && !joins(e.startNs, merged->endNs)) {
        out.push_back(*merged);
        merged.reset();
      }
      out.push_back({e.startNs, e.endNs, e.name, 1, i, duration});
    } else if (merged && joins(e.startNs, merged->endNs)) {
      merged->endNs = std::max(merged->endNs, e.endNs);
      ++merged->count;
      merged->sumNs += duration;
      if (duration > longest) longest = duration, merged->name = e.name;
    } else {
      if (merged) out.push_back(*merged);
      merged = TimelineModel::Box{e.startNs, e.endNs, e.name, 1, i, duration};
      longest = duration;
    }
  }
  if (merged) out.push_back(*merged);
  return out;
}

// Zoomed out, whole chunks of events are taken from their summaries: the boxes must be exactly those of the
// event-by-event walk, at every zoom, for ranges that cut chunks anywhere, while the lane grows and after an
// event arrives out of order.
TEST(TimelineModelLod, ChunkSummariesGiveTheSameBoxesAsEventByEvent) {
  std::mt19937 random(7);
  std::uniform_int_distribution<int64_t> gap(0, 400);
  std::uniform_int_distribution<int64_t> pause(2000, 80000);
  std::uniform_int_distribution<int64_t> width(1, 300);
  std::uniform_int_distribution<int> chance(0, 59);
  const char* names[] = {"DATA", "FORWARD", "BACKWARD", "OPTIMIZER"};
  TimelineModel model;
  int64_t at = 0;
  auto addEvents = [&](int count) {
    for (int i = 0; i < count; ++i) {
      at += chance(random) < 2 ? pause(random) : gap(random);  // now and then a pause between steps
      const int64_t w = chance(random) == 0 ? 20 * width(random) : width(random);  // and a wide event
      model.add(event(0, "compute", names[i % 4], at, at + w));
      if (chance(random) < 6) model.add(event(0, "compute", "QUEUE", at + 1, at + w / 2));  // nested inside
    }
  };
  auto compareAtManyZooms = [&] {
    const int64_t end = model.endNs();
    for (double nsPerPixel : {0.5, 20.0, 150.0, 1000.0, 5000.0, 20000.0, 1e6}) {
      for (int cut = 0; cut < 8; ++cut) {
        const int64_t t0 = cut == 0 ? -100 : end * cut / 11;
        const int64_t t1 = cut == 0 ? end + 100 : t0 + end / (cut + 1);
        const auto expected = boxesOneByOne(model, 0, t0, t1, nsPerPixel, 3.0);
        const auto boxes = model.boxes(0, t0, t1, nsPerPixel, 3.0);
        ASSERT_EQ(boxes.size(), expected.size()) << nsPerPixel << " ns/px, [" << t0 << ", " << t1 << ")";
        for (size_t b = 0; b < boxes.size(); ++b) {
          EXPECT_EQ(boxes[b].startNs, expected[b].startNs) << "box " << b;
          EXPECT_EQ(boxes[b].endNs, expected[b].endNs) << "box " << b;
          EXPECT_EQ(boxes[b].count, expected[b].count) << "box " << b;
          EXPECT_EQ(boxes[b].event, expected[b].event) << "box " << b;
          EXPECT_EQ(boxes[b].name, expected[b].name) << "box " << b;
          EXPECT_EQ(boxes[b].sumNs, expected[b].sumNs) << "box " << b;
        }
      }
    }
  };
  addEvents(5000);
  compareAtManyZooms();
  addEvents(777);  // the lane grows after frames were painted: later chunks are summarised as they complete
  compareAtManyZooms();
  model.add(event(0, "compute", "DATA", at / 2, at / 2 + 5));  // out of order: the lane is sorted again
  compareAtManyZooms();
  // Zoomed out far enough, the whole lane is one box of every event.
  const auto all = model.boxes(0, -1, model.endNs() + 1, 1e9, 3.0);
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].count, model.events(0).size());
}

TEST(TimelineModel, FindsTheInnermostEventUnderThePointer) {
  TimelineModel model;
  model.add(event(0, "grad.w", "ALLREDUCE", 0, 100, {{"bytes", "4096"}}));
  model.add(event(0, "grad.w", "NEGOTIATE_ALLREDUCE", 0, 40));
  model.add(event(0, "grad.w", "GLOO_ALLREDUCE", 50, 90));
  const auto& events = model.events(0);
  EXPECT_EQ(model.name(events[model.eventAt(0, 60)].name), "GLOO_ALLREDUCE");
  EXPECT_EQ(model.name(events[model.eventAt(0, 20)].name), "NEGOTIATE_ALLREDUCE");
  EXPECT_EQ(model.name(events[model.eventAt(0, 45)].name), "ALLREDUCE");
  EXPECT_EQ(model.eventAt(0, 200), -1);
  EXPECT_EQ(model.name(events[model.eventAt(0, 102, 3)].name), "ALLREDUCE");
  const auto args = model.args(events[0]);
  ASSERT_EQ(args.size(), 1u);
  EXPECT_EQ(args[0], (std::pair<std::string, std::string>{"bytes", "4096"}));
}

TEST(TimelineModel, ReadyTicksShowWhoArrivedLate) {
  TimelineModel model;
  model.add(event(0, "grad.w", "NEGOTIATE_ALLREDUCE", 0, 40));   // rank 0 ready at 0
  model.add(event(1, "grad.w", "NEGOTIATE_ALLREDUCE", 10, 40));  // rank 1 ready at 10
  model.add(event(2, "grad.w", "NEGOTIATE_ALLREDUCE", 30, 40));  // rank 2 ready at 30: the late one
  const int row = model.tensorRows().at(0);
  EXPECT_EQ(model.lane(row).rank, 0);
  const auto ticks = model.ticks(row, 0, 40);
  ASSERT_EQ(ticks.size(), 3u);
  EXPECT_EQ(ticks[1].timeNs, 10);
  EXPECT_EQ(ticks[1].rank, 1);
  EXPECT_EQ(model.lateRank(row, model.events(row)[0]), 2);

  // Horovod's own files mark readiness with instant events named by the rank.
  model.add(event(0, "grad.w", "3", 35, 35));
  EXPECT_EQ(model.lateRank(row, model.events(row)[0]), 3);
  EXPECT_EQ(model.events(row).size(), 1u) << "a tick is not an activity";
}

TEST(TimelineModel, RangeStatisticsPerPhasePerRank) {
  TimelineModel model;
  model.add(event(0, "compute", "DATA", 0, 100));
  model.add(event(0, "compute", "FORWARD", 100, 300));
  model.add(event(0, "compute", "BACKWARD", 300, 600));
  model.add(event(0, "compute", "OPTIMIZER", 600, 650));
  model.add(event(1, "comm", "ALLREDUCE", 350, 500));
  const auto stats = model.rangeStats(50, 400);
  ASSERT_EQ(stats.size(), 2u);
  const auto& r0 = stats.at(0);
  EXPECT_EQ(r0.size(), 3u);
  EXPECT_EQ(r0.at("DATA").totalNs, 50);
  EXPECT_EQ(r0.at("FORWARD").totalNs, 200);
  EXPECT_EQ(r0.at("BACKWARD").totalNs, 100);
  EXPECT_EQ(r0.at("BACKWARD").count, 1u);
  EXPECT_EQ(stats.at(1).at("ALLREDUCE").totalNs, 50);
  EXPECT_EQ(r0.at("FORWARD").busyNs, 200);
}

TEST(TimelineModel, APhaseOnManyLanesAtOnceIsBusyOnceNotOncePerLane) {
  // A Horovod timeline: one row per tensor, fourteen tensors reducing at the same time on rank 0.
  TimelineModel model;
  for (int t = 0; t < 14; ++t) model.add(event(0, "grad." + std::to_string(t), "ALLREDUCE", 100 + t, 900));
  model.add(event(0, "grad.0", "ALLREDUCE", 950, 1000));
  const auto stats = model.rangeStats(0, 1000);
  const auto& allreduce = stats.at(0).at("ALLREDUCE");
  EXPECT_EQ(allreduce.count, 15u);
  EXPECT_EQ(allreduce.busyNs, 800 + 50);
  EXPECT_GT(allreduce.totalNs, 1000) << "the summed time still counts each lane";
}

TEST(TimelineModel, ExportsTheEventsOfARange) {
  TimelineModel model;
  model.add(event(0, "compute", "DATA", 0, 100, {{"batch", "3"}}));
  model.add(event(0, "compute", "FORWARD", 100, 300));
  model.add(event(1, "compute", "FORWARD", 500, 600));
  const auto records = model.eventsIn(0, 150);
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].name(), "DATA");
  EXPECT_EQ(records[0].args().at("batch"), "3");
  EXPECT_EQ(records[0].step(), 7u);
  EXPECT_EQ(records[1].name(), "FORWARD");
}

// Zoomed out, narrow events merge only across gaps of less than a pixel: an idle gap of a pixel or more
// between steps stays a gap, however narrow the steps, and a merged box says how busy it is.
TEST(TimelineModelLod, KeepsGapsOfAPixelOrMoreWhenZoomedOut) {
  TimelineModel model;
  // 200 steps: 6 ms of work in 4 events, then 4 ms idle. At 2.5 ms per pixel each step is 2.4 px of work
  // (narrower than the view's 3 px) and 1.6 px of idle.
  for (int step = 0; step < 200; ++step) {
    const int64_t t = step * 10'000'000LL;
    for (int p = 0; p < 4; ++p)
      model.add(
          event(0, "compute", p % 2 ? "FORWARD" : "BACKWARD", t + p * 1'500'000, t + (p + 1) * 1'500'000));
  }
  const auto steps = model.boxes(0, 0, model.endNs(), 2.5e6, 3.0);
  ASSERT_EQ(steps.size(), 200u) << "one box per step, the idle time between them kept";
  for (const auto& box : steps) {
    EXPECT_EQ(box.count, 4u);
    EXPECT_EQ(box.endNs - box.startNs, 6'000'000);
    EXPECT_EQ(box.sumNs, 6'000'000);
  }
  // At 5 ms per pixel the idle time is under a pixel: the steps merge into one box, 60 % busy.
  const auto all = model.boxes(0, 0, model.endNs(), 5e6, 3.0);
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].count, 800u);
  EXPECT_NEAR(static_cast<double>(all[0].sumNs) / static_cast<double>(all[0].endNs - all[0].startNs), 0.6,
              0.01);
}

// Shares of a range: each moment of a rank counts once (compute before communication beside it, the latest
// started of nested events), so a rank's selfNs and its idle time add up to the range.
TEST(TimelineModel, RangeSharesCountEachMomentOnce) {
  TimelineModel model;
  model.add(event(0, "compute", "FORWARD", 0, 400));
  model.add(event(0, "compute", "BACKWARD", 400, 800));
  model.add(event(0, "comm", "ALLREDUCE", 500, 950));  // hidden behind BACKWARD until 800, then exposed
  model.add(event(0, "thread 1 \u00b7 depth 0", "step", 0, 1000));
  model.add(event(1, "grad.w", "ALLREDUCE", 0, 600));
  model.add(event(1, "grad.w", "GLOO_ALLREDUCE", 100, 300));  // nested: its time is its own until...
  model.add(event(1, "grad.v", "ALLREDUCE", 200, 500));       // ...another tensor's starts
  const auto stats = model.rangeStats(0, 1000);
  const auto& r0 = stats.at(0);
  EXPECT_EQ(r0.at("FORWARD").selfNs, 400);
  EXPECT_EQ(r0.at("BACKWARD").selfNs, 400);
  EXPECT_EQ(r0.at("ALLREDUCE").selfNs, 150);
  EXPECT_EQ(r0.at("ALLREDUCE").busyNs, 450);
  EXPECT_EQ(r0.at("step").selfNs, 50);  // only where nothing later started ran
  int64_t sum = 0;
  for (const auto& [phase, s] : r0) sum += s.selfNs;
  EXPECT_EQ(sum, 1000);

  const auto& r1 = stats.at(1);
  EXPECT_EQ(r1.at("GLOO_ALLREDUCE").selfNs, 100);
  // grad.w's ALLREDUCE [0,100) and [500,600), grad.v's [200,500): 500 in all, counted once.
  EXPECT_EQ(r1.at("ALLREDUCE").selfNs, 500);
  EXPECT_EQ(r1.at("ALLREDUCE").totalNs, 900);
  int64_t sum1 = 0;
  for (const auto& [phase, s] : r1) sum1 += s.selfNs;
  EXPECT_EQ(sum1, 600) << "busy until 600, idle after";

  // Clipped to a range inside the events.
  const auto inner = model.rangeStats(700, 900);
  EXPECT_EQ(inner.at(0).at("BACKWARD").selfNs, 100);
  EXPECT_EQ(inner.at(0).at("ALLREDUCE").selfNs, 100);
}

TEST(TimelineModel, FindsEventsByNameInTimeThenRowOrder) {
  TimelineModel model;
  for (int rank = 0; rank < 2; ++rank) {
    for (int step = 0; step < 3; ++step) {
      const int64_t t = step * 1000;
      model.add(event(rank, "compute", "FORWARD", t, t + 300));
      model.add(event(rank, "compute", "optimizer.step", t + 300, t + 400));
      model.add(event(rank, "comm", "ALLREDUCE", t + 200, t + 500));
    }
  }
  const std::vector<int> rows = model.rankRows();  // rank 0 compute, comm, rank 1 compute, comm
  TimelineModel::Hit from;
  from.startNs = 0;
  std::vector<std::pair<int, int64_t>> order;
  for (TimelineModel::Hit hit = model.findNext(rows, "OPTIMIZER", from); hit.found();
       hit = model.findNext(rows, "OPTIMIZER", hit)) {
    EXPECT_EQ(
        model.name(model.events(rows[static_cast<size_t>(hit.row)])[static_cast<size_t>(hit.event)].name),
        "optimizer.step");
    order.emplace_back(hit.row, hit.startNs);
  }
  EXPECT_EQ(order, (std::vector<std::pair<int, int64_t>>{
                       {0, 300}, {2, 300}, {0, 1300}, {2, 1300}, {0, 2300}, {2, 2300}}));
  EXPECT_EQ(model.countMatches(rows, "optimizer"), 6u);

  // Backwards from the end, and the count of those before a match.
  TimelineModel::Hit end;
  end.startNs = INT64_MAX;
  const auto last = model.findNext(rows, "optimizer", end, false);
  ASSERT_TRUE(last.found());
  EXPECT_EQ(last.row, 2);
  EXPECT_EQ(last.startNs, 2300);
  EXPECT_EQ(model.countMatches(rows, "optimizer", &last), 5u);
  const auto previous = model.findNext(rows, "optimizer", last, false);
  EXPECT_EQ(previous.row, 0);
  EXPECT_EQ(previous.startNs, 2300);

  // A row's own name matches each of its events; nothing matches nothing.
  EXPECT_EQ(model.countMatches(rows, "comm"), 6u);
  EXPECT_FALSE(model.findNext(rows, "no such thing", from).found());
}

}  // namespace

// Time points in one unit, with the decimals their resolution needs.
TEST(DurationText, TimePointsInOneUnit) {
  using ringmaster::formatTimeIn;
  using ringmaster::formatTimePoint;
  using ringmaster::timeUnitFor;
  const auto seconds = timeUnitFor(5e9, 5e8);
  EXPECT_EQ(formatTimeIn(0, seconds), "0.0 s");
  EXPECT_EQ(formatTimeIn(5e9, seconds), "5.0 s");
  EXPECT_EQ(formatTimeIn(-1e-3, seconds), "0.0 s") << "no -0";
  EXPECT_EQ(formatTimeIn(0, timeUnitFor(800e3, 100e3)), "0 µs");
  EXPECT_EQ(formatTimeIn(700e3, timeUnitFor(800e3, 100e3)), "700 µs");
  EXPECT_EQ(formatTimePoint(65.0123e9, 2e6), "65.012 s");
  EXPECT_EQ(formatTimePoint(1.2e6, 2e5), "1.2 ms");
  EXPECT_EQ(formatTimePoint(7200e9, 1e9), "7200 s") << "an axis stays in seconds";
  EXPECT_EQ(formatTimePoint(350, 10), "350 ns");
}

}  // namespace ringmaster::console
