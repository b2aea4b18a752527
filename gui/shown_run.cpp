// SPDX-License-Identifier: GPL-3.0-or-later
#include "gui/shown_run.h"

#include <algorithm>

#include "common/job_spec.h"
#include "console/models/findings_model.h"
#include "console/models/log_model.h"
#include "gui/pages/dashboard_page.h"
#include "gui/pages/logs_page.h"
#include "gui/pages/timeline_page.h"
#include "gui/timeline_reader.h"

namespace ringmaster::gui {
namespace {

// Resetting the findings model loses the user's selection: do it only when something changed.
bool sameFindings(const std::vector<v1::Finding>& a, const std::vector<v1::Finding>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].SerializeAsString() != b[i].SerializeAsString()) return false;
  }
  return true;
}

}  // namespace

ShownRun::ShownRun(console::StoreAccess* store, const Views& views, QObject* parent)
    : QObject(parent), views_(views), reader_(new TimelineReader(store, views.timeline, this)) {
  connect(reader_, &TimelineReader::read, this, [this] {
    timelineEventsShown_ = run_->timeline.eventCount();
    Q_EMIT timelineRead();
  });
  connect(reader_, &TimelineReader::failed, this, &ShownRun::timelineReadFailed);
}

ShownRun::~ShownRun() = default;

void ShownRun::show(std::unique_ptr<console::RunData> data, const RunHeading& heading) {
  const int64_t runId = heading.runId;
  // Views first let go of the old run, then it is replaced.
  views_.dashboard->setRun(nullptr, {});
  views_.timeline->setModel(nullptr);
  run_ = std::move(data);
  runId_ = runId;
  reader_->setRun(run_.get(), runId);
  views_.dashboard->setRun(run_.get(), heading);
  views_.timeline->setModel(&run_->timeline);
  timelineEventsShown_ = run_->timeline.eventCount();
  views_.logModel->clear();
  views_.logModel->append(run_->logs);
  views_.logs->setRankCount(run_->series.rankCount());
  // A stored run's advice fits its source (an imported trace names no flags of Ringmaster's engines).
  adviceReader_ = run_->info ? diagnosis::adviceReaderOf(run_->info->source, isUserProgram(run_->info->spec),
                                                         runId, false)
                             : diagnosis::AdviceReader{};
  views_.findingsModel->setFindings(run_->findings, adviceReader_);
  views_.dashboard->setFindings(run_->findings);
  selectRank(-1);
  Q_EMIT shown(runId);
}

void ShownRun::ingest(const std::vector<v1::Record>& records, const std::vector<v1::Finding>& findings,
                      const console::ProgressSnapshot& progress) {
  if (!run_) return;
  std::vector<v1::LogLine> lines;
  for (const v1::Record& r : records) {
    run_->ingest(r);
    if (r.has_log()) lines.push_back(r.log());
  }
  views_.logModel->append(lines);
  views_.logs->setRankCount(run_->series.rankCount());
  // The session's diagnosis is the list: it holds the detectors' findings and those that came as records.
  if (!sameFindings(findings, run_->findings)) {
    run_->findings = findings;
    views_.findingsModel->setFindings(findings, adviceReader_);
    views_.dashboard->setFindings(findings);
  }
  views_.dashboard->setProgress(progress);
  views_.dashboard->markDirty();
  if (run_->timeline.eventCount() != timelineEventsShown_) {
    timelineEventsShown_ = run_->timeline.eventCount();
    views_.timeline->modelChanged();
  }
}

void ShownRun::selectRank(int rank) {
  selectedRank_ = rank;
  views_.dashboard->highlightRank(rank);
  views_.timeline->highlightRank(rank);
  views_.logs->showRank(rank);
}

void ShownRun::showOnDashboard(const v1::Finding& finding) {
  views_.dashboard->highlightRank(finding.rank());
  // From a little before the finding's first step; the end is the run's, so a live run's charts keep going.
  const uint64_t since = finding.since_step();
  views_.dashboard->showSteps(since > 10 ? since - 10 : 0);
}

void ShownRun::showInTimeline(const v1::Finding& finding) {
  views_.timeline->highlightRank(finding.rank());
  if (!run_) return;
  // The steps from `since` of the finding's rank (a few steps, so the picture is readable).
  const uint64_t since = finding.since_step();
  const auto& tl = run_->timeline;
  int64_t t0 = INT64_MAX, t1 = INT64_MIN;
  for (int lane : tl.rankRows()) {
    if (finding.rank() >= 0 && tl.lane(lane).rank != finding.rank()) continue;
    for (const auto& e : tl.events(lane)) {
      if (e.step >= since && e.step < since + 3) {
        t0 = std::min(t0, e.startNs);
        t1 = std::max(t1, e.endNs);
      }
    }
  }
  if (t0 < t1) views_.timeline->showRange(t0, t1);
}

void ShownRun::showLogs(const v1::Finding& finding) {
  views_.logs->showRank(finding.rank());
}

}  // namespace ringmaster::gui
