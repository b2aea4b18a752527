// SPDX-License-Identifier: GPL-3.0-or-later
#include "console/models/comparison_model.h"

#include <cmath>

#include "console/models/translated.h"

namespace ringmaster::console {
namespace {

QString percent(double fraction) {
  return QStringLiteral("%1%2")
      .arg(fraction >= 0 ? QStringLiteral("+") : QString())
      .arg(fraction * 100, 0, 'f', 1);
}

}  // namespace

ComparisonModel::ComparisonModel(QObject* parent) : QAbstractTableModel(parent) {}

void ComparisonModel::setComparisons(std::vector<RunComparison> comparisons) {
  beginResetModel();
  comparisons_ = std::move(comparisons);
  endResetModel();
}

int ComparisonModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() || comparisons_.empty() ? 0 : static_cast<int>(comparisons_.front().deltas.size());
}

int ComparisonModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() || comparisons_.empty() ? 0 : 2 + 2 * static_cast<int>(comparisons_.size());
}

QString ComparisonModel::formatDelta(const MetricDelta& d) {
  if (!isEmpty(d.missing)) return tr("not measured");
  if (std::isnan(d.relative)) return QString::fromStdString(d.changeText());
  if (!d.interval) return percent(d.relative) + QStringLiteral(" %");
  return QStringLiteral("%1 % [%2, %3]")
      .arg(percent(d.relative), percent(d.interval->lower), percent(d.interval->upper));
}

QVariant ComparisonModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount() || index.column() >= columnCount()) return {};
  const size_t row = static_cast<size_t>(index.row());
  const int column = index.column();
  const MetricDelta& base = comparisons_.front().deltas[row];
  if (role == Qt::TextAlignmentRole && column > 0) {
    return QVariant::fromValue(Qt::Alignment(Qt::AlignRight | Qt::AlignVCenter));
  }
  if (column == 0) {
    if (role != Qt::DisplayRole) return {};
    return base.unit.empty() ? QString::fromStdString(base.metric)
                             : QStringLiteral("%1 (%2)").arg(QString::fromStdString(base.metric),
                                                             QString::fromStdString(base.unit));
  }
  if (column == 1)
    return role == Qt::DisplayRole ? QVariant(QString::fromStdString(figureText(base.base))) : QVariant();
  const RunComparison& c = comparisons_[static_cast<size_t>(column - 2) / 2];
  if (row >= c.deltas.size()) return {};
  const MetricDelta& d = c.deltas[row];
  const bool isDelta = (column - 2) % 2 == 1;
  if (!isDelta)
    return role == Qt::DisplayRole ? QVariant(QString::fromStdString(figureText(d.other))) : QVariant();
  if (role == Qt::DisplayRole) return formatDelta(d);
  if (role == Qt::ToolTipRole) return translated(isEmpty(d.missing) ? c.verdict : d.missing);
  if (role == VerdictRole) return d.verdict();
  return {};
}

QVariant ComparisonModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole || section >= columnCount()) return {};
  if (section == 0) return tr("Metric");
  const QString base = translated(comparisons_.front().baseName);
  if (section == 1) return base;
  const RunComparison& c = comparisons_[static_cast<size_t>(section - 2) / 2];
  const QString other = translated(c.otherName);
  if ((section - 2) % 2 == 0) return other;
  return tr("%1 vs %2 (95% CI)").arg(other, base);
}

}  // namespace ringmaster::console
