// SPDX-License-Identifier: GPL-3.0-or-later
#include "gui/views/row_table.h"

#include <QHeaderView>
#include <QTableView>

namespace ringmaster::gui {

QTableView* rowTable(QAbstractItemModel* model, QWidget* parent) {
  auto* view = new QTableView(parent);
  view->setModel(model);
  view->setSelectionBehavior(QAbstractItemView::SelectRows);
  view->setSelectionMode(QAbstractItemView::SingleSelection);
  view->verticalHeader()->hide();
  view->setAlternatingRowColors(true);
  view->horizontalHeader()->setStretchLastSection(true);
  view->setWordWrap(false);
  return view;
}

}  // namespace ringmaster::gui
