// SPDX-License-Identifier: GPL-3.0-or-later
// Dashboard chart update cost: N ranks x S steps of every metric in the live series, the whole dashboard
// (four line charts with a line per rank, phase bars, heatmap, ranks table) redrawn offscreen at 1440 x 900.
//   live redraw: one new step for every rank arrives, then the 25 Hz tick redraws (decimation is
//   incremental); full redraw: the step window changes (zoom), every line is decimated again from its 100 000
//   points.
// Each redraw includes painting the page (QWidget::grab), so the figure is what a frame costs. Goals: a live
// redraw under 16 ms of GUI-thread CPU at 64 and 256 ranks (a 60 Hz frame; the dashboard redraws at 25 Hz),
// under 33 ms at 1024; a full redraw under 100 ms at 256; the series holding at most 300 MB per 256 ranks
// however many steps (measure 100 000 and 1 000 000 with --steps).
//
//   gui_chart_update [RANKS ...] [--steps S]     (default: 64 256, S = 100000)
#include <QApplication>
#include <QPixmap>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <random>
#include <string>
#include <vector>

#include "bench/bench_support.h"
#include "console/models/run_data.h"
#include "gui/pages/dashboard_page.h"

namespace {

using ringmaster::console::RunData;
using ringmaster::gui::DashboardPage;

double threadCpuMs() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

struct Figure {
  double wallMs = 0;
  double cpuMs = 0;
};

template <typename F>
Figure median(int repeats, F&& frame) {
  std::vector<double> wall, cpu;
  for (int i = 0; i < repeats; ++i) {
    const auto start = std::chrono::steady_clock::now();
    const double cpu0 = threadCpuMs();
    frame(i);
    cpu.push_back(threadCpuMs() - cpu0);
    wall.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(wall.begin(), wall.end());
  std::sort(cpu.begin(), cpu.end());
  return {wall[wall.size() / 2], cpu[cpu.size() / 2]};
}

void run(int ranks, uint64_t steps) {
  auto data = std::make_unique<RunData>();
  std::mt19937_64 random(42);
  const auto fillStart = std::chrono::steady_clock::now();
  for (uint64_t s = 0; s < steps; ++s) {
    for (const auto& record : ringmaster::bench::syntheticStep(ranks, s, 1, random)) data->ingest(record);
  }
  const double fillS = ringmaster::bench::secondsSince(fillStart);
  const double heldMb = static_cast<double>(data->series.bytesHeld()) / 1e6;

  DashboardPage page;
  page.resize(1440, 900);
  ringmaster::gui::RunHeading heading;
  heading.name = QStringLiteral("benchmark");
  heading.live = true;
  page.setRun(data.get(), heading);
  page.show();
  QApplication::processEvents();
  page.redraw();
  (void)page.grab();

  uint64_t next = steps;
  const Figure live = median(15, [&](int) {
    for (const auto& record : ringmaster::bench::syntheticStep(ranks, next, 1, random)) data->ingest(record);
    ++next;
    page.redraw();
    (void)page.grab();
  });
  const Figure full = median(7, [&](int i) {
    // A different window each time: nothing is cached.
    const uint64_t from = static_cast<uint64_t>(i) * 7;
    page.showSteps(from, next);
    (void)page.grab();
  });
  page.showSteps(0, 0);
  const Figure decimateOnly = median(7, [&](int i) {
    page.showSteps(static_cast<uint64_t>(i) * 5 + 1, next);  // showSteps redraws: decimation and models only
  });
  std::printf(
      "%4d ranks x %llu steps: live redraw %6.1f ms (cpu %6.1f), full redraw %7.1f ms (cpu %7.1f), "
      "of which decimation+models %6.1f ms; series hold %7.1f MB (%.2f bytes/value); filled in %.1f s\n",
      ranks, static_cast<unsigned long long>(steps), live.wallMs, live.cpuMs, full.wallMs, full.cpuMs,
      decimateOnly.cpuMs, heldMb,
      heldMb * 1e6 / (static_cast<double>(ranks) * static_cast<double>(steps) * 9), fillS);
  auto verdict = [](bool met) { return met ? "met" : "NOT met"; };
  if (ranks == 64) std::printf("     goal: live redraw under 16 ms CPU -> %s\n", verdict(live.cpuMs < 16));
  if (ranks == 256) {
    std::printf("     goals: live redraw under 16 ms CPU -> %s; full redraw under 100 ms -> %s\n",
                verdict(live.cpuMs < 16), verdict(full.wallMs < 100));
  }
  if (ranks == 1024) std::printf("     goal: live redraw under 33 ms CPU -> %s\n", verdict(live.cpuMs < 33));
  // The series' memory does not grow with the run (console/models/step_series.h): 300 MB for 256 ranks.
  const double budgetMb = 300.0 * ranks / 256;
  std::printf("     goal: series hold at most %.0f MB whatever the steps -> %s\n", budgetMb,
              verdict(heldMb <= budgetMb));
}

}  // namespace

int main(int argc, char** argv) {
  if (!qEnvironmentVariableIsSet("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  std::vector<int> ranks;
  uint64_t steps = 100'000;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--steps") == 0 && i + 1 < argc) {
      steps = std::stoull(argv[++i]);
    } else {
      ranks.push_back(std::atoi(argv[i]));
    }
  }
  if (ranks.empty()) ranks = {64, 256};
  std::printf("dashboard chart update, offscreen 1440x900, medians (wall and this thread's CPU time)\n");
  for (int n : ranks) run(n, steps);
  return 0;
}
