// SPDX-License-Identifier: GPL-3.0-or-later
#include "console/models/log_model.h"

#include <QDateTime>

namespace ringmaster::console {

LogModel::LogModel(size_t capacity, QObject* parent) : QAbstractTableModel(parent), capacity_(capacity) {}

void LogModel::append(const std::vector<v1::LogLine>& lines) {
  if (lines.empty()) return;
  const size_t incoming = std::min(lines.size(), capacity_);
  const size_t overflow = lines_.size() + incoming > capacity_ ? lines_.size() + incoming - capacity_ : 0;
  if (overflow > 0) {
    beginRemoveRows({}, 0, static_cast<int>(overflow) - 1);
    lines_.erase(lines_.begin(), lines_.begin() + static_cast<std::ptrdiff_t>(overflow));
    endRemoveRows();
  }
  const int first = static_cast<int>(lines_.size());
  beginInsertRows({}, first, first + static_cast<int>(incoming) - 1);
  lines_.insert(lines_.end(), lines.end() - static_cast<std::ptrdiff_t>(incoming), lines.end());
  endInsertRows();
}

void LogModel::clear() {
  beginResetModel();
  lines_.clear();
  endResetModel();
}

int LogModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(lines_.size());
}

int LogModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant LogModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const v1::LogLine& line = lines_[static_cast<size_t>(index.row())];
  if (role == RankRole) return line.rank();
  if (role == StreamRole) return static_cast<int>(line.stream());
  if (role != Qt::DisplayRole) return {};
  switch (index.column()) {
    case Time:
      return QDateTime::fromMSecsSinceEpoch(line.time_unix_ns() / 1'000'000)
          .toString(QStringLiteral("HH:mm:ss.zzz"));
    case Rank:
      return line.rank();
    case Stream:
      switch (line.stream()) {
        case v1::LogLine::STREAM_STDERR:
          return QStringLiteral("stderr");
        case v1::LogLine::STREAM_AGENT:
          return QStringLiteral("agent");
        default:
          return QStringLiteral("stdout");
      }
    case Text:
      return QString::fromStdString(line.text());
    default:
      return {};
  }
}

QVariant LogModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case Time:
      return tr("Time");
    case Rank:
      return tr("Rank");
    case Stream:
      return tr("Stream");
    case Text:
      return tr("Line");
    default:
      return {};
  }
}

LogFilter::LogFilter(QObject* parent) : QSortFilterProxyModel(parent) {}

void LogFilter::setRank(int rank) {
  rank_ = rank;
  invalidateFilter();
}

void LogFilter::setText(const QString& text) {
  text_ = text;
  invalidateFilter();
}

bool LogFilter::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const {
  const QModelIndex rankIndex = sourceModel()->index(sourceRow, LogModel::Rank, sourceParent);
  if (rank_ >= 0 && rankIndex.data(LogModel::RankRole).toInt() != rank_) return false;
  if (text_.isEmpty()) return true;
  const QString line = sourceModel()->index(sourceRow, LogModel::Text, sourceParent).data().toString();
  return line.contains(text_, Qt::CaseInsensitive);
}

}  // namespace ringmaster::console
