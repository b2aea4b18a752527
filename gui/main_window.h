// SPDX-License-Identifier: GPL-3.0-or-later
// The console's window: pages Hosts, Launch, Dashboard, Timeline, Findings, Compare, Logs and Runs over one
// shown run (live or from the store). Selecting a rank anywhere highlights it everywhere.
#pragma once

#include <QMainWindow>

#include <memory>

#include "console/findings_model.h"
#include "console/hosts_model.h"
#include "console/log_model.h"
#include "console/run_data.h"
#include "console/runs_model.h"

class QLabel;
class QTabWidget;

namespace ringmaster::gui {

class ComparePage;
class DashboardPage;
class FindingsPage;
class HostsPage;
class LaunchPage;
class LiveRun;
class LogsPage;
class RunsPage;
class StoreAccess;
class TimelinePage;

struct MainWindowOptions {
  QString storePath;   // empty: the user's default run history
  QString workerPath;  // empty: ringmaster-worker beside this program
  QString stateDir;    // empty: the embedded agent's default
};

class MainWindow : public QMainWindow {
  Q_OBJECT

 public:
  enum Page { Hosts, Launch, Dashboard, Timeline, Findings, Compare, Logs, Runs, PageCount };

  explicit MainWindow(MainWindowOptions options = {}, QWidget* parent = nullptr);
  ~MainWindow() override;

  // Opens a stored run in every view (loaded off the GUI thread); runShown() tells when it is there.
  void openRun(int64_t runId);
  // Launches `spec` on this machine (the embedded agent) and shows it live.
  void launch(const v1::JobSpec& spec);
  // Emphasises `rank` in every view; -1 for none.
  void selectRank(int rank);
  // Renders every page to DIR/<page>.png; returns the files written.
  QStringList saveScreenshots(const QString& dir, const QString& suffix = {});
  void showPage(Page page);
  // Imports a Horovod timeline or Chrome trace into the store and opens it.
  void importTimeline(const QString& path);

  // For tests and the screenshot tool.
  QTabWidget* pages() const { return pages_; }
  LaunchPage* launchPage() const { return launch_; }
  DashboardPage* dashboardPage() const { return dashboard_; }
  TimelinePage* timelinePage() const { return timeline_; }
  FindingsPage* findingsPage() const { return findings_; }
  ComparePage* comparePage() const { return compare_; }
  RunsPage* runsPage() const { return runs_; }
  console::RunsModel* runsModel() const { return runsModel_; }
  console::FindingsModel* findingsModel() const { return findingsModel_; }
  console::LogModel* logModel() const { return logModel_; }
  console::RunData* shownRun() const { return run_.get(); }
  LiveRun* liveRun() const { return live_.get(); }
  StoreAccess* store() const { return store_; }
  int selectedRank() const { return selectedRank_; }
  void refreshRuns();

 Q_SIGNALS:
  void runShown(int64_t runId);
  void runsRefreshed();
  void liveRunEnded(const QString& status);
  void problem(const QString& message);

 protected:
  void closeEvent(QCloseEvent* event) override;

 private:
  void showRunData(std::unique_ptr<console::RunData> data, const QString& title, bool live, int64_t runId);
  void ingestLive(const std::vector<v1::Record>& records, const std::vector<v1::Finding>& findings);
  void showEvidence(const v1::Finding& finding);
  void setBanner(const QString& text, bool warning = false);
  void checkLocalHost();
  void restoreSettings();
  void saveSettings();

  MainWindowOptions options_;
  QTabWidget* pages_;
  QLabel* banner_;
  StoreAccess* store_;
  console::HostsModel* hostsModel_;
  console::LogModel* logModel_;
  console::RunsModel* runsModel_;
  console::FindingsModel* findingsModel_;
  HostsPage* hosts_;
  LaunchPage* launch_;
  DashboardPage* dashboard_;
  TimelinePage* timeline_;
  FindingsPage* findings_;
  ComparePage* compare_;
  LogsPage* logs_;
  RunsPage* runs_;
  std::unique_ptr<console::RunData> run_;
  int64_t shownRunId_ = 0;
  std::unique_ptr<LiveRun> live_;
  int selectedRank_ = -1;
  size_t timelineEventsShown_ = 0;
};

}  // namespace ringmaster::gui
