// SPDX-License-Identifier: GPL-3.0-or-later
// The run the window's pages show, live or from the store: it puts the run in the Dashboard, Timeline,
// Findings and Logs pages, adds a live run's records as they come, reads more of a long stored run's
// timeline as the Timeline page needs it (TimelineReader), and emphasises one rank everywhere.
#pragma once

#include <QObject>
#include <memory>
#include <vector>

#include "console/models/run_data.h"
#include "console/session/run_progress.h"
#include "diagnosis/advice.h"

namespace ringmaster::console {
class FindingsModel;
class LogModel;
class StoreAccess;
}  // namespace ringmaster::console

namespace ringmaster::gui {

class DashboardPage;
class LogsPage;
class TimelinePage;
class TimelineReader;
struct RunHeading;

class ShownRun : public QObject {
  Q_OBJECT

 public:
  // The pages and models that show the run.
  struct Views {
    DashboardPage* dashboard;
    TimelinePage* timeline;
    LogsPage* logs;
    console::LogModel* logModel;
    console::FindingsModel* findingsModel;
  };
  ShownRun(console::StoreAccess* store, const Views& views, QObject* parent = nullptr);
  ~ShownRun() override;

  console::RunData* data() const { return run_.get(); }
  int64_t runId() const { return runId_; }
  int selectedRank() const { return selectedRank_; }

  // Shows `data` in every view, in place of the run shown before.
  void show(std::unique_ptr<console::RunData> data, const RunHeading& heading);
  // A live run's records and the session's findings; `progress` is where the run stands now.
  void ingest(const std::vector<v1::Record>& records, const std::vector<v1::Finding>& findings,
              const console::ProgressSnapshot& progress);
  // Emphasises `rank` in every view; -1 for none.
  void selectRank(int rank);
  // The finding's rank emphasised on one page, with its steps: in the charts (from a little before it to the
  // run's end, still following a live run), on the timeline (a few steps of that rank), or the rank's logs.
  void showOnDashboard(const v1::Finding& finding);
  void showInTimeline(const v1::Finding& finding);
  void showLogs(const v1::Finding& finding);

 Q_SIGNALS:
  void shown(int64_t runId);
  // The Timeline page holds another range of a long stored run's timeline.
  void timelineRead();
  void timelineReadFailed(const QString& message);

 private:
  Views views_;
  TimelineReader* reader_;
  std::unique_ptr<console::RunData> run_;
  int64_t runId_ = 0;
  diagnosis::AdviceReader adviceReader_;  // who the run's advice is for: the window, about this run
  int selectedRank_ = -1;
  size_t timelineEventsShown_ = 0;
};

}  // namespace ringmaster::gui
