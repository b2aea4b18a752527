// SPDX-License-Identifier: GPL-3.0-or-later
// The live dashboard of one run: whether it is live or how it ended, its progress (steps of the known total,
// ETA while live), the ranks table, throughput (total and per rank), loss, step phases per rank (with the
// "other" time the phases do not cover), all-reduce latency and bus bandwidth (per rank or per bucket),
// memory per rank, and a rank x step heatmap of compute time. The step axes span the run's known step count.
// Data changes only mark the page dirty; a ~25 Hz timer redraws what changed, so bursts of records coalesce.
#pragma once

#include <QElapsedTimer>
#include <QTimer>
#include <QWidget>

#include "console/models/ranks_model.h"
#include "console/models/run_data.h"
#include "console/session/run_progress.h"

class QBarCategoryAxis;
class QCategoryAxis;
class QChartView;
class QComboBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QSplitter;
class QStackedBarSeries;
class QTableView;

namespace ringmaster::gui {

class HeatmapView;
class SeriesChart;

// Which run the page shows and where it stands.
struct RunHeading {
  int64_t runId = 0;
  QString name;
  QString status;           // the history's word ("running", "finished", "failed", "stopped", ...)
  bool live = false;        // launched from this console and still running: it can be stopped
  uint64_t totalSteps = 0;  // the steps the job will run; 0 when unknown (a user's program)
};

class DashboardPage : public QWidget {
  Q_OBJECT

 public:
  explicit DashboardPage(QWidget* parent = nullptr);

  // Shows `run` (not owned; nullptr shows nothing) with its hosts. A live heading enables the stop and
  // timeline controls.
  void setRun(console::RunData* run, const RunHeading& heading);
  // The live run shown here ended with `status`: a title that says how, and nothing left to stop.
  void runEnded(const QString& status);
  // Where a live run stands (the run session's progress, as `ringmaster run` prints it).
  void setProgress(const console::ProgressSnapshot& progress);
  // A run state in words: "finished", "failed", … (translated); unknown words as they are.
  static QString statusText(const QString& status);
  // New records arrived in the run shown: redraw at the next tick.
  void markDirty() { dirty_ = true; }
  // Emphasises one rank in every chart; -1 for none.
  void highlightRank(int rank);
  // Shows steps [from, to) instead of the whole run; without `to` (or to <= from), from `from` to wherever
  // the run's axis ends, which keeps following a live run (a finding's evidence). showSteps(0) shows
  // everything.
  void showSteps(uint64_t from, uint64_t to = 0);
  // Memory leak findings draw their trend (and the memory limit when it is near) on the memory chart.
  void setFindings(const std::vector<v1::Finding>& findings);
  // Redraws now; returns the points pushed to the charts (tests, benchmarks).
  qsizetype redraw();

  SeriesChart* throughputChart() const { return throughput_; }
  SeriesChart* latencyChart() const { return latency_; }
  SeriesChart* busbwChart() const { return busbw_; }
  SeriesChart* memoryChart() const { return memory_; }
  HeatmapView* heatmapView() const { return heatmap_; }
  SeriesChart* lossChart() const { return loss_; }
  QChartView* phaseChart() const { return phases_; }
  // The phase chart's bars: one set per phase (data, forward, backward, exposed comm, optimizer, other),
  // one value per rank.
  QStackedBarSeries* phaseSeries() const { return phaseSeries_; }
  console::RanksModel* ranksModel() const { return ranksModel_; }
  QTableView* ranksView() const { return ranksView_; }
  QString titleText() const;
  QString progressText() const;
  QProgressBar* progressBar() const { return progress_; }
  QPushButton* stopButton() const { return stop_; }
  // The x range the step charts show now.
  std::pair<double, double> stepRange() const;
  // "Record timeline": the main window keeps its state in step with what the ranks were told.
  QPushButton* timelineButton() const { return timeline_; }
  int highlightedRank() const { return highlighted_; }

 Q_SIGNALS:
  void rankSelected(int rank);
  void stopRequested();
  void timelineRecordingToggled(bool on);

 protected:
  void changeEvent(QEvent* event) override;

 private:
  // The title, hosts and progress above the charts, with the rank and all-reduce pickers and the buttons.
  void createRunControls();
  void createRanksTable();
  // The step charts and the heatmap.
  void createCharts();
  void createPhaseChart();
  void layOut();
  void connectSignals();
  void rebuildLines();
  // What the step charts say while they hold nothing: the run is live, or ended without that figure.
  void sayWhenEmpty();
  // A bar of the phase chart: the rank it stands for and its label.
  struct PhaseBar {
    int rank = 0;
    QString label;
    bool operator==(const PhaseBar& o) const { return rank == o.rank && label == o.label; }
  };
  // Every rank, or with many ranks the fastest, median and slowest over steps [from, to), then those named or
  // picked.
  std::vector<PhaseBar> phaseBarsFor(uint64_t from, uint64_t to) const;
  void selectPhaseBar();
  void refreshPhases(uint64_t from, uint64_t to);
  void showAccuracy();
  // With many ranks, the ranks' total throughput on the throughput chart's right axis.
  void showTotalThroughput(double x0, double x1);
  void applyTheme();
  void showTitle();
  // Steps done of the total from the run's own records (a stored run, or a live one that ended).
  void progressFromRecords();

  console::RunData* run_ = nullptr;
  RunHeading heading_;
  bool dirty_ = false;
  int rankCount_ = -1;
  size_t lossLines_ = 0;
  double totalTop_ = 0;        // the total throughput's axis, with many ranks
  size_t accuracyValues_ = 0;  // test accuracies logged when the loss chart last drew them
  int tableSizedFor_ = -1;     // the rank count the table's height was last fitted to
  size_t bucketCount_ = 0;
  int highlighted_ = -1;
  uint64_t windowFrom_ = 0;
  uint64_t windowTo_ = 0;
  QTimer timer_;

  QLabel* title_;
  QLabel* hosts_;  // where the run ran: each host's cores, memory, GPUs and versions
  QProgressBar* progress_;
  QLabel* progressText_;
  QComboBox* rankPicker_;
  QComboBox* allreduceBy_;
  QPushButton* stop_;
  QPushButton* timeline_;
  QSplitter* split_;  // the ranks table above the charts
  QTableView* ranksView_;
  console::RanksModel* ranksModel_;
  SeriesChart* throughput_;
  SeriesChart* latency_;
  SeriesChart* busbw_;
  SeriesChart* memory_;
  SeriesChart* loss_;
  QChartView* phases_;
  QStackedBarSeries* phaseSeries_;
  QBarCategoryAxis* phaseRanks_;
  QCategoryAxis* phaseMs_;
  double phaseMax_ = 0;
  std::vector<PhaseBar> phaseBars_;
  std::vector<int> namedRanks_;  // ranks the findings name
  // Phase means over many steps move slowly: the bars follow at a few hertz, and at once when the window
  // changes.
  QElapsedTimer phasesRefreshed_;
  std::pair<uint64_t, uint64_t> phasesWindow_{0, 0};
  HeatmapView* heatmap_;
};

}  // namespace ringmaster::gui
