// SPDX-License-Identifier: GPL-3.0-or-later
// The hosts a user works with: "This machine" (the embedded agent, always first) and remote agents, each with
// its connection state, what it offers (cores, memory, backends) and its preflight result; and the partitions
// of the Slurm cluster this machine can submit to, as sinfo tells them.
#pragma once

#include <QAbstractTableModel>
#include <vector>

#include "console/slurm/slurm_options.h"
#include "ringmaster/v1/agent.pb.h"

namespace ringmaster::console {

namespace v1 = ::ringmaster::v1;

struct HostEntry {
  enum class State { Unknown, Connecting, Connected, Unreachable };
  QString address;  // "host" or "host:port"; empty for this machine
  QString tokenFile;
  QString tlsCa;
  State state = State::Unknown;
  QString message;  // why it is unreachable, for a person
  v1::HostInfo info;
  bool hasInfo = false;
  bool isLocal() const { return address.isEmpty(); }
};

class HostsModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { Host, State, Cores, Memory, Backends, Preflight, ColumnCount };

  explicit HostsModel(QObject* parent = nullptr);

  // Adds a remote host; returns its row, or the row it already has.
  int addHost(const HostEntry& entry);
  // Removes a remote host (this machine stays).
  void removeHost(int row);
  void setState(int row, HostEntry::State state, const QString& message = {});
  void setInfo(int row, const v1::HostInfo& info);
  const HostEntry& host(int row) const { return hosts_.at(static_cast<size_t>(row)); }
  int rowOf(const QString& address) const;

  static QString stateText(HostEntry::State state);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  std::vector<HostEntry> hosts_;
};

// The Slurm cluster's partitions, one a row: name, state, nodes idle, allocated and other (down, drained...),
// and the node list. Empty when there is no Slurm to ask.
class SlurmPartitionsModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { Partition, State, Idle, Allocated, Other, Nodes, ColumnCount };

  explicit SlurmPartitionsModel(QObject* parent = nullptr);

  void setPartitions(std::vector<SlurmPartition> partitions);
  const std::vector<SlurmPartition>& partitions() const { return partitions_; }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  std::vector<SlurmPartition> partitions_;
};

}  // namespace ringmaster::console
