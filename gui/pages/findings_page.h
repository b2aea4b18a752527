// SPDX-License-Identifier: GPL-3.0-or-later
// The Findings page: what the diagnosis found, most severe first, with each finding's evidence.
// It shows a console item model and turns the user's actions into signals; the main window does the work (off
// the GUI thread where it touches disk or network).
#pragma once

#include <QWidget>
#include <optional>

#include "console/models/findings_model.h"

class QLabel;
class QPushButton;
class QTableView;

namespace ringmaster::gui {

class FindingsPage : public QWidget {
  Q_OBJECT

 public:
  explicit FindingsPage(console::FindingsModel* model, QWidget* parent = nullptr);
  // Where a finding's evidence can be shown. Selecting a finding only describes it here; the other pages move
  // when the user asks with one of the page's buttons (or a double click, for the Dashboard).
  enum class Evidence { Dashboard, Timeline, Logs };

  QTableView* view() const { return view_; }
  QPushButton* showButton(Evidence where) const;

 Q_SIGNALS:
  // The user asked to see the finding's evidence on another page.
  void evidenceRequested(const v1::Finding& finding, Evidence where);

 private:
  void showDetails(const v1::Finding& finding);
  void updateButtons();
  const v1::Finding* current() const;
  // The row of the finding about the same thing as `finding` (kind, rank, host, cause); -1 for none.
  int rowAbout(const v1::Finding& finding) const;

  console::FindingsModel* model_;
  QTableView* view_;
  QLabel* details_;
  QPushButton* onDashboard_;
  QPushButton* onTimeline_;
  QPushButton* logs_;
  // The selected finding while the model is reset (a live run's findings change): selected again after, by
  // what it is about, not by its row.
  std::optional<v1::Finding> selectedBeforeReset_;
};

}  // namespace ringmaster::gui
