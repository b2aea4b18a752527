// SPDX-License-Identifier: GPL-3.0-or-later
// The span in which an imported trace's events start, and the durations no trace can have.
//
// Some trace writers record absurd durations (a patched Horovod wrote events lasting about nine days within
// one second of activity); drawn as recorded they squeeze the real activity into an invisible sliver. An
// event is implausible when it ends later after the trace's last start than the whole trace took to start its
// events, with at least a second of grace. Such events are clipped where the plausible ones end, keep their
// recorded duration as an arg, and the import says so in a finding.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>

#include "history/run_store.h"

namespace ringmaster {

class TraceExtent {
 public:
  void observe(const v1::TimelineEvent& event) {
    firstStartNs_ = std::min(firstStartNs_, event.start_ns());
    lastStartNs_ = std::max(lastStartNs_, event.start_ns());
    lastEndNs_ = std::max(lastEndNs_, event.end_ns());
  }
  bool empty() const { return lastStartNs_ < firstStartNs_; }
  int64_t startSpanNs() const { return empty() ? 0 : lastStartNs_ - firstStartNs_; }
  // Events ending after this are implausible.
  int64_t plausibleEndNs() const;
  bool anyImplausible() const { return !empty() && lastEndNs_ > plausibleEndNs(); }

 private:
  int64_t firstStartNs_ = std::numeric_limits<int64_t>::max();
  int64_t lastStartNs_ = std::numeric_limits<int64_t>::min();
  int64_t lastEndNs_ = std::numeric_limits<int64_t>::min();
};

// Clips the stored run's implausible events (see above); a finding saying how many and how long, when any
// were.
std::optional<v1::Finding> clipImplausibleDurations(RunStore& store, int64_t runId,
                                                    const TraceExtent& extent);

}  // namespace ringmaster
