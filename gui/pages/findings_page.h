// SPDX-License-Identifier: GPL-3.0-or-later
// The Findings page: what the diagnosis found, most severe first, with each finding's evidence.
// It shows a console item model and turns the user's actions into signals; the main window does the work (off
// the GUI thread where it touches disk or network).
#pragma once

#include <QWidget>

#include "console/models/findings_model.h"

class QLabel;
class QTableView;

namespace ringmaster::gui {

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
