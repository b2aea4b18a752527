// SPDX-License-Identifier: GPL-3.0-or-later
// Timeline frame time: a TimelineView offscreen at 1600 x 900 over 1 M and 10 M events (64 ranks, compute and
// comm lanes), painting frame after frame while zooming out to the whole run, zooming in, and panning at
// three zoom levels. Goal: under 16 ms per frame at 1 M events. Also: the load time of a Horovod timeline
// file of a given size (default 1 GB) read with the store's streaming reader straight into the view's model,
// and the same file imported into a store and opened from there, its timeline read whole or a range at a
// time.
//
//   timeline_frame [--events N ...] [--horovod-mb MB]     (default: 1000000 10000000, 1000 MB; 0 skips the
//   file)
#include <QApplication>
#include <QPixmap>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "bench/bench_support.h"
#include "console/models/run_data.h"
#include "console/models/timeline_model.h"
#include "gui/views/timeline_view.h"
#include "tests/support/temp_dir.h"
#include "traces/horovod_timeline_reader.h"

namespace {

using ringmaster::RunStore;
using ringmaster::TimelineExtent;
using ringmaster::console::kTimelineEventsAtOnce;
using ringmaster::console::loadRun;
using ringmaster::console::loadTimeline;
using ringmaster::console::RunData;
using ringmaster::console::TimelineModel;
using ringmaster::gui::TimelineView;
namespace v1 = ringmaster::v1;

double threadCpuMs() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

// 64 ranks; per step: DATA FORWARD BACKWARD OPTIMIZER on "compute" and one ALLREDUCE on "comm" (5 events).
void fill(TimelineModel& model, size_t events) {
  constexpr int kRanks = 64;
  const size_t steps = events / (kRanks * 5);
  std::mt19937 random(1);
  std::normal_distribution<double> jitter(1, 0.05);
  v1::TimelineEvent e;
  for (size_t step = 0; step < steps; ++step) {
    const int64_t t = static_cast<int64_t>(step) * 10'000'000;  // 10 ms steps
    for (int rank = 0; rank < kRanks; ++rank) {
      e.set_rank(rank);
      e.set_step(step);
      int64_t at = t;
      const char* names[] = {"DATA", "FORWARD", "BACKWARD", "OPTIMIZER"};
      const double ms[] = {0.5, 2.5, 5.0, 1.0};
      e.set_lane("compute");
      for (int p = 0; p < 4; ++p) {
        const auto d = static_cast<int64_t>(ms[p] * 1e6 * jitter(random));
        e.set_name(names[p]);
        e.set_start_ns(at);
        e.set_end_ns(at + d);
        model.add(e);
        at += d;
      }
      e.set_lane("comm");
      e.set_name("ALLREDUCE");
      e.set_start_ns(t + 4'000'000);
      e.set_end_ns(t + 8'500'000);
      model.add(e);
    }
  }
}

struct Frames {
  double meanMs = 0;
  double p95Ms = 0;
  double cpuMeanMs = 0;
  size_t boxes = 0;
};

// Paints `count` frames, calling `move` before each.
template <typename F>
Frames frames(TimelineView& view, int count, F&& move) {
  std::vector<double> wall;
  double cpu = 0;
  size_t boxes = 0;
  for (int i = 0; i < count; ++i) {
    move(i);
    const auto start = std::chrono::steady_clock::now();
    const double cpu0 = threadCpuMs();
    (void)view.grab();
    cpu += threadCpuMs() - cpu0;
    wall.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    boxes += view.lastBoxCount();
  }
  std::sort(wall.begin(), wall.end());
  double sum = 0;
  for (double w : wall) sum += w;
  return {sum / count, wall[static_cast<size_t>(count * 0.95)], cpu / count,
          boxes / static_cast<size_t>(count)};
}

void runEvents(size_t events) {
  TimelineModel model;
  const auto start = std::chrono::steady_clock::now();
  fill(model, events);
  const double fillS = ringmaster::bench::secondsSince(start);
  TimelineView view;
  view.resize(1600, 900);
  view.setModel(&model);
  view.show();
  QApplication::processEvents();
  const int64_t begin = model.beginNs(), end = model.endNs(), span = end - begin;
  std::printf("%9zu events (%.0f MB in the model, built in %.1f s):\n", model.eventCount(),
              static_cast<double>(model.bytesHeld()) / 1e6, fillS);
  auto report = [](const char* what, const Frames& f) {
    std::printf("   %-34s mean %6.2f ms  p95 %6.2f ms  (cpu %6.2f ms)  %6zu boxes/frame\n", what, f.meanMs,
                f.p95Ms, f.cpuMeanMs, f.boxes);
  };
  report("whole run (zoomed out), panning", frames(view, 20, [&](int i) {
           view.setVisibleRange(begin + i * span / 200, begin + i * span / 200 + span);
         }));
  report("zooming in from all to 10 steps", frames(view, 30, [&](int i) {
           const double f = std::pow(1.25, i);
           const int64_t w = std::max<int64_t>(static_cast<int64_t>(span / f), 100'000'000);
           view.setVisibleRange(begin + span / 2 - w / 2, begin + span / 2 + w / 2);
         }));
  report("1/10 of the run, panning", frames(view, 20, [&](int i) {
           view.setVisibleRange(begin + i * span / 40, begin + i * span / 40 + span / 10);
         }));
  report("20 steps, panning", frames(view, 20, [&](int i) {
           const int64_t at = begin + span / 3 + i * 5'000'000;
           view.setVisibleRange(at, at + 200'000'000);
         }));
}

// A Horovod timeline of about `mb` MB: 8 ranks, 160 tensors, each with NEGOTIATE (8 ticks) and ALLREDUCE
// phases.
uint64_t writeHorovodTimeline(const std::string& path, double mb) {
  std::ofstream out(path);
  out << "[\n";
  for (int t = 0; t < 160; ++t) {
    out << "{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": " << t
        << ", \"args\": {\"name\": \"grad.layer" << t << ".weight\"}},\n";
  }
  const auto target = static_cast<uint64_t>(mb * 1e6);
  uint64_t step = 0;
  while (static_cast<uint64_t>(out.tellp()) < target) {
    for (int t = 0; t < 160; ++t) {
      const int64_t base = static_cast<int64_t>(step) * 100'000 + t * 500;
      out << "{\"name\": \"NEGOTIATE_ALLREDUCE\", \"ph\": \"B\", \"ts\": " << base << ", \"pid\": " << t
          << "},\n";
      for (int r = 0; r < 8; ++r) {
        out << "{\"name\": \"" << r << "\", \"ph\": \"X\", \"ts\": " << base + 10 + r * 7
            << ", \"dur\": 0, \"pid\": " << t << "},\n";
      }
      out << "{\"ph\": \"E\", \"ts\": " << base + 100 << ", \"pid\": " << t << "},\n";
      out << "{\"name\": \"ALLREDUCE\", \"ph\": \"B\", \"ts\": " << base + 100 << ", \"pid\": " << t
          << "},\n";
      out << "{\"name\": \"QUEUE\", \"ph\": \"B\", \"ts\": " << base + 100 << ", \"pid\": " << t << "},\n";
      out << "{\"ph\": \"E\", \"ts\": " << base + 150 << ", \"pid\": " << t << "},\n";
      out << "{\"name\": \"GLOO_ALLREDUCE\", \"ph\": \"B\", \"ts\": " << base + 150 << ", \"pid\": " << t
          << "},\n";
      out << "{\"ph\": \"E\", \"ts\": " << base + 450 << ", \"pid\": " << t << "},\n";
      out << "{\"ph\": \"E\", \"ts\": " << base + 460 << ", \"pid\": " << t << "},\n";
    }
    ++step;
  }
  out << "{\"name\": \"end\", \"ph\": \"i\", \"ts\": " << step * 100'000
      << ", \"pid\": 0, \"s\": \"g\"}\n]\n";
  return static_cast<uint64_t>(out.tellp());
}

void runHorovodLoad(double mb) {
  ringmaster::test::TempDir scratch("timeline-frame");
  const std::string path = scratch.file("horovod_timeline.json");
  const uint64_t bytes = writeHorovodTimeline(path, mb);
  const uint64_t rssBefore = ringmaster::bench::peakRssBytes();
  TimelineModel model;
  const auto start = std::chrono::steady_clock::now();
  std::ifstream in(path, std::ios::binary);
  const auto summary = ringmaster::readTimeline(in, [&](v1::TimelineEvent& e) { model.add(e); });
  const double seconds = ringmaster::bench::secondsSince(start);
  // The first frame sorts nothing (events arrive in order) but touches every lane once.
  TimelineView view;
  view.resize(1600, 900);
  view.setModel(&model);
  view.setRowMode(TimelineView::RowMode::ByTensor);
  const auto paintStart = std::chrono::steady_clock::now();
  (void)view.grab();
  const double firstFrameMs = ringmaster::bench::secondsSince(paintStart) * 1e3;
  std::printf(
      "Horovod timeline load: %.0f MB (%llu trace events -> %zu timeline events) into the view's model in "
      "%.1f s (%.0f MB/s); first frame %.1f ms; peak RSS grew %.0f MB (model %.0f MB)\n",
      static_cast<double>(bytes) / 1e6, static_cast<unsigned long long>(summary.traceEvents),
      model.eventCount(), seconds, static_cast<double>(bytes) / 1e6 / seconds, firstFrameMs,
      static_cast<double>(ringmaster::bench::peakRssBytes() - rssBefore) / 1e6,
      static_cast<double>(model.bytesHeld()) / 1e6);
  view.setModel(nullptr);
  model.clear();

  // The same file imported into a store, then opened as the window opens a stored run: the timeline read
  // whole (as before ranges), or the window at its beginning; then a range of the same width in the middle,
  // as the view reads it when panned there.
  const std::string storePath = scratch.file("store.db");
  RunStore store(storePath);
  const int64_t runId = ringmaster::importTraces(store, {path}).runId;
  auto open = [&](const char* what, int64_t atOnce) {
    const auto begin = std::chrono::steady_clock::now();
    const double cpuBegin = ringmaster::bench::cpuSeconds();
    const RunData data = loadRun(store, runId, atOnce);
    const double seconds = ringmaster::bench::secondsSince(begin);
    const double cpu = ringmaster::bench::cpuSeconds() - cpuBegin;
    TimelineView shown;
    shown.resize(1600, 900);
    shown.setModel(&data.timeline);
    const auto paintStart = std::chrono::steady_clock::now();
    (void)shown.grab();
    std::printf("  opened from the store, %s: %.2f s (%.2f s CPU), %zu events held, first frame %.1f ms\n",
                what, seconds, cpu, data.timeline.eventCount(),
                ringmaster::bench::secondsSince(paintStart) * 1e3);
    return data.timelineExtent;
  };
  open("timeline whole", INT64_MAX);
  const TimelineExtent extent = open("the beginning", kTimelineEventsAtOnce);
  const int64_t width = static_cast<int64_t>(double(extent.endNs - extent.beginNs) * kTimelineEventsAtOnce /
                                             double(extent.events));
  const int64_t middle = extent.beginNs + (extent.endNs - extent.beginNs) / 2;
  const auto begin = std::chrono::steady_clock::now();
  const TimelineModel range = loadTimeline(store, runId, extent, middle, middle + width);
  std::printf("  a range of the same width in the middle: %.2f s, %zu events\n",
              ringmaster::bench::secondsSince(begin), range.eventCount());
}

}  // namespace

int main(int argc, char** argv) {
  if (!qEnvironmentVariableIsSet("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  std::vector<size_t> sizes;
  double horovodMb = 1000;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--events") == 0 && i + 1 < argc) {
      sizes.push_back(std::stoull(argv[++i]));
    } else if (std::strcmp(argv[i], "--horovod-mb") == 0 && i + 1 < argc) {
      horovodMb = std::stod(argv[++i]);
    }
  }
  if (sizes.empty()) sizes = {1'000'000, 10'000'000};
  std::printf("timeline frames, offscreen 1600x900 (goal: under 16 ms a frame at 1 M events)\n");
  for (size_t n : sizes) runEvents(n);
  if (horovodMb > 0) runHorovodLoad(horovodMb);
  return 0;
}
