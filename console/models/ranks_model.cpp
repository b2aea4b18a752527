// SPDX-License-Identifier: GPL-3.0-or-later
#include "console/models/ranks_model.h"

#include <cmath>
#include <cstdio>

#include "console/models/axis_scale.h"

namespace ringmaster::console {

RanksModel::RanksModel(QObject* parent) : QAbstractTableModel(parent) {}

void RanksModel::setRows(std::vector<RankRow> rows) {
  const bool sameRanks = rows.size() == rows_.size() &&
                         std::equal(rows.begin(), rows.end(), rows_.begin(),
                                    [](const RankRow& a, const RankRow& b) { return a.rank == b.rank; });
  if (!sameRanks) {
    beginResetModel();
    rows_ = std::move(rows);
    endResetModel();
    return;
  }
  rows_ = std::move(rows);
  if (!rows_.empty()) Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
}

QString RanksModel::stoppedText(const std::string& why) {
  // Who stopped it, in the reader's words: the agent only carries the stop out.
  if (why == "stop requested") return tr("stopped by the user");
  if (why == "the agent is shutting down") return tr("stopped: its agent shut down");
  int failedRank = -1;
  if (std::sscanf(why.c_str(), "rank %d ", &failedRank) == 1 && failedRank >= 0)
    return tr("stopped: rank %1 ended first").arg(failedRank);
  return tr("stopped by the agent");
}

QString RanksModel::stateText(const RankRow& row) {
  switch (row.state) {
    case v1::RankState::STATE_STARTING:
      return tr("starting");
    case v1::RankState::STATE_RUNNING:
      return tr("running");
    case v1::RankState::STATE_EXITED:
      // A rank that ended on the agent's stop (even cleanly, on SIGTERM) was stopped, not finished.
      if (row.stoppedByAgent) return stoppedText(row.stopWhy);
      return row.exitCode == 0 ? tr("finished") : tr("exited with code %1").arg(row.exitCode);
    case v1::RankState::STATE_SIGNALED:
      if (row.stoppedByAgent) return stoppedText(row.stopWhy);
      return tr("killed by signal %1").arg(row.signal);
    case v1::RankState::STATE_FAILED_TO_START:
      return tr("failed to start");
    case v1::RankState::STATE_LOST:
      return tr("stopped without its end");
    default:
      // An imported rank was never running: its trace holds what it did.
      if (row.imported) return row.steps > 0 ? tr("imported") : QString();
      return row.steps > 0 ? tr("reporting") : QString();
  }
}

bool RanksModel::failed(const RankRow& row) {
  if (row.stoppedByAgent) return false;
  switch (row.state) {
    case v1::RankState::STATE_EXITED:
      return row.exitCode != 0;
    case v1::RankState::STATE_SIGNALED:
    case v1::RankState::STATE_FAILED_TO_START:
    case v1::RankState::STATE_LOST:
      return true;
    default:
      return false;
  }
}

int RanksModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int RanksModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant RanksModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const RankRow& r = rows_[static_cast<size_t>(index.row())];
  if (role == RankRole) return r.rank;
  if (role == FailedRole) return failed(r);
  if (role == Qt::TextAlignmentRole && index.column() >= Steps) {
    return QVariant::fromValue(Qt::Alignment(Qt::AlignRight | Qt::AlignVCenter));
  }
  if (role != Qt::DisplayRole) return {};
  switch (index.column()) {
    case Rank:
      return r.rank;
    case Host:
      return QString::fromStdString(r.host);
    case State:
      return stateText(r);
    case Steps:
      return QVariant::fromValue<qulonglong>(r.steps);
    case Throughput:
      if (std::isnan(r.samplesPerS)) return tr("not measured");
      // "512.5" up to a thousand, then with a prefix: "12.3 k".
      return QString::fromStdString(siNumber(r.samplesPerS, r.samplesPerS < 1000 ? 0.1 : 0));
    case StepTime:
      return QString::number(r.stepMs, 'f', 2);
    case Compute:
      return QString::number(r.computeMs, 'f', 2);
    case Wait:
      return QString::number(r.waitMs, 'f', 2);
    case Memory:
      return std::isnan(r.rssMb) ? tr("not measured") : QString::number(r.rssMb, 'f', 0);
    default:
      return {};
  }
}

QVariant RanksModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case Rank:
      return tr("Rank");
    case Host:
      return tr("Host");
    case State:
      return tr("State");
    case Steps:
      return tr("Steps");
    case Throughput:
      return tr("Samples/s");
    case StepTime:
      return tr("Step (ms)");
    case Compute:
      return tr("Compute (ms)");
    case Wait:
      return tr("Wait (ms)");
    case Memory:
      return tr("Memory (MiB)");
    default:
      return {};
  }
}

}  // namespace ringmaster::console
