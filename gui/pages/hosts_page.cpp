// SPDX-License-Identifier: GPL-3.0-or-later
#include "gui/pages/hosts_page.h"

#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>

#include "gui/views/row_table.h"

namespace ringmaster::gui {

HostsPage::HostsPage(console::HostsModel* model, console::SlurmPartitionsModel* slurm, QWidget* parent)
    : QWidget(parent) {
  view_ = rowTable(model, this);
  view_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  view_->horizontalHeader()->setStretchLastSection(true);
  auto* cluster = new QGroupBox(tr("Slurm cluster"), this);
  cluster->setObjectName(QStringLiteral("slurmCluster"));
  slurmView_ = rowTable(slurm, cluster);
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

}  // namespace ringmaster::gui
