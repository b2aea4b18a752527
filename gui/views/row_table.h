// SPDX-License-Identifier: GPL-3.0-or-later
// The table the list pages show their models in: whole rows selected one at a time, alternating colours, no
// row numbers, the last column stretched.
#pragma once

class QAbstractItemModel;
class QTableView;
class QWidget;

namespace ringmaster::gui {

QTableView* rowTable(QAbstractItemModel* model, QWidget* parent);

}  // namespace ringmaster::gui
