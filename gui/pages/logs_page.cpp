// SPDX-License-Identifier: GPL-3.0-or-later
#include "gui/pages/logs_page.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QScrollBar>
#include <QTableView>
#include <QVBoxLayout>

#include "gui/views/row_table.h"

namespace ringmaster::gui {

LogsPage::LogsPage(console::LogModel* model, QWidget* parent) : QWidget(parent) {
  filter_ = new console::LogFilter(this);
  filter_->setSourceModel(model);
  rank_ = new QComboBox(this);
  rank_->addItem(tr("All ranks"), -1);
  search_ = new QLineEdit(this);
  search_->setPlaceholderText(tr("Search the lines"));
  search_->setClearButtonEnabled(true);
  view_ = rowTable(filter_, this);
  view_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  view_->horizontalHeader()->setStretchLastSection(true);
  QFont mono(QStringLiteral("monospace"));
  mono.setStyleHint(QFont::Monospace);
  view_->setFont(mono);
  auto* bar = new QHBoxLayout;
  bar->addWidget(new QLabel(tr("Rank"), this));
  bar->addWidget(rank_);
  bar->addWidget(search_, 1);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(bar);
  layout->addWidget(view_, 1);
  connect(rank_, qOverload<int>(&QComboBox::activated), this,
          [this](int index) { filter_->setRank(rank_->itemData(index).toInt()); });
  connect(search_, &QLineEdit::textChanged, filter_, &console::LogFilter::setText);
  // Follow the newest line unless the user scrolled up.
  connect(filter_, &QAbstractItemModel::rowsInserted, this, [this] {
    if (view_->verticalScrollBar()->value() >= view_->verticalScrollBar()->maximum() - 2)
      view_->scrollToBottom();
  });
}

void LogsPage::setRankCount(int ranks) {
  if (rank_->count() == ranks + 1) return;
  const int current = filter_->rank();
  rank_->clear();
  rank_->addItem(tr("All ranks"), -1);
  for (int r = 0; r < ranks; ++r) rank_->addItem(tr("Rank %1").arg(r), r);
  rank_->setCurrentIndex(std::max(0, rank_->findData(current)));
}

void LogsPage::showRank(int rank) {
  const int index = rank_->findData(rank);
  if (index >= 0) rank_->setCurrentIndex(index);
  filter_->setRank(index >= 0 ? rank : -1);
}

}  // namespace ringmaster::gui
