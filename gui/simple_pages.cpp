// SPDX-License-Identifier: GPL-3.0-or-later
#include "gui/simple_pages.h"

#include <QComboBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPainter>
#include <QPushButton>
#include <QScrollBar>
#include <QSortFilterProxyModel>
#include <QStyledItemDelegate>
#include <QTableView>
#include <QVBoxLayout>

#include "gui/palette.h"

namespace ringmaster::gui {
namespace {

QTableView* table(QAbstractItemModel* model, QWidget* parent) {
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

// Colours the severity cell of a finding.
class SeverityDelegate : public QStyledItemDelegate {
 public:
  using QStyledItemDelegate::QStyledItemDelegate;
  void paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const override {
    QStyledItemDelegate::paint(painter, option, index);
    const QColor color = severityColor(
        static_cast<v1::Finding::Severity>(index.data(console::FindingsModel::SeverityRole).toInt()));
    painter->fillRect(QRect(option.rect.left(), option.rect.top() + 2, 4, option.rect.height() - 4), color);
  }
};

}  // namespace

HostsPage::HostsPage(console::HostsModel* model, console::SlurmPartitionsModel* slurm, QWidget* parent)
    : QWidget(parent) {
  view_ = table(model, this);
  view_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  view_->horizontalHeader()->setStretchLastSection(true);
  auto* cluster = new QGroupBox(tr("Slurm cluster"), this);
  cluster->setObjectName(QStringLiteral("slurmCluster"));
  slurmView_ = table(slurm, cluster);
  slurmView_->setObjectName(QStringLiteral("slurmPartitions"));
  slurmView_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  slurmView_->horizontalHeader()->setStretchLastSection(true);
  auto* clusterLayout = new QVBoxLayout(cluster);
  clusterLayout->addWidget(slurmView_);
  auto* clusterNote = new QLabel(tr("Launch with \"Submit to Slurm\" to run a job on these nodes."), cluster);
  clusterNote->setForegroundRole(QPalette::PlaceholderText);
  clusterLayout->addWidget(clusterNote);
  // Only a machine that can submit to Slurm shows the cluster.
  cluster->setVisible(slurm->rowCount() > 0);
  connect(slurm, &QAbstractItemModel::modelReset, cluster,
          [cluster, slurm] { cluster->setVisible(slurm->rowCount() > 0); });
  address_ = new QLineEdit(this);
  address_->setPlaceholderText(tr("host or host:port of a ringmaster-agent"));
  token_ = new QLineEdit(this);
  token_->setPlaceholderText(tr("file holding the agent's token (needed off loopback)"));
  ca_ = new QLineEdit(this);
  ca_->setPlaceholderText(tr("CA certificate (PEM) when the agent uses TLS"));
  auto* add = new QPushButton(tr("Add host"), this);
  auto* check = new QPushButton(tr("Check again"), this);
  auto* remove = new QPushButton(tr("Remove"), this);
  address_->setObjectName(QStringLiteral("hostAddress"));
  token_->setObjectName(QStringLiteral("hostTokenFile"));
  ca_->setObjectName(QStringLiteral("hostTlsCa"));
  add->setObjectName(QStringLiteral("addHost"));
  check->setObjectName(QStringLiteral("checkHost"));
  remove->setObjectName(QStringLiteral("removeHost"));
  auto* form = new QFormLayout;
  form->addRow(tr("Address"), address_);
  form->addRow(tr("Token file"), token_);
  form->addRow(tr("TLS CA"), ca_);
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(add);
  buttons->addStretch();
  buttons->addWidget(check);
  buttons->addWidget(remove);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(view_, 1);
  layout->addWidget(cluster);
  layout->addLayout(form);
  layout->addLayout(buttons);
  connect(add, &QPushButton::clicked, this, [this] {
    if (address_->text().trimmed().isEmpty()) return;
    console::HostEntry entry;
    entry.address = address_->text().trimmed();
    entry.tokenFile = token_->text().trimmed();
    entry.tlsCa = ca_->text().trimmed();
    Q_EMIT addRequested(entry);
    address_->clear();
  });
  connect(check, &QPushButton::clicked, this, [this] {
    Q_EMIT checkRequested(view_->currentIndex().isValid() ? view_->currentIndex().row() : 0);
  });
  connect(remove, &QPushButton::clicked, this, [this] {
    if (view_->currentIndex().isValid()) Q_EMIT removeRequested(view_->currentIndex().row());
  });
}

LogsPage::LogsPage(console::LogModel* model, QWidget* parent) : QWidget(parent) {
  filter_ = new console::LogFilter(this);
  filter_->setSourceModel(model);
  rank_ = new QComboBox(this);
  rank_->addItem(tr("All ranks"), -1);
  search_ = new QLineEdit(this);
  search_->setPlaceholderText(tr("Search the lines"));
  search_->setClearButtonEnabled(true);
  view_ = table(filter_, this);
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

RunsPage::RunsPage(console::RunsModel* model, QWidget* parent) : QWidget(parent), model_(model) {
  proxy_ = new QSortFilterProxyModel(this);
  proxy_->setSourceModel(model);
  proxy_->setSortRole(console::RunsModel::SortRole);
  proxy_->setFilterKeyColumn(-1);
  proxy_->setFilterCaseSensitivity(Qt::CaseInsensitive);
  view_ = table(proxy_, this);
  view_->setSortingEnabled(true);
  view_->sortByColumn(console::RunsModel::Id, Qt::DescendingOrder);
  view_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  view_->horizontalHeader()->setStretchLastSection(true);
  filter_ = new QLineEdit(this);
  filter_->setPlaceholderText(tr("Filter by name, status, engine, tag…"));
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

FindingsPage::FindingsPage(console::FindingsModel* model, QWidget* parent) : QWidget(parent), model_(model) {
  view_ = table(model, this);
  view_->setItemDelegateForColumn(console::FindingsModel::Severity, new SeverityDelegate(view_));
  view_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  view_->horizontalHeader()->setStretchLastSection(true);
  details_ =
      new QLabel(tr("Findings appear here as diagnosis detects them. Select one to see its evidence."), this);
  details_->setObjectName(QStringLiteral("findingDetails"));
  details_->setWordWrap(true);
  details_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  details_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
  details_->setMinimumHeight(90);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(view_, 1);
  layout->addWidget(details_);
  connect(view_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this](const QModelIndex& current) {
            const v1::Finding* f = current.isValid() ? model_->finding(current.row()) : nullptr;
            if (!f) return;
            showDetails(*f);
            Q_EMIT findingActivated(*f);
          });
  // New findings (most severe first): what the first one asks for is in view before anything is selected.
  connect(model_, &QAbstractItemModel::modelReset, this, [this] {
    if (const v1::Finding* first = model_->finding(0)) showDetails(*first);
  });
}

void FindingsPage::showDetails(const v1::Finding& f) {
  QString html =
      QStringLiteral("<b>%1 — %2</b><br>%3")
          .arg(console::FindingsModel::severityText(f.severity()), console::FindingsModel::kindText(f.kind()),
               console::FindingsModel::summaryText(f).toHtmlEscaped());
  const QString advice = console::FindingsModel::adviceText(f);
  if (!advice.isEmpty())
    html += QStringLiteral("<br><b>%1</b> %2").arg(tr("What to do:"), advice.toHtmlEscaped());
  if (!f.cause().empty())
    html +=
        QStringLiteral("<br>") + tr("Cause: %1").arg(console::FindingsModel::causeText(f).toHtmlEscaped());
  const QStringList evidence = console::FindingsModel::evidenceTexts(f);
  if (!evidence.isEmpty()) {
    html += QStringLiteral("<br><small>") + evidence.join(QStringLiteral(" · ")).toHtmlEscaped() +
            QStringLiteral("</small>");
  }
  details_->setText(html);
}

}  // namespace ringmaster::gui
