// SPDX-License-Identifier: GPL-3.0-or-later
// Runs side by side: pick two or more stored runs; throughput and step time overlaid, each run's per-rank
// phase breakdown next to the others', and the delta table with confidence intervals.
#pragma once

#include <QWidget>
#include <memory>
#include <vector>

#include "console/models/comparison_model.h"
#include "console/models/runs_model.h"
#include "console/models/step_series.h"

class QChartView;
class QLabel;
class QListWidget;
class QListWidgetItem;
class QPushButton;
class QTableView;

namespace ringmaster::console {
class StoreAccess;
}  // namespace ringmaster::console

namespace ringmaster::gui {

class SeriesChart;

class ComparePage : public QWidget {
  Q_OBJECT

 public:
  ComparePage(console::RunsModel* runs, console::StoreAccess* store, QWidget* parent = nullptr);

  // Loads the runs (off the GUI thread) and compares them, the first as the baseline; compared() tells when.
  void compare(const std::vector<int64_t>& runIds);
  console::ComparisonModel* model() const { return model_; }
  QListWidget* runList() const { return list_; }
  QPushButton* compareButton() const { return compareButton_; }
  // The ticked runs in the order they were ticked: the first is the baseline.
  const std::vector<int64_t>& ticked() const { return ticked_; }
  // The verdict of the last comparison, as the page shows it above the charts.
  QString verdictText() const;

 Q_SIGNALS:
  void compared();

 private:
  void rebuildList();
  void tickChanged(QListWidgetItem* item);
  void markBaseline();
  void showComparison(std::vector<RunMetrics> runs);

  console::RunsModel* runs_;
  console::StoreAccess* store_;
  QListWidget* list_;
  QPushButton* compareButton_;
  QLabel* status_;
  QLabel* verdict_;
  std::vector<int64_t> ticked_;
  SeriesChart* throughput_;
  SeriesChart* stepTime_;
  QChartView* phases_;
  QTableView* table_;
  console::ComparisonModel* model_;
  // Per run: throughput and step time per step, as the charts' lines.
  std::vector<std::unique_ptr<console::StepSeries>> lines_;
};

}  // namespace ringmaster::gui
