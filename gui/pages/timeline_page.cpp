// SPDX-License-Identifier: GPL-3.0-or-later
#include "gui/pages/timeline_page.h"

#include <QComboBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QPushButton>
#include <QRegularExpression>
#include <QShortcut>
#include <QSplitter>
#include <QToolButton>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <optional>

#include "common/chrome_trace.h"
#include "console/session/background.h"
#include "diagnosis/duration_text.h"
#include "gui/views/chart_export.h"
#include "gui/views/timeline_view.h"

namespace ringmaster::gui {
namespace {

QString timeText(double ns, const TimeUnit& unit) {
  return QString::fromStdString(formatTimeIn(ns, unit));
}

// Bytes as binary multiples: "4.00 MiB".
QString bytesText(double bytes) {
  static const char* const kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int unit = 0;
  while (std::abs(bytes) >= 1024 && unit < 4) bytes /= 1024, ++unit;
  return unit == 0 ? QStringLiteral("%1 B").arg(bytes, 0, 'f', 0)
                   : QStringLiteral("%1 %2").arg(bytes, 0, 'f', 2).arg(QLatin1String(kUnits[unit]));
}

// Shares in tenths of a percent that add up to exactly 1000: each rounded down, then the tenths left over go
// to the largest remainders.
std::vector<int> sharesInTenths(const std::vector<int64_t>& parts) {
  int64_t whole = 0;
  for (int64_t part : parts) whole += part;
  std::vector<int> tenths(parts.size(), 0);
  if (whole <= 0) return tenths;
  std::vector<std::pair<double, size_t>> remainders;
  int given = 0;
  for (size_t i = 0; i < parts.size(); ++i) {
    const double exact = 1000.0 * static_cast<double>(parts[i]) / static_cast<double>(whole);
    tenths[i] = static_cast<int>(std::floor(exact));
    given += tenths[i];
    remainders.emplace_back(exact - tenths[i], i);
  }
  std::stable_sort(remainders.begin(), remainders.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  for (size_t i = 0; given < 1000 && i < remainders.size(); ++i, ++given) ++tenths[remainders[i].second];
  return tenths;
}

QString percentText(int tenths) {
  return QStringLiteral("%1 %").arg(tenths / 10.0, 0, 'f', 1);
}

}  // namespace

TimelinePage::TimelinePage(QWidget* parent) : QWidget(parent) {
  view_ = new TimelineView(this);
  const ToolBar tools = createToolBar();
  QWidget* side = createSidePanel();
  layOut(tools, side);
  connectSignals(tools);
}

TimelinePage::ToolBar TimelinePage::createToolBar() {
  rows_ = new QComboBox(this);
  rows_->addItem(tr("Rows by rank (compute and communication)"));
  rows_->addItem(tr("Rows by tensor (Horovod view, ready ticks)"));
  // Whole where there is room; on a 1024-pixel-wide screen the toolbar fits by cutting the choice short.
  rows_->setMinimumWidth(rows_->fontMetrics().horizontalAdvance(rows_->itemText(0).left(16)) + 40);
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
  zoomToSelection_ = new QPushButton(tr("Zoom to selection"), this);
  zoomToSelection_->setToolTip(tr("Show the selected range, or the selected event, across the view (F)"));
  zoomToSelection_->setEnabled(false);
  find_ = new QLineEdit(this);
  find_->setObjectName(QStringLiteral("timelineFind"));
  find_->setPlaceholderText(tr("Find by name…"));
  find_->setToolTip(tr("An event's name or a row's name (a tensor, a lane); Enter finds the next (Ctrl+F)"));
  find_->setClearButtonEnabled(true);
  find_->setMinimumWidth(find_->fontMetrics().horizontalAdvance(QStringLiteral("MEMCPY_IN_FUSION")));
  auto* findPrevious = new QToolButton(this);
  findPrevious->setArrowType(Qt::LeftArrow);
  findPrevious->setToolTip(tr("Previous match"));
  auto* findNextButton = new QToolButton(this);
  findNextButton->setArrowType(Qt::RightArrow);
  findNextButton->setToolTip(tr("Next match (Enter)"));
  findStatus_ = new QLabel(this);
  auto* hint = new QLabel(tr("W S: zoom · A D: pan · wheel: zoom · drag: pan · shift-drag: select a range · "
                             "F: zoom to selection · Esc: clear it · click: details"),
                          this);
  hint->setEnabled(false);
  hint->setWordWrap(true);
  return {fit,       import,       importFiles,    importFolder, exportButton,
          saveImage, findPrevious, findNextButton, hint};
}

QWidget* TimelinePage::createSidePanel() {
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
  stats_->headerItem()->setToolTip(
      2, tr("Each moment of a rank counts once: for compute first, then for the most recently started "
            "activity; a rank's shares, idle included, add up to 100 %"));
  status_ = new QLabel(this);
  status_->setWordWrap(true);

  auto* side = new QWidget(this);
  auto* sideLayout = new QVBoxLayout(side);
  sideLayout->setContentsMargins(0, 0, 0, 0);
  sideLayout->addWidget(details_);
  sideLayout->addWidget(rangeLabel_);
  sideLayout->addWidget(stats_, 1);
  sideLayout->addWidget(status_);
  return side;
}

void TimelinePage::layOut(const ToolBar& tools, QWidget* side) {
  auto* bar = new QHBoxLayout;
  bar->addWidget(rows_);
  bar->addWidget(tools.fit);
  bar->addWidget(zoomToSelection_);
  bar->addWidget(find_);
  bar->addWidget(tools.findPrevious);
  bar->addWidget(tools.findNext);
  bar->addWidget(findStatus_);
  bar->addStretch(1);
  bar->addWidget(tools.import);
  bar->addWidget(tools.exportRange);
  bar->addWidget(tools.saveImage);

  auto* split = new QSplitter(Qt::Horizontal, this);
  split->setObjectName(QStringLiteral("timelineSplit"));
  split->addWidget(view_);
  split->addWidget(side);
  split->setStretchFactor(0, 4);
  split->setSizes({1000, 320});

  auto* layout = new QVBoxLayout(this);
  layout->addLayout(bar);
  layout->addWidget(tools.keyHint);
  layout->addWidget(split, 1);
}

void TimelinePage::connectSignals(const ToolBar& tools) {
  connect(rows_, qOverload<int>(&QComboBox::activated), this, [this](int index) {
    view_->setRowMode(index == 1 ? TimelineView::RowMode::ByTensor : TimelineView::RowMode::ByRank);
    resetFind();
  });
  connect(tools.fit, &QPushButton::clicked, view_, &TimelineView::zoomToFit);
  connect(zoomToSelection_, &QPushButton::clicked, view_, &TimelineView::zoomToSelection);
  connect(view_, &TimelineView::selectionChanged, this,
          [this] { zoomToSelection_->setEnabled(view_->hasSelection()); });
  connect(find_, &QLineEdit::textChanged, this, [this] { resetFind(); });
  connect(find_, &QLineEdit::returnPressed, this, [this] { findNext(true); });
  connect(tools.findNext, &QToolButton::clicked, this, [this] { findNext(true); });
  connect(tools.findPrevious, &QToolButton::clicked, this, [this] { findNext(false); });
  auto* findKey = new QShortcut(QKeySequence::Find, this);
  connect(findKey, &QShortcut::activated, this, [this] {
    find_->setFocus(Qt::ShortcutFocusReason);
    find_->selectAll();
  });
  connect(view_, &TimelineView::rangeSelected, this, &TimelinePage::showStats);
  connect(view_, &TimelineView::eventClicked, this, &TimelinePage::showEvent);
  connect(tools.importFiles, &QAction::triggered, this, &TimelinePage::chooseTracesToImport);
  connect(tools.importFolder, &QAction::triggered, this, &TimelinePage::chooseFolderToImport);
  connect(tools.exportRange, &QPushButton::clicked, this, [this] {
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

void TimelinePage::chooseTracesToImport() {
  const QStringList paths = QFileDialog::getOpenFileNames(
      this, tr("Import timeline"), {},
      tr("Traces and record files (*.json *.json.gz *.trace *.rmrecs);;All files (*)"));
  if (!paths.isEmpty()) Q_EMIT importRequested(paths);
}

void TimelinePage::chooseFolderToImport() {
  const QString folder =
      QFileDialog::getExistingDirectory(this, tr("Import a folder of per-rank traces or record files"));
  if (!folder.isEmpty()) Q_EMIT importRequested({folder});
}

void TimelinePage::setModel(const console::TimelineModel* model) {
  model_ = model;
  // Everything selected belongs to the run shown before: the range, its statistics, the event, the match.
  view_->setModel(model);
  showStats(0, 0);
  details_->setText(tr("Click an event to see its details."));
  resetFind();
  // A run of the Horovod engine reads best by tensor when it has no per-rank lanes.
  if (model && model->rankRows().empty() && !model->tensorRows().empty()) {
    rows_->setCurrentIndex(1);
    view_->setRowMode(TimelineView::RowMode::ByTensor);
  }
}

void TimelinePage::modelChanged() {
  view_->modelChanged();
}

void TimelinePage::replaceModel(const std::function<void()>& replace) {
  const auto [lane, index] = view_->selectedEvent();
  std::optional<console::TimelineModel::Event> chosen;
  std::string name;
  std::pair<int, std::string> key;
  if (model_ && lane >= 0) {
    chosen = model_->events(lane)[static_cast<size_t>(index)];
    name = model_->name(chosen->name);
    key = {model_->lane(lane).rank, model_->lane(lane).name};
  }
  replace();
  resetFind();
  int found = -1;
  if (chosen && lane < model_->laneCount() && model_->lane(lane).rank == key.first &&
      model_->lane(lane).name == key.second) {
    const auto& events = model_->events(lane);
    auto it = std::lower_bound(events.begin(), events.end(), chosen->startNs,
                               [](const auto& e, int64_t t) { return e.startNs < t; });
    for (; it != events.end() && it->startNs == chosen->startNs; ++it) {
      if (it->endNs == chosen->endNs && model_->name(it->name) == name) {
        found = static_cast<int>(it - events.begin());
        break;
      }
    }
  }
  view_->modelReplaced(lane, found);
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

QString TimelinePage::rangeText() const {
  return rangeLabel_->text();
}

void TimelinePage::resetFind() {
  found_ = {};
  foundRows_.clear();
  findStatus_->clear();
}

void TimelinePage::findNext(bool forward) {
  const std::string text = find_->text().trimmed().toStdString();
  if (!model_ || text.empty()) return;
  const std::vector<int>& rows = view_->rows();
  console::TimelineModel::Hit from;
  if (found_.found() && rows == foundRows_) {
    from = found_;
  } else {
    from.startNs = forward ? view_->visibleBegin() : view_->visibleEnd();  // from what is shown
  }
  auto hit = model_->findNext(rows, text, from, forward);
  if (!hit.found()) {  // round again from the other end
    console::TimelineModel::Hit end;
    end.startNs = forward ? INT64_MIN : INT64_MAX;
    hit = model_->findNext(rows, text, end, forward);
  }
  if (!hit.found()) {
    resetFind();
    findStatus_->setText(tr("No match"));
    return;
  }
  found_ = hit;
  foundRows_ = rows;
  const int lane = rows[static_cast<size_t>(hit.row)];
  view_->selectEvent(lane, hit.event);
  showEvent(lane, hit.event);
  findStatus_->setText(
      tr("%1 of %2").arg(model_->countMatches(rows, text, &hit) + 1).arg(model_->countMatches(rows, text)));
}

void TimelinePage::showEvent(int lane, int index) {
  if (!model_) return;
  const auto& e = model_->events(lane)[static_cast<size_t>(index)];
  const auto& l = model_->lane(lane);
  const double duration = static_cast<double>(e.endNs - e.startNs);
  QString html =
      QStringLiteral("<b>%1</b><br>").arg(QString::fromStdString(model_->name(e.name)).toHtmlEscaped());
  html += tr("rank %1, lane %2, step %3")
              .arg(e.rank)
              .arg(QString::fromStdString(l.name).toHtmlEscaped())
              .arg(e.step);
  // Times told apart to a hundredth of the event (at least to the microsecond).
  const double resolution = std::max(duration / 100, 1000.0);
  const TimeUnit startUnit = timeUnitFor(static_cast<double>(e.startNs), resolution);
  html += QStringLiteral("<br>") + tr("start %1, duration %2")
                                       .arg(timeText(static_cast<double>(e.startNs), startUnit))
                                       .arg(formatDuration(duration));
  for (const auto& [key, value] : model_->args(e)) {
    QString name = QString::fromStdString(key);
    QString shown = QString::fromStdString(value);
    bool isNumber = false;
    const double number = shown.toDouble(&isNumber);
    static const QRegularExpression kNanoseconds(QStringLiteral("_ns\\b"));
    if (isNumber && name.contains(kNanoseconds)) {
      // A time on the run's clock ("ready_ns rank 1") reads as when, and how long after the event began; a
      // figure far from it is a duration.
      name.remove(kNanoseconds);
      const double after = number - static_cast<double>(e.startNs);
      if (number <= 0) {
        shown = tr("not reported");
      } else if (std::abs(after) <= std::max(std::abs(static_cast<double>(e.startNs)), 1e9) / 2) {
        shown = (after < 0 ? tr("%1 (%2 before the start)") : tr("%1 (%2 after the start)"))
                    .arg(timeText(number, timeUnitFor(number, resolution)), formatDuration(std::abs(after)));
      } else {
        shown = formatDuration(number);
      }
    } else if (isNumber && name.endsWith(QStringLiteral("bytes"))) {
      shown = bytesText(number);
    }
    html += QStringLiteral("<br>%1: %2").arg(name.toHtmlEscaped(), shown.toHtmlEscaped());
  }
  if (l.isTensor() && model_->name(e.name).rfind("NEGOTIATE", 0) == 0) {
    const int late = model_->lateRank(lane, e);
    if (late >= 0) html += QStringLiteral("<br>") + tr("last rank ready: <b>%1</b>").arg(late);
  }
  details_->setText(html);
}

void TimelinePage::showStats(int64_t t0, int64_t t1) {
  stats_->clear();
  if (!model_ || t1 <= t0) {
    rangeLabel_->setText(tr("Shift-drag across the timeline to measure a range."));
    return;
  }
  const double length = static_cast<double>(t1 - t0);
  const TimeUnit unit =
      timeUnitFor(std::max(std::abs(static_cast<double>(t0)), std::abs(static_cast<double>(t1))),
                  std::max(length / 1000, 1.0));
  rangeLabel_->setText(tr("Range %1 – %2 (%3)")
                           .arg(timeText(static_cast<double>(t0), unit),
                                timeText(static_cast<double>(t1), unit), formatDuration(length)));
  const auto stats = model_->rangeStats(t0, t1);
  for (const auto& [rank, phases] : stats) {
    std::vector<int64_t> parts;
    int64_t busy = 0;
    uint32_t events = 0;
    for (const auto& [phase, s] : phases) {
      parts.push_back(s.selfNs);
      busy += s.selfNs;
      events += s.count;
    }
    const int64_t idle = std::max<int64_t>(0, (t1 - t0) - busy);
    parts.push_back(idle);
    const std::vector<int> tenths = sharesInTenths(parts);
    auto* rankItem =
        new QTreeWidgetItem(stats_, {tr("rank %1").arg(rank), formatDuration(static_cast<double>(busy)),
                                     percentText(1000 - tenths.back()), QString::number(events)});
    size_t i = 0;
    for (const auto& [phase, s] : phases) {
      auto* item = new QTreeWidgetItem(
          rankItem, {QString::fromStdString(phase), formatDuration(static_cast<double>(s.selfNs)),
                     percentText(tenths[i++]), QString::number(s.count)});
      item->setToolTip(1, tr("%1 running in all within the range, %2 of it counted here")
                              .arg(formatDuration(static_cast<double>(s.busyNs)))
                              .arg(formatDuration(static_cast<double>(s.selfNs))));
    }
    new QTreeWidgetItem(rankItem, {tr("idle"), formatDuration(static_cast<double>(idle)),
                                   percentText(tenths.back()), QString()});
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
