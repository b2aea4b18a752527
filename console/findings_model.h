// SPDX-License-Identifier: GPL-3.0-or-later
// What diagnosis found in a run: severity, kind, rank, host, since which step, and a one-line explanation.
#pragma once

#include <QAbstractTableModel>
#include <vector>

#include "ringmaster/v1/records.pb.h"

namespace ringmaster::console {

namespace v1 = ::ringmaster::v1;

class FindingsModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { Severity, Kind, Rank, Host, Since, Summary, ColumnCount };
  static constexpr int SeverityRole = Qt::UserRole;  // v1::Finding::Severity as int
  static constexpr int RankRole = Qt::UserRole + 1;

  explicit FindingsModel(QObject* parent = nullptr);

  // Most severe first, then by rank.
  void setFindings(std::vector<v1::Finding> findings);
  const v1::Finding* finding(int row) const;

  static QString kindText(v1::Finding::Kind kind);
  static QString severityText(v1::Finding::Severity severity);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  std::vector<v1::Finding> findings_;
};

}  // namespace ringmaster::console
