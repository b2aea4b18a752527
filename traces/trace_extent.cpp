// SPDX-License-Identifier: GPL-3.0-or-later
#include "traces/trace_extent.h"

#include <algorithm>

#include "diagnosis/advice.h"
#include "diagnosis/duration_text.h"
#include "diagnosis/evidence_keys.h"
#include "diagnosis/finding.h"
#include "diagnosis/summary_text.h"

namespace ringmaster {

int64_t TraceExtent::plausibleEndNs() const {
  constexpr int64_t kGraceNs = 1'000'000'000;
  const int64_t startSpan = startSpanNs();
  // Saturate: a trace whose starts span half the int64 range has no implausible ends.
  if (startSpan > std::numeric_limits<int64_t>::max() / 4) return std::numeric_limits<int64_t>::max();
  const int64_t allowed = std::max(kGraceNs, startSpan);
  if (lastStartNs_ > std::numeric_limits<int64_t>::max() - allowed)
    return std::numeric_limits<int64_t>::max();
  return lastStartNs_ + allowed;
}

std::optional<v1::Finding> clipImplausibleDurations(RunStore& store, int64_t runId,
                                                    const TraceExtent& extent) {
  if (!extent.anyImplausible()) return std::nullopt;
  const auto clipped = store.clipTimelineEnds(runId, extent.plausibleEndNs());
  if (clipped.events == 0) return std::nullopt;
  v1::Finding f = diagnosis::makeFinding(v1::Finding::KIND_UNSPECIFIED, v1::Finding::SEVERITY_INFO, -1, "", 0,
                                         "implausible durations");
  diagnosis::setSummary(
      f, diagnosis::say(clipped.events == 1 ? diagnosis::text::kImplausibleDuration
                                            : diagnosis::text::kImplausibleDurations,
                        {clipped.events, formatDuration(static_cast<double>(clipped.longestNs)),
                         formatDuration(static_cast<double>(extent.startSpanNs()))}));
  (*f.mutable_evidence())[diagnosis::evidence::kClippedEvents] = static_cast<double>(clipped.events);
  (*f.mutable_evidence())[diagnosis::evidence::kLongestRecordedS] =
      static_cast<double>(clipped.longestNs) / 1e9;
  diagnosis::addAdvice(f);
  return f;
}

}  // namespace ringmaster
