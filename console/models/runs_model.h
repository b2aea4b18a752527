// SPDX-License-Identifier: GPL-3.0-or-later
// The run history as a table: name, status, engine, backend, ranks, start, duration, tags, and what its
// findings found.
#pragma once

#include <QAbstractTableModel>
#include <vector>

#include "history/run_store.h"

namespace ringmaster::console {

class RunsModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { Id, Name, Status, Engine, Backend, Ranks, Started, Duration, Tags, Findings, ColumnCount };
  // The raw value of a cell (numbers as numbers) for sorting; Qt::UserRole on any column gives the run id.
  static constexpr int SortRole = Qt::UserRole + 1;
  static constexpr int RunIdRole = Qt::UserRole;

  explicit RunsModel(QObject* parent = nullptr);

  void setRuns(std::vector<RunInfo> runs);
  const RunInfo* run(int row) const;
  int rowOf(int64_t runId) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

  // A run's status word as stored ("finished", "failed", …; console::statusName) in the interface's
  // language; a word it does not know as it is.
  static QString statusText(const QString& status);

 private:
  std::vector<RunInfo> runs_;
};

}  // namespace ringmaster::console
