// SPDX-License-Identifier: GPL-3.0-or-later
#include "gui/pages/findings_page.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPainter>
#include <QPushButton>
#include <QStyledItemDelegate>
#include <QTableView>
#include <QVBoxLayout>

#include "gui/palette.h"
#include "gui/views/row_table.h"

namespace ringmaster::gui {

namespace {

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

FindingsPage::FindingsPage(console::FindingsModel* model, QWidget* parent) : QWidget(parent), model_(model) {
  view_ = rowTable(model, this);
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
  onDashboard_ = new QPushButton(tr("Show on Dashboard"), this);
  onDashboard_->setObjectName(QStringLiteral("showOnDashboard"));
  onDashboard_->setToolTip(tr("Highlight the finding's rank and chart its steps to the end of the run"));
  onTimeline_ = new QPushButton(tr("Show in Timeline"), this);
  onTimeline_->setObjectName(QStringLiteral("showInTimeline"));
  logs_ = new QPushButton(tr("Show its logs"), this);
  logs_->setObjectName(QStringLiteral("showLogs"));
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(onDashboard_);
  buttons->addWidget(onTimeline_);
  buttons->addWidget(logs_);
  buttons->addStretch(1);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(view_, 1);
  layout->addWidget(details_);
  layout->addLayout(buttons);
  connect(view_->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this] {
    if (const v1::Finding* f = current()) showDetails(*f);
    updateButtons();
  });
  const std::pair<QPushButton*, Evidence> asks[] = {
      {onDashboard_, Evidence::Dashboard}, {onTimeline_, Evidence::Timeline}, {logs_, Evidence::Logs}};
  for (const auto& [button, where] : asks) {
    connect(button, &QPushButton::clicked, this, [this, where = where] {
      if (const v1::Finding* f = current()) Q_EMIT evidenceRequested(*f, where);
    });
  }
  connect(view_, &QTableView::doubleClicked, this, [this] {
    if (const v1::Finding* f = current()) Q_EMIT evidenceRequested(*f, Evidence::Dashboard);
  });
  // New findings (most severe first): the finding the user selected stays selected wherever it moved; with
  // none selected, what the first one asks for is in view.
  connect(model_, &QAbstractItemModel::modelAboutToBeReset, this, [this] {
    const v1::Finding* selected = current();
    selectedBeforeReset_ = selected ? std::optional<v1::Finding>(*selected) : std::nullopt;
  });
  connect(model_, &QAbstractItemModel::modelReset, this, [this] {
    const int row = selectedBeforeReset_ ? rowAbout(*selectedBeforeReset_) : -1;
    selectedBeforeReset_.reset();
    if (row >= 0) {
      view_->selectRow(row);
    } else if (const v1::Finding* first = model_->finding(0)) {
      showDetails(*first);
    }
    updateButtons();
  });
  updateButtons();
}

int FindingsPage::rowAbout(const v1::Finding& finding) const {
  // A live finding's figures and summary change as its run goes on; what it is about does not.
  for (int row = 0; row < model_->rowCount(); ++row) {
    const v1::Finding* f = model_->finding(row);
    if (f->kind() == finding.kind() && f->rank() == finding.rank() && f->host() == finding.host() &&
        f->cause() == finding.cause())
      return row;
  }
  return -1;
}

const v1::Finding* FindingsPage::current() const {
  const QModelIndex index = view_->currentIndex();
  return index.isValid() ? model_->finding(index.row()) : nullptr;
}

QPushButton* FindingsPage::showButton(Evidence where) const {
  switch (where) {
    case Evidence::Dashboard:
      return onDashboard_;
    case Evidence::Timeline:
      return onTimeline_;
    case Evidence::Logs:
      return logs_;
  }
  return nullptr;
}

void FindingsPage::updateButtons() {
  const v1::Finding* f = current();
  onDashboard_->setEnabled(f);
  onTimeline_->setEnabled(f);
  // Logs are a rank's: a finding about the whole job has none of its own.
  logs_->setEnabled(f && f->rank() >= 0);
  logs_->setText(f && f->rank() >= 0 ? tr("Show logs of rank %1").arg(f->rank()) : tr("Show its logs"));
}

void FindingsPage::showDetails(const v1::Finding& f) {
  QString html =
      QStringLiteral("<b>%1 — %2</b><br>%3")
          .arg(console::FindingsModel::severityText(f.severity()), console::FindingsModel::kindText(f.kind()),
               console::FindingsModel::summaryText(f).toHtmlEscaped());
  const QString advice = console::FindingsModel::adviceText(f, model_->adviceReader());
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
