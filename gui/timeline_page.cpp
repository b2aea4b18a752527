// SPDX-License-Identifier: GPL-3.0-or-later
#include "gui/timeline_page.h"

#include <QComboBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QPushButton>
#include <QSplitter>
#include <QToolButton>
#include <QTreeWidget>
#include <QVBoxLayout>

#include "common/chrome_trace.h"
#include "console/background.h"
#include "gui/chart_export.h"
#include "gui/timeline_view.h"

namespace ringmaster::gui {

TimelinePage::TimelinePage(QWidget* parent) : QWidget(parent) {
  view_ = new TimelineView(this);
  rows_ = new QComboBox(this);
  rows_->addItem(tr("Rows by rank (compute and communication)"));
  rows_->addItem(tr("Rows by tensor (Horovod view, ready ticks)"));
  auto* fit = new QPushButton(tr("Fit"), this);
  auto* import = new QPushButton(tr("Import timeline…"), this);
  import->setToolTip(tr(
      "Open per-rank PyTorch profiler traces (several files or their folder), a Horovod timeline or a Chrome "
      "trace JSON file"));
  auto* importMenu = new QMenu(import);
  QAction* importFiles = importMenu->addAction(tr("Trace files…"));
  QAction* importFolder = importMenu->addAction(tr("Folder of per-rank traces…"));
  import->setMenu(importMenu);
  auto* exportButton = new QPushButton(tr("Export visible range…"), this);
  exportButton->setToolTip(tr("Save the visible range as Chrome trace JSON (Perfetto, chrome://tracing)"));
  // A button, not a context menu: the right button selects a range in the timeline.
  auto* saveImage = new QToolButton(this);
  saveImage->setObjectName(QStringLiteral("saveTimelineImage"));
  saveImage->setText(tr("Save image"));
  saveImage->setToolTip(tr("Save the timeline as shown as a PNG or SVG image"));
  saveImage->setPopupMode(QToolButton::InstantPopup);
  saveImage->setMenu(chartExportMenu(view_, tr("Timeline"), saveImage));
  auto* hint = new QLabel(tr("Wheel: zoom · drag: pan · shift-drag: select a range · click: details"), this);
  hint->setEnabled(false);

  auto* bar = new QHBoxLayout;
  bar->addWidget(rows_);
  bar->addWidget(fit);
  bar->addWidget(hint, 1);
  bar->addWidget(import);
  bar->addWidget(exportButton);
  bar->addWidget(saveImage);

  details_ = new QLabel(tr("Click an event to see its details."), this);
  details_->setWordWrap(true);
  details_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  details_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
  details_->setMinimumWidth(260);
  rangeLabel_ = new QLabel(tr("Shift-drag across the timeline to measure a range."), this);
  rangeLabel_->setWordWrap(true);
  stats_ = new QTreeWidget(this);
  stats_->setColumnCount(4);
  stats_->setHeaderLabels({tr("Rank / phase"), tr("Time"), tr("Share"), tr("Events")});
  stats_->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
  status_ = new QLabel(this);
  status_->setWordWrap(true);

  auto* side = new QWidget(this);
  auto* sideLayout = new QVBoxLayout(side);
  sideLayout->setContentsMargins(0, 0, 0, 0);
  sideLayout->addWidget(details_);
  sideLayout->addWidget(rangeLabel_);
  sideLayout->addWidget(stats_, 1);
  sideLayout->addWidget(status_);

  auto* split = new QSplitter(Qt::Horizontal, this);
  split->setObjectName(QStringLiteral("timelineSplit"));
  split->addWidget(view_);
  split->addWidget(side);
  split->setStretchFactor(0, 4);
  split->setSizes({1000, 320});

  auto* layout = new QVBoxLayout(this);
  layout->addLayout(bar);
  layout->addWidget(split, 1);

  connect(rows_, qOverload<int>(&QComboBox::activated), this, [this](int index) {
    view_->setRowMode(index == 1 ? TimelineView::RowMode::ByTensor : TimelineView::RowMode::ByRank);
  });
  connect(fit, &QPushButton::clicked, view_, &TimelineView::zoomToFit);
  connect(view_, &TimelineView::rangeSelected, this, &TimelinePage::showStats);
  connect(view_, &TimelineView::eventClicked, this, &TimelinePage::showEvent);
  connect(importFiles, &QAction::triggered, this, [this] {
    const QStringList paths = QFileDialog::getOpenFileNames(
        this, tr("Import timeline"), {}, tr("Traces (*.json *.json.gz *.trace);;All files (*)"));
    if (!paths.isEmpty()) Q_EMIT importRequested(paths);
  });
  connect(importFolder, &QAction::triggered, this, [this] {
    const QString folder = QFileDialog::getExistingDirectory(this, tr("Import a folder of per-rank traces"));
    if (!folder.isEmpty()) Q_EMIT importRequested({folder});
  });
  connect(exportButton, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export visible range"), QStringLiteral("timeline.json"), tr("Chrome trace (*.json)"));
    if (!path.isEmpty()) exportVisibleRange(path);
  });
  connect(this, &TimelinePage::exported, this, [this](const QString& path, const QString& error) {
    status_->setText(error.isEmpty() ? tr("Saved <a href=\"file://%1\">%1</a>").arg(path.toHtmlEscaped())
                                     : tr("Could not export: %1").arg(error));
    status_->setOpenExternalLinks(true);
  });
}

void TimelinePage::setModel(const console::TimelineModel* model) {
  model_ = model;
  view_->setModel(model);
  stats_->clear();
  details_->setText(tr("Click an event to see its details."));
  // A run of the Horovod engine reads best by tensor when it has no per-rank lanes.
  if (model && model->rankRows().empty() && !model->tensorRows().empty()) {
    rows_->setCurrentIndex(1);
    view_->setRowMode(TimelineView::RowMode::ByTensor);
  }
}

void TimelinePage::modelChanged() {
  view_->modelChanged();
}

void TimelinePage::highlightRank(int rank) {
  view_->highlightRank(rank);
}

void TimelinePage::showRange(int64_t t0, int64_t t1) {
  const int64_t margin = (t1 - t0) / 10;
  view_->setVisibleRange(t0 - margin, t1 + margin);
  view_->setSelection(t0, t1);
  showStats(t0, t1);
}

QString TimelinePage::detailsText() const {
  return details_->text();
}

void TimelinePage::showEvent(int lane, int index) {
  if (!model_) return;
  const auto& e = model_->events(lane)[static_cast<size_t>(index)];
  const auto& l = model_->lane(lane);
  QString html =
      QStringLiteral("<b>%1</b><br>").arg(QString::fromStdString(model_->name(e.name)).toHtmlEscaped());
  html += tr("rank %1, lane %2, step %3")
              .arg(e.rank)
              .arg(QString::fromStdString(l.name).toHtmlEscaped())
              .arg(e.step);
  html += QStringLiteral("<br>") + tr("start %1, duration %2")
                                       .arg(formatDuration(static_cast<double>(e.startNs)))
                                       .arg(formatDuration(static_cast<double>(e.endNs - e.startNs)));
  for (const auto& [key, value] : model_->args(e)) {
    html +=
        QStringLiteral("<br>%1: %2")
            .arg(QString::fromStdString(key).toHtmlEscaped(), QString::fromStdString(value).toHtmlEscaped());
  }
  if (l.isTensor() && model_->name(e.name).rfind("NEGOTIATE", 0) == 0) {
    const int late = model_->lateRank(lane, e);
    if (late >= 0) html += QStringLiteral("<br>") + tr("last rank ready: <b>%1</b>").arg(late);
  }
  details_->setText(html);
}

void TimelinePage::showStats(int64_t t0, int64_t t1) {
  stats_->clear();
  if (!model_ || t1 <= t0) return;
  rangeLabel_->setText(tr("Range %1 – %2 (%3)")
                           .arg(formatDuration(static_cast<double>(t0)),
                                formatDuration(static_cast<double>(t1)),
                                formatDuration(static_cast<double>(t1 - t0))));
  const auto stats = model_->rangeStats(t0, t1);
  for (const auto& [rank, phases] : stats) {
    auto* rankItem = new QTreeWidgetItem(stats_, {tr("rank %1").arg(rank)});
    for (const auto& [phase, s] : phases) {
      new QTreeWidgetItem(
          rankItem, {QString::fromStdString(phase), formatDuration(static_cast<double>(s.totalNs)),
                     QStringLiteral("%1 %").arg(
                         100.0 * static_cast<double>(s.busyNs) / static_cast<double>(t1 - t0), 0, 'f', 1),
                     QString::number(s.count)});
    }
    rankItem->setExpanded(stats.size() <= 8);
  }
}

void TimelinePage::exportVisibleRange(const QString& path) {
  if (!model_) return;
  // Collecting the events is quick; the writing happens off the GUI thread.
  auto events = std::make_shared<std::vector<v1::TimelineEvent>>(
      model_->eventsIn(view_->visibleBegin(), view_->visibleEnd()));
  const std::string file = path.toStdString();
  console::runInBackground<bool>(
      this,
      [events, file] {
        ChromeTraceWriter writer(file);
        for (const auto& e : *events) writer.add(e);
        writer.flush();
        return true;
      },
      [this, path](bool) { Q_EMIT exported(path, {}); },
      [this, path](const QString& error) { Q_EMIT exported(path, error); });
}

}  // namespace ringmaster::gui
