// SPDX-License-Identifier: GPL-3.0-or-later
// Durations as people read them: measured figures in one unit ("350 ns", "4.1 ms", "2.5 s", "3.2 min",
// "9.1 d", never "1e+05 s"); how long a run took or has left in whole seconds ("3 min 5 s"); and points in
// time on a run's clock in one unit with as many decimals as their resolution asks ("65.012 s"). Every
// duration the console, the CLI, the window and the reports print is made here.
#pragma once

#include <string>

#include "common/sentence.h"

namespace ringmaster {

// `ns` nanoseconds in the largest unit (ns, µs, ms, s, min, h, d) that keeps the figure at 1 or more, with
// three significant digits (whole numbers from 100 on).
std::string formatDuration(double ns);

inline constexpr char kDurationContext[] = "ringmaster::Duration";

// How long a run took or has left, rounded to whole seconds as a clock would say it: "45 s", "3 min 5 s",
// "2 h 5 min" (a negative or unknown length counts as 0 s). A sentence of context kDurationContext, so that
// the window shows it in its own language.
Sentence elapsedSentence(double seconds);
// The same in English: toText(elapsedSentence(seconds)).
std::string formatElapsed(double seconds);

// A measured span as formatDuration says it, as a sentence of context kDurationContext: from a second up its
// unit is a word the window translates ("16.6 min", "16.6 分钟"), below it the SI unit every language shares
// ("8.1 ms"). Used wherever a span sits in words beside other text: a finding's figures and summaries.
Sentence spanSentence(double seconds);

// A unit for time points: ns, µs, ms or s, with a number of decimals.
struct TimeUnit {
  double ns = 1;
  const char* name = "ns";
  int decimals = 0;
};

// The unit for points up to `largestNs` (in magnitude) told apart to `resolutionNs`: the largest of ns, µs,
// ms and s that keeps the largest point at 1 or more, with the decimals the resolution needs. An axis formats
// all its ticks in one such unit, so "0 s" and "5 s" stand side by side, never "0 ns" and "5 s".
TimeUnit timeUnitFor(double largestNs, double resolutionNs);

// `ns` in `unit`: "65.012 s", "0 s" (never "-0").
std::string formatTimeIn(double ns, const TimeUnit& unit);

// A point in time told apart to `resolutionNs`: formatTimeIn(ns, timeUnitFor(|ns|, resolutionNs)).
std::string formatTimePoint(double ns, double resolutionNs);

}  // namespace ringmaster
