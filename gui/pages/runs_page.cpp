// SPDX-License-Identifier: GPL-3.0-or-later
#include "gui/pages/runs_page.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

#include "gui/views/row_table.h"

namespace ringmaster::gui {

RunsPage::RunsPage(console::RunsModel* model, QWidget* parent) : QWidget(parent), model_(model) {
  proxy_ = new QSortFilterProxyModel(this);
  proxy_->setSourceModel(model);
  proxy_->setSortRole(console::RunsModel::SortRole);
  proxy_->setFilterKeyColumn(-1);
  proxy_->setFilterCaseSensitivity(Qt::CaseInsensitive);
  view_ = rowTable(proxy_, this);
  view_->setSortingEnabled(true);
  view_->sortByColumn(console::RunsModel::Id, Qt::DescendingOrder);
  view_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  view_->horizontalHeader()->setStretchLastSection(true);
  filter_ = new QLineEdit(this);
  filter_->setPlaceholderText(tr("Filter by name, status, engine, tag, finding…"));
  filter_->setClearButtonEnabled(true);
  auto* open = new QPushButton(tr("Open"), this);
  auto* rename = new QPushButton(tr("Rename…"), this);
  auto* tag = new QPushButton(tr("Tag…"), this);
  auto* report = new QPushButton(tr("Export report…"), this);
  auto* remove = new QPushButton(tr("Delete"), this);
  auto* refresh = new QPushButton(tr("Refresh"), this);
  status_ = new QLabel(this);
  auto* bar = new QHBoxLayout;
  bar->addWidget(filter_, 1);
  bar->addWidget(refresh);
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(status_, 1);
  for (QPushButton* b : {open, rename, tag, report, remove}) buttons->addWidget(b);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(bar);
  layout->addWidget(view_, 1);
  layout->addLayout(buttons);

  connect(filter_, &QLineEdit::textChanged, proxy_, &QSortFilterProxyModel::setFilterFixedString);
  connect(refresh, &QPushButton::clicked, this, &RunsPage::refreshRequested);
  connect(view_, &QTableView::doubleClicked, this, [this] {
    if (currentRun() > 0) Q_EMIT openRequested(currentRun());
  });
  connect(open, &QPushButton::clicked, this, [this] {
    if (currentRun() > 0) Q_EMIT openRequested(currentRun());
  });
  connect(report, &QPushButton::clicked, this, [this] {
    if (currentRun() > 0) Q_EMIT reportRequested(currentRun());
  });
  connect(rename, &QPushButton::clicked, this, [this] {
    const int64_t id = currentRun();
    if (id <= 0) return;
    bool ok = false;
    const QString current =
        proxy_->index(view_->currentIndex().row(), console::RunsModel::Name).data().toString();
    const QString name =
        QInputDialog::getText(this, tr("Rename run"), tr("Name"), QLineEdit::Normal, current, &ok);
    if (ok && !name.trimmed().isEmpty()) Q_EMIT renameRequested(id, name.trimmed());
  });
  connect(tag, &QPushButton::clicked, this, [this] {
    const int64_t id = currentRun();
    if (id <= 0) return;
    bool ok = false;
    const QString text = QInputDialog::getText(this, tr("Tag run"), tr("Tag"), QLineEdit::Normal, {}, &ok);
    if (ok && !text.trimmed().isEmpty()) Q_EMIT tagRequested(id, text.trimmed());
  });
  connect(remove, &QPushButton::clicked, this, [this] {
    const int64_t id = currentRun();
    if (id <= 0) return;
    if (QMessageBox::question(this, tr("Delete run"), tr("Delete run %1 and all its data?").arg(id)) ==
        QMessageBox::Yes) {
      Q_EMIT deleteRequested(id);
    }
  });
}

int64_t RunsPage::currentRun() const {
  const QModelIndex index = view_->currentIndex();
  return index.isValid() ? index.data(console::RunsModel::RunIdRole).toLongLong() : 0;
}

void RunsPage::setStatus(const QString& text) {
  status_->setText(text);
}

}  // namespace ringmaster::gui
