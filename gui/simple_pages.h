// SPDX-License-Identifier: GPL-3.0-or-later
// The table pages: Hosts, Logs, Runs and Findings. Each shows a console item model and turns the user's
// actions into signals; the main window does the work (off the GUI thread where it touches disk or network).
#pragma once

#include <QWidget>

#include "console/findings_model.h"
#include "console/hosts_model.h"
#include "console/log_model.h"
#include "console/runs_model.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QSortFilterProxyModel;
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

class LogsPage : public QWidget {
  Q_OBJECT

 public:
  explicit LogsPage(console::LogModel* model, QWidget* parent = nullptr);
  void setRankCount(int ranks);
  void showRank(int rank);
  console::LogFilter* filter() const { return filter_; }

 private:
  console::LogFilter* filter_;
  QComboBox* rank_;
  QLineEdit* search_;
  QTableView* view_;
};

class RunsPage : public QWidget {
  Q_OBJECT

 public:
  explicit RunsPage(console::RunsModel* model, QWidget* parent = nullptr);
  QTableView* view() const { return view_; }
  void setStatus(const QString& text);

 Q_SIGNALS:
  void openRequested(int64_t runId);
  void renameRequested(int64_t runId, const QString& name);
  void tagRequested(int64_t runId, const QString& tag);
  void deleteRequested(int64_t runId);
  void refreshRequested();
  void reportRequested(int64_t runId);

 private:
  int64_t currentRun() const;

  console::RunsModel* model_;
  QSortFilterProxyModel* proxy_;
  QTableView* view_;
  QLineEdit* filter_;
  QLabel* status_;
};

class FindingsPage : public QWidget {
  Q_OBJECT

 public:
  explicit FindingsPage(console::FindingsModel* model, QWidget* parent = nullptr);
  QTableView* view() const { return view_; }

 Q_SIGNALS:
  // The user picked a finding: show its evidence.
  void findingActivated(const v1::Finding& finding);

 private:
  void showDetails(const v1::Finding& finding);

  console::FindingsModel* model_;
  QTableView* view_;
  QLabel* details_;
};

}  // namespace ringmaster::gui
