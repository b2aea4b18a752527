// SPDX-License-Identifier: GPL-3.0-or-later
// The ranks of a run as a table: host, state, steps, throughput, step time, compute and wait time (a
// straggler computes longer, the others wait for it), memory.
#pragma once

#include <QAbstractTableModel>
#include <vector>

#include "console/models/run_data.h"

namespace ringmaster::console {

class RanksModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { Rank, Host, State, Steps, Throughput, StepTime, Compute, Wait, Memory, ColumnCount };
  static constexpr int RankRole = Qt::UserRole;
  // True for a rank that ended badly by itself (non-zero exit, a signal, failed to start); not for those the
  // agent stopped after another failed.
  static constexpr int FailedRole = Qt::UserRole + 1;
  static bool failed(const RankRow& row);

  explicit RanksModel(QObject* parent = nullptr);

  // Updates rows in place when the ranks are the same, so selections survive live updates.
  void setRows(std::vector<RankRow> rows);
  const std::vector<RankRow>& rows() const { return rows_; }

  static QString stateText(const RankRow& row);
  // A rank the agent stopped, by why it was stopped ("stop requested": the user).
  static QString stoppedText(const std::string& why);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  std::vector<RankRow> rows_;
};

}  // namespace ringmaster::console
