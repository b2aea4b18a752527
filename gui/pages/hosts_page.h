// SPDX-License-Identifier: GPL-3.0-or-later
// The Hosts page: the hosts a run may use, checked, added and removed, and the Slurm cluster's partitions.
// It shows a console item model and turns the user's actions into signals; the main window does the work (off
// the GUI thread where it touches disk or network).
#pragma once

#include <QWidget>

#include "console/models/hosts_model.h"

class QLineEdit;
class QTableView;

namespace ringmaster::gui {

class HostsPage : public QWidget {
  Q_OBJECT

 public:
  // `slurm`: the Slurm cluster's partitions, shown under the hosts while there are any.
  HostsPage(console::HostsModel* model, console::SlurmPartitionsModel* slurm, QWidget* parent = nullptr);
  QTableView* view() const { return view_; }
  QTableView* slurmView() const { return slurmView_; }

 Q_SIGNALS:
  void addRequested(const console::HostEntry& entry);
  void checkRequested(int row);
  void removeRequested(int row);

 private:
  QTableView* view_;
  QTableView* slurmView_;
  QLineEdit* address_;
  QLineEdit* token_;
  QLineEdit* ca_;
};

}  // namespace ringmaster::gui
