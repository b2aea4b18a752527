// SPDX-License-Identifier: GPL-3.0-or-later
#include "gui/pages/logs_page.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
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
  // A filter that hides every line says so, with the way back.
  note_ = new QLabel(this);
  note_->setObjectName(QStringLiteral("logsEmptyNote"));
  showAll_ = new QPushButton(tr("Show all lines"), this);
  auto* noteBar = new QHBoxLayout;
  noteBar->addWidget(note_, 1);
  noteBar->addWidget(showAll_);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(bar);
  layout->addLayout(noteBar);
  layout->addWidget(view_, 1);
  connect(showAll_, &QPushButton::clicked, this, [this] {
    search_->clear();
    showRank(-1);
  });
  for (QAbstractItemModel* m :
       {static_cast<QAbstractItemModel*>(filter_), static_cast<QAbstractItemModel*>(model)}) {
    connect(m, &QAbstractItemModel::rowsInserted, this, &LogsPage::updateNote);
    connect(m, &QAbstractItemModel::rowsRemoved, this, &LogsPage::updateNote);
    connect(m, &QAbstractItemModel::modelReset, this, &LogsPage::updateNote);
    connect(m, &QAbstractItemModel::layoutChanged, this, &LogsPage::updateNote);
  }
  connect(search_, &QLineEdit::textChanged, this, &LogsPage::updateNote);
  updateNote();
  connect(rank_, qOverload<int>(&QComboBox::activated), this, [this](int index) {
    filter_->setRank(rank_->itemData(index).toInt());
    updateNote();
  });
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
  updateNote();
}

QString LogsPage::emptyNote() const {
  return note_->isVisibleTo(this) ? note_->text() : QString();
}

void LogsPage::updateNote() {
  const int all = filter_->sourceModel()->rowCount();
  const bool hidden = filter_->rowCount() == 0 && all > 0;
  QString text;
  if (hidden && filter_->rank() >= 0 && search_->text().isEmpty())
    text = tr("No lines from rank %1 yet; %n line(s) from other ranks.", nullptr, all).arg(filter_->rank());
  else if (hidden && filter_->rank() >= 0)
    text = tr("No line of rank %1 matches \"%2\"; %n line(s) in all.", nullptr, all)
               .arg(filter_->rank())
               .arg(search_->text());
  else if (hidden)
    text = tr("No line matches \"%1\"; %n line(s) in all.", nullptr, all).arg(search_->text());
  note_->setText(text);
  note_->setVisible(hidden);
  showAll_->setVisible(hidden);
}

}  // namespace ringmaster::gui
