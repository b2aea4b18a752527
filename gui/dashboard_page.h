// SPDX-License-Identifier: GPL-3.0-or-later
// The live dashboard of one run: throughput (total and per rank), step phases per rank, all-reduce latency
// and bus bandwidth (per rank or per bucket), memory per rank, and a rank x step heatmap of compute time.
// Data changes only mark the page dirty; a ~25 Hz timer redraws what changed, so bursts of records coalesce.
#pragma once

#include <QElapsedTimer>
#include <QTimer>
#include <QWidget>

#include "console/ranks_model.h"
#include "console/run_data.h"

class QBarCategoryAxis;
class QChartView;
class QComboBox;
class QLabel;
class QPushButton;
class QStackedBarSeries;
class QTableView;
class QValueAxis;

namespace ringmaster::gui {

class HeatmapView;
class SeriesChart;

class DashboardPage : public QWidget {
  Q_OBJECT

 public:
  explicit DashboardPage(QWidget* parent = nullptr);

  // Shows `run` (not owned; nullptr shows nothing) with its hosts. `live` enables the stop and timeline
  // controls.
  void setRun(console::RunData* run, const QString& title, bool live);
  // The live run shown here ended: a title that says how, and nothing left to stop.
  void runEnded(const QString& title);
  // New records arrived in the run shown: redraw at the next tick.
  void markDirty() { dirty_ = true; }
  // Emphasises one rank in every chart; -1 for none.
  void highlightRank(int rank);
  // Shows steps [from, to) instead of the whole run (a finding's evidence); from == to shows everything
  // again.
  void showSteps(uint64_t from, uint64_t to);
  // Memory leak findings draw their trend (and the memory limit when it is near) on the memory chart.
  void setFindings(const std::vector<v1::Finding>& findings);
  // Redraws now; returns the points pushed to the charts (tests, benchmarks).
  qsizetype redraw();

  SeriesChart* throughputChart() const { return throughput_; }
  SeriesChart* latencyChart() const { return latency_; }
  SeriesChart* busbwChart() const { return busbw_; }
  SeriesChart* memoryChart() const { return memory_; }
  console::RanksModel* ranksModel() const { return ranksModel_; }
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
  void rebuildLines();
  void refreshPhases(uint64_t from, uint64_t to);
  void applyTheme();

  console::RunData* run_ = nullptr;
  bool dirty_ = false;
  int rankCount_ = -1;
  size_t bucketCount_ = 0;
  int highlighted_ = -1;
  uint64_t windowFrom_ = 0;
  uint64_t windowTo_ = 0;
  QTimer timer_;

  QLabel* title_;
  QLabel* hosts_;  // where the run ran: each host's cores, memory, GPUs and versions
  QComboBox* rankPicker_;
  QComboBox* allreduceBy_;
  QPushButton* stop_;
  QPushButton* timeline_;
  QTableView* ranksView_;
  console::RanksModel* ranksModel_;
  SeriesChart* throughput_;
  SeriesChart* latency_;
  SeriesChart* busbw_;
  SeriesChart* memory_;
  QChartView* phases_;
  QStackedBarSeries* phaseSeries_;
  QBarCategoryAxis* phaseRanks_;
  QValueAxis* phaseMs_;
  double phaseMax_ = 0;
  // Phase means over many steps move slowly: the bars follow at a few hertz, and at once when the window
  // changes.
  QElapsedTimer phasesRefreshed_;
  std::pair<uint64_t, uint64_t> phasesWindow_{0, 0};
  HeatmapView* heatmap_;
};

}  // namespace ringmaster::gui
