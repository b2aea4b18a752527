// SPDX-License-Identifier: GPL-3.0-or-later
// Per-rank stdout/stderr lines, appended as they arrive, with a filter by rank and by text.
#pragma once

#include <QAbstractTableModel>
#include <QSortFilterProxyModel>
#include <deque>
#include <vector>

#include "ringmaster/v1/records.pb.h"

namespace ringmaster::console {

namespace v1 = ::ringmaster::v1;

class LogModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { Time, Rank, Stream, Text, ColumnCount };
  static constexpr int RankRole = Qt::UserRole;
  static constexpr int StreamRole = Qt::UserRole + 1;

  // Keeps the newest `capacity` lines; older ones leave from the top.
  explicit LogModel(size_t capacity = 200'000, QObject* parent = nullptr);

  void append(const std::vector<v1::LogLine>& lines);
  void clear();

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  size_t capacity_;
  std::deque<v1::LogLine> lines_;
};

// Shows one rank's lines (or all) that contain a text, case-insensitively.
class LogFilter : public QSortFilterProxyModel {
  Q_OBJECT

 public:
  explicit LogFilter(QObject* parent = nullptr);

  // -1 shows every rank.
  void setRank(int rank);
  void setText(const QString& text);
  int rank() const { return rank_; }

 protected:
  bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;

 private:
  int rank_ = -1;
  QString text_;
};

}  // namespace ringmaster::console
