// SPDX-License-Identifier: GPL-3.0-or-later
// The Logs page: what the ranks printed, one rank or all, filtered by a search.
// It shows a console item model and turns the user's actions into signals; the main window does the work (off
// the GUI thread where it touches disk or network).
#pragma once

#include <QWidget>

#include "console/models/log_model.h"

class QComboBox;
class QLabel;
class QPushButton;
class QLineEdit;
class QTableView;

namespace ringmaster::gui {

class LogsPage : public QWidget {
  Q_OBJECT

 public:
  explicit LogsPage(console::LogModel* model, QWidget* parent = nullptr);
  void setRankCount(int ranks);
  void showRank(int rank);
  console::LogFilter* filter() const { return filter_; }
  // What the page says when its filter hides every line there is; empty when lines show (tests).
  QString emptyNote() const;

 private:
  void updateNote();

  console::LogFilter* filter_;
  QLabel* note_;
  QPushButton* showAll_;
  QComboBox* rank_;
  QLineEdit* search_;
  QTableView* view_;
};

}  // namespace ringmaster::gui
