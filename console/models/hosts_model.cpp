// SPDX-License-Identifier: GPL-3.0-or-later
#include "console/models/hosts_model.h"

#include <QStringList>

#include "common/job_spec.h"
#include "console/hosts/host_facts.h"

namespace ringmaster::console {

HostsModel::HostsModel(QObject* parent) : QAbstractTableModel(parent) {
  hosts_.push_back(HostEntry{});
}

int HostsModel::addHost(const HostEntry& entry) {
  if (entry.isLocal()) return 0;
  const int existing = rowOf(entry.address);
  if (existing >= 0) return existing;
  const int row = rowCount();
  beginInsertRows({}, row, row);
  hosts_.push_back(entry);
  endInsertRows();
  return row;
}

void HostsModel::removeHost(int row) {
  if (row <= 0 || row >= rowCount()) return;
  beginRemoveRows({}, row, row);
  hosts_.erase(hosts_.begin() + row);
  endRemoveRows();
}

void HostsModel::setState(int row, HostEntry::State state, const QString& message) {
  if (row < 0 || row >= rowCount()) return;
  hosts_[static_cast<size_t>(row)].state = state;
  hosts_[static_cast<size_t>(row)].message = message;
  Q_EMIT dataChanged(index(row, 0), index(row, ColumnCount - 1));
}

void HostsModel::setInfo(int row, const v1::HostInfo& info) {
  if (row < 0 || row >= rowCount()) return;
  hosts_[static_cast<size_t>(row)].info = info;
  hosts_[static_cast<size_t>(row)].hasInfo = true;
  Q_EMIT dataChanged(index(row, 0), index(row, ColumnCount - 1));
}

int HostsModel::rowOf(const QString& address) const {
  for (size_t i = 0; i < hosts_.size(); ++i) {
    if (hosts_[i].address == address) return static_cast<int>(i);
  }
  return -1;
}

QString HostsModel::stateText(HostEntry::State state) {
  switch (state) {
    case HostEntry::State::Connecting:
      return tr("connecting");
    case HostEntry::State::Connected:
      return tr("connected");
    case HostEntry::State::Unreachable:
      return tr("unreachable");
    default:
      return tr("not checked");
  }
}

int HostsModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(hosts_.size());
}

int HostsModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant HostsModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const HostEntry& h = hosts_[static_cast<size_t>(index.row())];
  if (role == Qt::ToolTipRole && index.column() == State) return h.message;
  if (role != Qt::DisplayRole) return {};
  switch (index.column()) {
    case Host:
      if (!h.isLocal()) return h.address;
      return h.hasInfo ? tr("This machine (%1)").arg(QString::fromStdString(h.info.hostname()))
                       : tr("This machine");
    case State:
      return h.message.isEmpty() ? stateText(h.state) : stateText(h.state) + QStringLiteral(": ") + h.message;
    case Cores:
      return h.hasInfo ? QVariant(h.info.cores()) : QVariant();
    case Memory:
      return h.hasInfo ? QVariant(tr("%1 GiB").arg(static_cast<double>(h.info.memory_bytes()) / (1u << 30), 0,
                                                   'f', 1))
                       : QVariant();
    case Backends: {
      if (!h.hasInfo) return {};
      QStringList names;
      for (v1::Backend b : usableBackends(h.info)) names << QString::fromUtf8(backendName(b).data());
      return names.join(QStringLiteral(", "));
    }
    case Preflight: {
      if (!h.hasInfo) return {};
      if (h.info.problems().empty()) return tr("ready");
      QStringList problems;
      for (const auto& p : h.info.problems()) problems << QString::fromStdString(p);
      return problems.join(QStringLiteral("; "));
    }
    default:
      return {};
  }
}

QVariant HostsModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case Host:
      return tr("Host");
    case State:
      return tr("Connection");
    case Cores:
      return tr("Cores");
    case Memory:
      return tr("Memory");
    case Backends:
      return tr("Backends");
    case Preflight:
      return tr("Preflight");
    default:
      return {};
  }
}

SlurmPartitionsModel::SlurmPartitionsModel(QObject* parent) : QAbstractTableModel(parent) {}

void SlurmPartitionsModel::setPartitions(std::vector<SlurmPartition> partitions) {
  beginResetModel();
  partitions_ = std::move(partitions);
  endResetModel();
}

int SlurmPartitionsModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(partitions_.size());
}

int SlurmPartitionsModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant SlurmPartitionsModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount() || role != Qt::DisplayRole) return {};
  const SlurmPartition& p = partitions_[static_cast<size_t>(index.row())];
  switch (index.column()) {
    case Partition:
      return QString::fromStdString(p.name);
    case State:
      return QString::fromStdString(p.state);
    case Idle:
      return p.idle;
    case Allocated:
      return p.allocated;
    case Other:
      return p.other;
    case Nodes:
      return QString::fromStdString(p.nodes);
    default:
      return {};
  }
}

QVariant SlurmPartitionsModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case Partition:
      return tr("Partition");
    case State:
      return tr("State");
    case Idle:
      return tr("Idle nodes");
    case Allocated:
      return tr("Allocated");
    case Other:
      return tr("Other");
    case Nodes:
      return tr("Nodes");
    default:
      return {};
  }
}

}  // namespace ringmaster::console
