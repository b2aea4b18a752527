// SPDX-License-Identifier: GPL-3.0-or-later
// The delta table of a comparison: one row per metric (throughput, step time p50/p95, phases, bus bandwidth,
// memory, ...), the baseline's value, then for every other run its value and its difference to the baseline
// with the bootstrap 95% confidence interval where the comparison has one (diagnosis/comparison.h).
#pragma once

#include <QAbstractTableModel>
#include <vector>

#include "diagnosis/comparison.h"

namespace ringmaster::console {

class ComparisonModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  // +1 when the difference is better for the user, -1 when worse, 0 when its interval holds no difference.
  static constexpr int VerdictRole = Qt::UserRole;

  explicit ComparisonModel(QObject* parent = nullptr);

  // Each comparison is one run against the same baseline (compareRuns(base, other)).
  void setComparisons(std::vector<RunComparison> comparisons);
  const std::vector<RunComparison>& comparisons() const { return comparisons_; }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

  // "+12.3 % [+9.1, +15.2]": a relative difference and its interval.
  static QString formatDelta(const MetricDelta& delta);

 private:
  std::vector<RunComparison> comparisons_;
};

}  // namespace ringmaster::console
