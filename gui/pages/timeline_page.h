// SPDX-License-Identifier: GPL-3.0-or-later
// The timeline page: the TimelineView with its row mode, zoom to selection and find by name, the details of
// the clicked event, per-phase statistics per rank of the selected range (each moment counted once, so the
// shares add up), import of Horovod timelines / Chrome traces, and export of the visible range.
#pragma once

#include <QWidget>
#include <functional>

#include "console/models/timeline_model.h"

class QAction;
class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QToolButton;
class QTreeWidget;

namespace ringmaster::gui {

class TimelineView;

class TimelinePage : public QWidget {
  Q_OBJECT

 public:
  explicit TimelinePage(QWidget* parent = nullptr);

  void setModel(const console::TimelineModel* model);
  void modelChanged();
  // The model's events are read again for another range of the same run (`replace` swaps them in): the
  // range shown, the selected range and the rows stay; the selected event is found again by its lane and
  // times, or let go.
  void replaceModel(const std::function<void()>& replace);
  void highlightRank(int rank);
  // Moves to [t0, t1) and selects it (a finding's evidence).
  void showRange(int64_t t0, int64_t t1);
  // Writes the visible range as Chrome trace JSON to `path` (on a worker thread); `exported` tells the
  // result.
  void exportVisibleRange(const QString& path);

  TimelineView* view() const { return view_; }
  QTreeWidget* statsTable() const { return stats_; }
  QString detailsText() const;
  QString rangeText() const;
  QLineEdit* findField() const { return find_; }
  QLabel* findStatus() const { return findStatus_; }
  QPushButton* zoomToSelectionButton() const { return zoomToSelection_; }
  // Selects and shows the next (or previous) event whose name, or whose row's name, holds the find field's
  // text.
  void findNext(bool forward = true);
  // Asks for trace or record files (or a folder of them) and asks for their import.
  void chooseTracesToImport();
  void chooseFolderToImport();

 Q_SIGNALS:
  // Files to import as one run (one rank per file), or one folder of them.
  void importRequested(const QStringList& paths);
  void exported(const QString& path, const QString& error);

 private:
  // The bar's widgets no member keeps: made in the order Tab goes through them, then placed and wired.
  struct ToolBar {
    QPushButton* fit;
    QPushButton* import;
    QAction* importFiles;
    QAction* importFolder;
    QPushButton* exportRange;
    QToolButton* saveImage;
    QToolButton* findPrevious;
    QToolButton* findNext;
    QLabel* keyHint;  // under the bar: the keys and gestures the view takes
  };
  ToolBar createToolBar();
  // The clicked event's details, the selected range and its statistics, and the export's result.
  QWidget* createSidePanel();
  void layOut(const ToolBar& tools, QWidget* side);
  void connectSignals(const ToolBar& tools);
  void showStats(int64_t t0, int64_t t1);
  void showEvent(int lane, int event);
  void resetFind();

  const console::TimelineModel* model_ = nullptr;
  TimelineView* view_;
  QComboBox* rows_;
  QLabel* details_;
  QLabel* rangeLabel_;
  QTreeWidget* stats_;
  QLabel* status_;
  QPushButton* zoomToSelection_;
  QLineEdit* find_;
  QLabel* findStatus_;
  console::TimelineModel::Hit found_;  // the event the find field showed last
  std::vector<int> foundRows_;         // the rows it was found among
};

}  // namespace ringmaster::gui
