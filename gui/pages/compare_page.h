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

 Q_SIGNALS:
  void compared();

 private:
  void rebuildList();
  void showComparison(std::vector<RunMetrics> runs);

  console::RunsModel* runs_;
  console::StoreAccess* store_;
  QListWidget* list_;
  QLabel* status_;
  SeriesChart* throughput_;
  SeriesChart* stepTime_;
  QChartView* phases_;
  QTableView* table_;
  console::ComparisonModel* model_;
  // Per run: throughput and step time per step, as the charts' lines.
  std::vector<std::unique_ptr<console::StepSeries>> lines_;
};

}  // namespace ringmaster::gui
