// SPDX-License-Identifier: GPL-3.0-or-later
// Everything the views show about one run, live or reopened from the store: the charted series, the timeline,
// logs, findings and the ranks' states. A plain value built on any thread and handed to the GUI whole.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "console/hosts/host_facts.h"
#include "console/models/live_series.h"
#include "console/models/timeline_model.h"
#include "history/run_store.h"

namespace ringmaster::console {

// The test accuracy the ranks logged, by step: Ringmaster's ranks after each epoch ("test_accuracy"), a
// user's program whenever it logs "accuracy" or "test_accuracy". The Dashboard draws it beside the loss and
// the report charts it.
class LoggedAccuracy {
 public:
  // Takes `scalar` when it is a test accuracy (by its name) with a finite value; passes over the others.
  void add(const v1::Scalar& scalar);
  // Values taken so far (a new one changes the picture even for a step already shown).
  size_t values() const { return values_; }
  // In percent by step, the mean over the ranks that logged it. Values all within [0, 1] are fractions
  // (Ringmaster's, and most programs'); a program logging any value above 1 logs percents.
  std::vector<std::pair<uint64_t, double>> percent() const;

 private:
  struct Sum {
    double sum = 0;
    int ranks = 0;
  };
  std::map<uint64_t, Sum> byStep_;
  size_t values_ = 0;
};

// What the ranks table shows about one rank.
struct RankRow {
  int rank = 0;
  std::string host;
  v1::RankState::State state = v1::RankState::STATE_UNSPECIFIED;
  int exitCode = 0;
  int signal = 0;
  uint64_t steps = 0;           // steps reported so far
  double samplesPerS = 0;       // samples / step time over the window's steps; NaN: not measured
  double stepMs = 0;            // mean step time over the window's steps
  double rssMb = 0;             // latest resident memory; NaN: not measured
  double computeMs = 0;         // mean forward + backward over the window's steps: where a straggler shows
  double waitMs = 0;            // mean exposed communication wait over the window's steps: waiting for others
  bool stoppedByAgent = false;  // ended by the agent (a stop, or another rank failed first)
  bool imported = false;        // from traces (source import:…): no agent ever reported its state
  std::string stopWhy;  // why the agent stopped it: "stop requested", "rank 1 exited with code 1", …
};

struct RunData {
  std::optional<RunInfo> info;  // set for stored runs
  LiveSeries series;
  TimelineModel timeline;
  TimelineExtent timelineExtent;  // a stored run's whole timeline, for reading more of it (loadTimeline)
  std::vector<v1::LogLine> logs;
  std::vector<v1::Finding>
      findings;  // the run session's diagnosis (live), or the stored or replayed findings
  std::map<int, v1::RankState> rankStates;
  std::map<std::string, HostFacts> hosts;  // what each host told about itself
  std::map<int, v1::RankSummary> summaries;
  LoggedAccuracy accuracy;

  // Files one record where its view needs it (findings come from the diagnosis, not from here).
  void ingest(const v1::Record& record);
  void ingest(const v1::RecordBatch& batch);

  // One row per rank seen (states, steps, throughput and memory), sorted by rank.
  // A live run's table shows its last steps; an ended run's the whole run, as its report does.
  enum class RankWindow { LastSteps, WholeRun };
  std::vector<RankRow> rankRows(RankWindow window = RankWindow::LastSteps) const;
};

// A stored run's timeline of more events than this is read a range at a time: opening the run reads its
// beginning (a window of about this many events), and the Timeline page reads what it shows, with a margin,
// as it zooms and pans (loadTimeline).
inline constexpr int64_t kTimelineEventsAtOnce = 250'000;

// Reads a stored run: run info, per-rank series, timeline (whole, or the window at its beginning when it has
// more than `timelineEventsAtOnce` events), logs, findings (stored, else replayed), ranks and hosts. Throws
// StoreError. Slow for big runs: call it off the GUI thread.
RunData loadRun(const RunStore& store, int64_t runId, int64_t timelineEventsAtOnce = kTimelineEventsAtOnce);

// The events of a run's timeline that overlap [fromNs, toNs), with every lane of the run, as a model with
// that window; the whole timeline, without a window, where the range covers `extent` (the run's, from
// RunStore::timelineExtent).
TimelineModel loadTimeline(const RunStore& store, int64_t runId, const TimelineExtent& extent, int64_t fromNs,
                           int64_t toNs);

}  // namespace ringmaster::console
