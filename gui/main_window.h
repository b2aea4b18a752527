// SPDX-License-Identifier: GPL-3.0-or-later
// The console's window: pages Hosts, Launch, Dashboard, Timeline, Findings, Compare, Logs and Runs over one
// shown run (live or from the store). Selecting a rank anywhere highlights it everywhere.
#pragma once

#include <QMainWindow>
#include <QPointer>
#include <QTabWidget>
#include <chrono>
#include <map>
#include <memory>

#include "console/hosts/host_registry.h"
#include "console/models/findings_model.h"
#include "console/models/hosts_model.h"
#include "console/models/log_model.h"
#include "console/models/run_data.h"
#include "console/models/runs_model.h"
#include "gui/dialogs/tune_dialog.h"
#include "gui/host_watch.h"
#include "gui/live_run.h"
#include "gui/pages/dashboard_page.h"
#include "gui/run_history.h"
#include "gui/shown_run.h"

class QAction;
class QLabel;
class QAbstractButton;

namespace ringmaster::console {
class StoreAccess;
}  // namespace ringmaster::console

namespace ringmaster::gui {

class ComparePage;
class FindingsPage;
class HostsPage;
class LaunchPage;
class LogsPage;
class RunsPage;
class TimelinePage;

struct MainWindowOptions {
  QString storePath;   // empty: the user's default run history
  QString workerPath;  // empty: ringmaster-worker beside this program
  QString stateDir;    // empty: the embedded agent's default
  QString agentPath;   // ringmaster-agent as a Slurm job's nodes run it; empty: the one beside this program
  // A stored run's timeline of more events is read a range at a time.
  int64_t timelineEventsAtOnce = console::kTimelineEventsAtOnce;
};

class MainWindow : public QMainWindow {
  Q_OBJECT

 public:
  enum Page { Hosts, Launch, Dashboard, Timeline, Findings, Compare, Logs, Runs, PageCount };

  explicit MainWindow(MainWindowOptions options = {}, QWidget* parent = nullptr);
  ~MainWindow() override;

  // Opens a stored run in every view (loaded off the GUI thread) and shows `page`; runShown() tells when it
  // is there.
  void openRun(int64_t runId, Page page = Dashboard);
  // Launches `spec` and shows it live: on its hosts (reached as the Hosts page connects to them), or on this
  // machine through the embedded agent when it names none.
  void launch(const v1::JobSpec& spec);
  // Launches a plan made elsewhere (`ringmaster-gui --run -- <flags of ringmaster run>`) and shows it live.
  void launch(const console::LaunchPlan& plan, const LiveRunFiles& files = {});
  // Submits a job to Slurm (the flags of `ringmaster run --slurm`), shows its queue state while it waits and
  // then the run live, as for any launch.
  void submitToSlurm(const console::RunFlags& flags);
  // Asks Slurm for its partitions (sinfo, off the GUI thread, a few seconds at most); slurmChecked() tells
  // when the Hosts page shows them (none where there is no Slurm).
  void refreshSlurm() { hostWatch_->refreshSlurm(); }
  // The Hosts page's list (console::HostRegistry): add a remote agent, check a row again, re-check interval.
  void addHost(const console::HostEntry& entry) { hostWatch_->registry()->addHost(entry); }
  void checkHost(int row) { hostWatch_->registry()->checkHost(row); }
  void setHostWatchInterval(std::chrono::milliseconds interval) {
    hostWatch_->registry()->setWatchInterval(interval);
  }
  // Emphasises `rank` in every view; -1 for none.
  void selectRank(int rank) { shown_->selectRank(rank); }
  // Renders every page to DIR/<page>.png; returns the files written.
  QStringList saveScreenshots(const QString& dir, const QString& suffix = {});
  void showPage(Page page) { pages_->setCurrentIndex(page); }
  // Imports trace files as one run (per-rank PyTorch profiler traces: one rank per file; or a folder of
  // them; or one Horovod timeline or Chrome trace) into the store and opens it on the Timeline page, since a
  // trace is mostly timeline.
  void importTraces(const QStringList& paths) { history_->importTraces(paths); }
  void importTimeline(const QString& path) { importTraces({path}); }

  // For tests and the screenshot tool.
  QTabWidget* pages() const { return pages_; }
  HostsPage* hostsPage() const { return hosts_; }
  console::HostsModel* hostsModel() const { return hostWatch_->model(); }
  console::SlurmPartitionsModel* slurmModel() const { return hostWatch_->slurmModel(); }
  LaunchPage* launchPage() const { return launch_; }
  DashboardPage* dashboardPage() const { return dashboard_; }
  TimelinePage* timelinePage() const { return timeline_; }
  FindingsPage* findingsPage() const { return findings_; }
  ComparePage* comparePage() const { return compare_; }
  RunsPage* runsPage() const { return runs_; }
  LogsPage* logsPage() const { return logs_; }
  console::RunsModel* runsModel() const { return history_->model(); }
  console::FindingsModel* findingsModel() const { return findingsModel_; }
  console::LogModel* logModel() const { return logModel_; }
  console::RunData* shownRun() const { return shown_->data(); }
  LiveRun* liveRun() const { return live_.get(); }
  // The Launch page's "Tune…" dialog, once opened.
  TuneDialog* tuneDialog() const { return tune_.data(); }
  console::StoreAccess* store() const { return store_; }
  int selectedRank() const { return shown_->selectedRank(); }
  // The dashboard's "Record timeline": starts and stops timeline recording on every rank of the live run.
  QAbstractButton* timelineButton() const;
  QString bannerText() const;
  void refreshRuns() { history_->refresh(); }
  // How often the Runs and Compare pages look whether the history changed (a run started from the CLI).
  void setStoreWatchInterval(std::chrono::milliseconds interval) { history_->setWatchInterval(interval); }

 Q_SIGNALS:
  void runShown(int64_t runId);
  // The Timeline page holds another range of a long stored run's timeline, read as it zoomed or panned.
  void timelineRead();
  void runsRefreshed();
  void liveRunEnded(const QString& status);
  void problem(const QString& message);
  void bannerChanged(const QString& text);
  // A check of the host in `row` ended (its state is Connected or Unreachable).
  void hostChecked(int row);
  // refreshSlurm() has its answer.
  void slurmChecked();

 protected:
  void closeEvent(QCloseEvent* event) override;

 private:
  // Shows the new live_ run as it starts, runs and ends, and starts it.
  void followLiveRun(const v1::JobSpec& spec);
  void setBanner(const QString& text, bool warning = false);
  void updateLiveControls();
  void restoreSettings();
  // Opens the Tune dialog for the Launch form's job (console::TuneSession over `flags`).
  void openTune(console::RunFlags flags);
  void saveSettings();
  // The menu bar: File (import, export, quit), View (the pages), Language and Help.
  void createMenus();
  // Keeps `language` for the next start, and says so.
  void chooseLanguage(const QString& language);

  MainWindowOptions options_;
  QAction* exportReport_ = nullptr;
  QTabWidget* pages_;
  QLabel* banner_;
  console::StoreAccess* store_;
  QPointer<TuneDialog> tune_;
  HostWatch* hostWatch_;
  console::LogModel* logModel_;
  RunHistory* history_;
  console::FindingsModel* findingsModel_;
  HostsPage* hosts_;
  LaunchPage* launch_;
  DashboardPage* dashboard_;
  TimelinePage* timeline_;
  FindingsPage* findings_;
  ComparePage* compare_;
  LogsPage* logs_;
  RunsPage* runs_;
  ShownRun* shown_;
  std::unique_ptr<LiveRun> live_;
};

}  // namespace ringmaster::gui
