// SPDX-License-Identifier: GPL-3.0-or-later
// The Runs page: the run history, to open, rename, tag, delete or report a run.
// It shows a console item model and turns the user's actions into signals; the main window does the work (off
// the GUI thread where it touches disk or network).
#pragma once

#include <QWidget>

#include "console/models/runs_model.h"

class QLabel;
class QLineEdit;
class QSortFilterProxyModel;
class QTableView;

namespace ringmaster::gui {

class RunsPage : public QWidget {
  Q_OBJECT

 public:
  explicit RunsPage(console::RunsModel* model, QWidget* parent = nullptr);
  QTableView* view() const { return view_; }
  QLineEdit* filterField() const { return filter_; }
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

}  // namespace ringmaster::gui
