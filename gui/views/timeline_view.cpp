// SPDX-License-Identifier: GPL-3.0-or-later
#include "gui/views/timeline_view.h"

#include <QHash>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>
#include <set>

#include "console/models/palette.h"
#include "diagnosis/duration_text.h"
#include "gui/palette.h"

namespace ringmaster::gui {
namespace {

constexpr int kRowHeight = 18;
constexpr int kAxisHeight = 26;
constexpr int kLegendLine = 20;
constexpr double kZoomStep = 1.25;
constexpr double kMinNsPerPixel = 0.01;
constexpr int kClickSlopPx = 4;
// Events narrower than this many pixels merge with their neighbours: a frame then holds about one box per
// few pixels of each row, whatever the zoom.
constexpr double kMergeBelowPixels = 3.0;
// A key press pans by this share of the view.
constexpr double kKeyPanShare = 0.1;
// Room around a range zoomed to, as a share of it on each side.
constexpr double kZoomMargin = 0.05;

// The timeline's own phases in the order a step runs them; a legend lists these first.
int phaseOrder(const std::string& name) {
  static const char* const kOrder[] = {"DATA",
                                       "FORWARD",
                                       "BACKWARD",
                                       "OPTIMIZER",
                                       "COMM_WAIT",
                                       "ALLREDUCE",
                                       "ALLREDUCE_WAIT",
                                       "NEGOTIATE_ALLREDUCE",
                                       "QUEUE",
                                       "MEMCPY_IN_FUSION_BUFFER",
                                       "GLOO_ALLREDUCE",
                                       "NCCL_ALLREDUCE",
                                       "MEMCPY_OUT_FUSION_BUFFER"};
  for (int i = 0; i < static_cast<int>(std::size(kOrder)); ++i) {
    if (name == kOrder[i]) return i;
  }
  return static_cast<int>(std::size(kOrder));
}

}  // namespace

QString formatDuration(double ns) {
  return QString::fromStdString(ringmaster::formatDuration(ns));
}

QStringList distinctElided(const QStringList& texts, const QFontMetrics& fm, int width) {
  QStringList out;
  QHash<QString, QList<int>> byElided;
  for (int i = 0; i < texts.size(); ++i) {
    out << fm.elidedText(texts[i], Qt::ElideMiddle, width);
    byElided[out.back()].append(i);
  }
  const QString ellipsis = QStringLiteral("…");
  for (const QList<int>& same : byElided) {
    if (same.size() < 2) continue;
    for (int i : same) {
      // Where this text parts from the others that look the same: start there, with a little context.
      int common = 0;
      for (int j : same) {
        if (j == i || texts[j] == texts[i]) continue;
        int k = 0;
        while (k < texts[i].size() && k < texts[j].size() && texts[i][k] == texts[j][k]) ++k;
        common = std::max(common, k);
      }
      if (common == 0) continue;
      const int from = std::max(0, common - 6);
      const QString tail = texts[i].mid(from);
      out[i] = from == 0
                   ? fm.elidedText(tail, Qt::ElideRight, width)
                   : ellipsis + fm.elidedText(tail, Qt::ElideRight, width - fm.horizontalAdvance(ellipsis));
    }
  }
  return out;
}

TimelineView::TimelineView(QWidget* parent) : QWidget(parent) {
  setMouseTracking(true);  // where the pointer rests is where W and S zoom
  setFocusPolicy(Qt::StrongFocus);
  setMinimumSize(400, 200);
  setAttribute(Qt::WA_OpaquePaintEvent);
}

void TimelineView::setModel(const console::TimelineModel* model) {
  model_ = model;
  // A selection belongs to its run: another run starts with none, at the top, fitted.
  selectedLane_ = selectedEvent_ = -1;
  selBegin_ = selEnd_ = 0;
  rowScroll_ = 0;
  rebuildRows();
  if (model && model->window()) {
    // A long stored run opens on the beginning it holds, with room to pan before it reads more.
    const auto& w = *model->window();
    setVisibleRange(w.fromNs, w.fromNs + (w.toNs - w.fromNs) / 3);
    openedRange_ = {w.fromNs, w.fromNs + (w.toNs - w.fromNs) / 3};
  } else {
    zoomToFit();
  }
  Q_EMIT selectionChanged();
}

void TimelineView::modelReplaced(int lane, int event) {
  selectedLane_ = event >= 0 ? lane : -1;
  selectedEvent_ = lane >= 0 ? event : -1;
  rebuildRows();
  update();
  Q_EMIT selectionChanged();
}

void TimelineView::modelChanged() {
  rebuildRows();
  update();
}

void TimelineView::setRowMode(RowMode mode) {
  mode_ = mode;
  rowScroll_ = 0;
  rebuildRows();
  update();
}

void TimelineView::rebuildRows() {
  rows_.clear();
  labelWidth_ = -1;
  if (!model_) return;
  rows_ = mode_ == RowMode::ByRank ? model_->rankRows() : model_->tensorRows();
}

int TimelineView::labelWidth() const {
  // Measured once per font, rows and size: shaping the text costs microseconds, and xOf() asks for the plot
  // twice per box. Wide enough for the longest label, up to three tenths of the view.
  if (labelWidth_ < 0) {
    const QFontMetrics fm = fontMetrics();
    const int least = fm.horizontalAdvance(QStringLiteral("rank 00 · compute ")) + 8;
    int longest = 0;
    constexpr size_t kMeasuredRows = 2000;  // enough to know the labels are long
    for (size_t row = 0; row < std::min(rows_.size(), kMeasuredRows); ++row) {
      longest = std::max(longest, fm.horizontalAdvance(rowLabel(rows_[row])) + 16);
    }
    labelWidth_ = std::clamp(longest, least, std::max(least, width() * 3 / 10));
  }
  return labelWidth_;
}

QRect TimelineView::plotRect() const {
  const int label = labelWidth();
  return QRect(label, kAxisHeight, std::max(10, width() - label - 4),
               std::max(10, height() - kAxisHeight - legendRect().height() - 4));
}

QRect TimelineView::legendRect() const {
  // The Horovod view names seven long phases and ticks: two lines.
  const int height = (mode_ == RowMode::ByTensor ? 2 : 1) * kLegendLine + 4;
  return QRect(0, this->height() - height, width(), height);
}

bool TimelineView::event(QEvent* event) {
  if (event->type() == QEvent::ToolTip && model_) {
    const auto* help = static_cast<QHelpEvent*>(event);
    const int row = rowAt(help->pos().y());
    if (help->pos().x() < plotRect().left() && row >= 0) {
      QToolTip::showText(help->globalPos(), rowLabel(rows_[static_cast<size_t>(row)]), this);
    } else {
      QToolTip::hideText();
      event->ignore();
    }
    return true;
  }
  return QWidget::event(event);
}

void TimelineView::changeEvent(QEvent* event) {
  if (event->type() == QEvent::FontChange || event->type() == QEvent::StyleChange) labelWidth_ = -1;
  QWidget::changeEvent(event);
}

double TimelineView::nsPerPixel() const {
  return nsPerPixel_;
}
double TimelineView::xOf(int64_t t) const {
  return plotRect().left() + static_cast<double>(t - t0_) / nsPerPixel_;
}
int64_t TimelineView::timeAt(double x) const {
  return t0_ + static_cast<int64_t>(std::llround((x - plotRect().left()) * nsPerPixel_));
}
int64_t TimelineView::visibleEnd() const {
  return t0_ + static_cast<int64_t>(std::llround(plotRect().width() * nsPerPixel_));
}

QPointF TimelineView::pointOf(int row, int64_t t) const {
  return QPointF(xOf(t), plotRect().top() + row * kRowHeight - rowScroll_ + kRowHeight / 2.0);
}

int TimelineView::rowAt(double y) const {
  const QRect plot = plotRect();
  if (y < plot.top()) return -1;
  const int row = static_cast<int>((y - plot.top() + rowScroll_) / kRowHeight);
  return row >= 0 && row < static_cast<int>(rows_.size()) ? row : -1;
}

void TimelineView::setVisibleRange(int64_t t0, int64_t t1) {
  fitted_ = false;
  openedRange_.reset();
  if (t1 <= t0) t1 = t0 + 1000;
  t0_ = t0;
  nsPerPixel_ = std::max(kMinNsPerPixel, static_cast<double>(t1 - t0) / plotRect().width());
  Q_EMIT visibleRangeChanged(t0_, visibleEnd());
  update();
}

void TimelineView::zoomToFit() {
  if (!model_ || (model_->eventCount() == 0 && !model_->window())) {
    setVisibleRange(0, 1'000'000'000);
    return;
  }
  const int64_t span = std::max<int64_t>(model_->runEndNs() - model_->runBeginNs(), 1000);
  setVisibleRange(model_->runBeginNs() - span / 50, model_->runEndNs() + span / 50);
  fitted_ = true;  // kept fitted when the view changes size, until the user zooms or pans
}

void TimelineView::zoomAt(double x, double factor) {
  fitted_ = false;
  openedRange_.reset();
  const int64_t anchor = timeAt(x);
  nsPerPixel_ = std::max(kMinNsPerPixel, nsPerPixel_ / factor);
  t0_ = anchor - static_cast<int64_t>(std::llround((x - plotRect().left()) * nsPerPixel_));
  Q_EMIT visibleRangeChanged(t0_, visibleEnd());
  update();
}

void TimelineView::panPixels(double dx) {
  fitted_ = false;
  openedRange_.reset();
  t0_ -= static_cast<int64_t>(std::llround(dx * nsPerPixel_));
  Q_EMIT visibleRangeChanged(t0_, visibleEnd());
  update();
}

void TimelineView::highlightRank(int rank) {
  highlighted_ = rank;
  // Bring the rank's first row into view.
  for (size_t i = 0; i < rows_.size(); ++i) {
    if (model_ && model_->lane(rows_[i]).rank == rank) {
      scrollToRow(static_cast<int>(i));
      break;
    }
  }
  update();
}

void TimelineView::setSelection(int64_t t0, int64_t t1) {
  selBegin_ = std::min(t0, t1);
  selEnd_ = std::max(t0, t1);
  update();
  Q_EMIT selectionChanged();
}

void TimelineView::clearSelection() {
  selectedLane_ = selectedEvent_ = -1;
  setSelection(0, 0);
}

void TimelineView::scrollToRow(int row) {
  const double y = static_cast<double>(row) * kRowHeight;
  if (y < rowScroll_ || y > rowScroll_ + plotRect().height() - 2 * kRowHeight)
    rowScroll_ = std::max(0.0, y - kRowHeight);
}

void TimelineView::selectEvent(int lane, int event) {
  if (!model_ || lane < 0 || event < 0) {
    selectedLane_ = selectedEvent_ = -1;
    update();
    Q_EMIT selectionChanged();
    return;
  }
  selectedLane_ = lane;
  selectedEvent_ = event;
  const auto it = std::find(rows_.begin(), rows_.end(), lane);
  if (it != rows_.end()) scrollToRow(static_cast<int>(it - rows_.begin()));
  // Left where it is when it is in view and wide enough to see; else centred, an event too narrow to see
  // widened to a tenth of the view, one too wide shown whole.
  const auto& e = model_->events(lane)[static_cast<size_t>(event)];
  const double width = static_cast<double>(e.endNs - e.startNs);
  if (e.startNs >= t0_ && e.endNs <= visibleEnd() && width / nsPerPixel_ >= 4) {
    update();
    Q_EMIT selectionChanged();
    return;
  }
  double span = static_cast<double>(visibleEnd() - t0_);
  if (width / nsPerPixel_ < 4) span = std::max(width * 10, 1000.0);
  if (width > span) span = width * (1 + 2 * kZoomMargin);
  const double middle = static_cast<double>(e.startNs) + width / 2;
  setVisibleRange(static_cast<int64_t>(std::llround(middle - span / 2)),
                  static_cast<int64_t>(std::llround(middle + span / 2)));
  Q_EMIT selectionChanged();
}

void TimelineView::zoomToSelection() {
  int64_t t0 = selBegin_, t1 = selEnd_;
  if (t1 <= t0 && model_ && selectedLane_ >= 0 && selectedEvent_ >= 0) {
    const auto& e = model_->events(selectedLane_)[static_cast<size_t>(selectedEvent_)];
    t0 = e.startNs;
    t1 = std::max(e.endNs, e.startNs + 1);
  }
  if (t1 <= t0) return;
  const auto margin = static_cast<int64_t>(std::ceil(static_cast<double>(t1 - t0) * kZoomMargin));
  setVisibleRange(t0 - margin, t1 + margin);
}

void TimelineView::resizeEvent(QResizeEvent* event) {
  labelWidth_ = -1;
  QWidget::resizeEvent(event);
  if (fitted_) {
    zoomToFit();
  } else if (const auto opened = openedRange_) {
    setVisibleRange(opened->first, opened->second);
    openedRange_ = opened;
  }
  Q_EMIT visibleRangeChanged(t0_, visibleEnd());
}

QString TimelineView::rowLabel(int lane) const {
  const auto& l = model_->lane(lane);
  if (mode_ == RowMode::ByTensor) return QString::fromStdString(l.name);
  // The lanes every rank records (worker/trainer, the engines, the Python package); a tensor's lane is its
  // name.
  const QString name = l.name == "compute" ? tr("compute")
                       : l.name == "comm"  ? tr("comm")
                                           : QString::fromStdString(l.name);
  return tr("rank %1 · %2").arg(l.rank).arg(name);
}

void TimelineView::paintAxis(QPainter& p, const QRect& plot) {
  // Ticks at 1, 2 or 5 times a power of ten, about 100 px apart and never closer than their labels are
  // wide; every label in one unit, with the decimals the step needs.
  const QFontMetrics fm = fontMetrics();
  const int64_t t1 = visibleEnd();
  double step = 1;
  double target = nsPerPixel_ * 100;
  ringmaster::TimeUnit unit;
  for (int attempt = 0; attempt < 8; ++attempt) {
    const double power = std::pow(10.0, std::floor(std::log10(std::max(target, 1.0))));
    step = power * 10;
    for (double m : {1.0, 2.0, 5.0}) {
      if (m * power >= target) {
        step = m * power;
        break;
      }
    }
    const double first = std::ceil(static_cast<double>(t0_) / step) * step;
    const double last = std::floor(static_cast<double>(t1) / step) * step;
    unit = ringmaster::timeUnitFor(std::max(std::abs(first), std::abs(last)), step);
    const int widest =
        std::max(fm.horizontalAdvance(QString::fromStdString(ringmaster::formatTimeIn(first, unit))),
                 fm.horizontalAdvance(QString::fromStdString(ringmaster::formatTimeIn(last, unit))));
    if ((widest + 12) * nsPerPixel_ <= step) break;
    target = (widest + 12) * nsPerPixel_;
  }
  axisLabels_.clear();
  const double first = std::ceil(static_cast<double>(t0_) / step) * step;
  for (double t = first; t <= static_cast<double>(t1); t += step) {
    const double x = xOf(static_cast<int64_t>(std::llround(t)));
    p.setPen(palette().color(QPalette::Mid));
    p.drawLine(QPointF(x, kAxisHeight - 6), QPointF(x, plot.bottom()));
    p.setPen(palette().color(QPalette::WindowText));
    const QString label = QString::fromStdString(ringmaster::formatTimeIn(t, unit));
    if (x + 3 + fm.horizontalAdvance(label) > width()) break;  // a label cut at the edge reads as another
    axisLabels_ << label;
    p.drawText(QPointF(x + 3, kAxisHeight - 10), label);
  }
  p.setPen(palette().color(QPalette::WindowText));
  p.drawLine(plot.left(), kAxisHeight - 1, plot.right(), kAxisHeight - 1);
}

void TimelineView::paintLegend(QPainter& p, const std::vector<LegendEntry>& entries) {
  const QRect strip = legendRect();
  const QFontMetrics fm = fontMetrics();
  p.fillRect(strip, palette().color(QPalette::Window));
  legendEntries_.clear();
  const int lines = strip.height() / kLegendLine;
  int line = 0;
  int x = strip.left() + 6;
  for (size_t i = 0; i < entries.size(); ++i) {
    const LegendEntry& entry = entries[i];
    const int need = 14 + fm.horizontalAdvance(entry.text) + 12;
    const bool last = i + 1 == entries.size();
    const QString more = tr("+%n more", "", static_cast<int>(entries.size() - i));
    // On the last line, room for this one and for the count of the rest if this is not the last.
    const int reserve = line + 1 == lines && !last ? fm.horizontalAdvance(more) + 8 : 0;
    if (x + need + reserve > strip.right() && x > strip.left() + 6 && line + 1 < lines) {
      ++line;
      x = strip.left() + 6;
    }
    const int middle = strip.top() + 2 + line * kLegendLine + kLegendLine / 2;
    const double baseline = middle + (fm.ascent() - fm.descent()) / 2.0;
    if (x + need + (line + 1 == lines && !last ? fm.horizontalAdvance(more) + 8 : 0) > strip.right()) {
      p.setPen(palette().color(QPalette::WindowText));
      p.drawText(QPointF(x, baseline), more);
      break;
    }
    if (entry.tick) {
      p.setPen(QPen(entry.color, 2));
      p.drawLine(QPointF(x + 5, middle - 6), QPointF(x + 5, middle + 6));
    } else {
      p.setPen(Qt::NoPen);
      p.setBrush(entry.color);
      p.drawRect(QRectF(x, middle - 5, 10, 10));
      p.setBrush(Qt::NoBrush);
    }
    p.setPen(palette().color(QPalette::WindowText));
    p.drawText(QPointF(x + 14, baseline), entry.text);
    legendEntries_ << entry.text;
    x += need;
  }
}

struct TimelineView::Frame {
  // Boxes are gathered by colour and filled in one drawRects() call per colour: per-rectangle painter calls
  // would cost more than everything else in a frame.
  struct Batch {
    QColor color;
    QVector<QRectF> rects;
  };
  // Keyed by name and shade: a merged box is as opaque as its events fill it, so idle time shows even where
  // the gaps are narrower than a pixel.
  std::map<std::pair<console::TimelineModel::NameId, int>, Batch> batches;
  struct Label {
    QRectF rect;
    QString text;
  };
  std::vector<Label> labels;
  std::vector<QRectF> outlines;
  struct TickMark {
    double x, top;
    bool late, mine;
    int rank;
    bool labelled;
  };
  std::vector<TickMark> tickMarks;
};

void TimelineView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), palette().color(QPalette::Base));
  const QRect plot = plotRect();
  lastBoxes_ = 0;
  if (!model_ || rows_.empty()) {
    paintEmptyNotice(p);
    return;
  }
  paintAxis(p, plot);
  p.setClipRect(QRect(0, plot.top(), width(), plot.height()));
  paintRowHeads(p, plot);
  const Frame frame = gatherFrame(plot);
  paintBoxes(p, frame);
  paintTickMarks(p, frame);
  p.setClipping(false);
  paintSelectedRange(p, plot);
  paintLegend(p, legendOf(frame));
}

int TimelineView::firstShownRow() const {
  return std::max(0, static_cast<int>(rowScroll_ / kRowHeight));
}

void TimelineView::paintEmptyNotice(QPainter& p) {
  p.setPen(palette().color(QPalette::WindowText));
  p.drawText(rect(), Qt::AlignCenter,
             mode_ == RowMode::ByTensor
                 ? tr("No tensor activity (the Horovod engine records one row per tensor).")
                 : tr("No timeline events. Turn on timeline recording, or import a timeline."));
}

void TimelineView::paintRowHeads(QPainter& p, const QRect& plot) {
  const int firstRow = firstShownRow();
  const QColor text = palette().color(QPalette::WindowText);
  const QColor alt = palette().color(QPalette::AlternateBase);
  QStringList rowLabels;
  const int rowsShown = std::min(static_cast<int>(rows_.size()) - firstRow, plot.height() / kRowHeight + 2);
  for (int row = firstRow; row < firstRow + rowsShown; ++row)
    rowLabels << rowLabel(rows_[static_cast<size_t>(row)]);
  rowLabels = distinctElided(rowLabels, fontMetrics(), plot.left() - 8);

  for (int row = firstRow; row < static_cast<int>(rows_.size()); ++row) {
    const double top = plot.top() + row * kRowHeight - rowScroll_;
    if (top > plot.bottom()) break;
    const auto& laneInfo = model_->lane(rows_[static_cast<size_t>(row)]);
    const bool emphasised = highlighted_ >= 0 && laneInfo.rank == highlighted_ && mode_ == RowMode::ByRank;
    if (row % 2) p.fillRect(QRectF(0, top, width(), kRowHeight), alt);
    if (emphasised)
      p.fillRect(QRectF(0, top, width(), kRowHeight), palette().color(QPalette::Highlight).lighter(170));
    p.setPen(text);
    p.drawText(QRectF(4, top, plot.left() - 8, kRowHeight), Qt::AlignVCenter | Qt::AlignLeft,
               row - firstRow < rowLabels.size() ? rowLabels[row - firstRow] : QString());
  }
}

TimelineView::Frame TimelineView::gatherFrame(const QRect& plot) {
  Frame frame;
  const int64_t t1 = visibleEnd();
  for (int row = firstShownRow(); row < static_cast<int>(rows_.size()); ++row) {
    const double top = plot.top() + row * kRowHeight - rowScroll_;
    if (top > plot.bottom()) break;
    gatherRow(frame, row, top, t1, plot);
  }
  return frame;
}

void TimelineView::gatherRow(Frame& frame, int row, double top, int64_t t1, const QRect& plot) {
  const int lane = rows_[static_cast<size_t>(row)];
  const auto boxes = model_->boxes(lane, t0_, t1, nsPerPixel_, kMergeBelowPixels);
  lastBoxes_ += boxes.size();
  const auto& events = model_->events(lane);
  for (const auto& box : boxes) {
    const double x0 = std::max<double>(plot.left(), xOf(box.startNs));
    const double x1 = std::min<double>(plot.right() + 1, xOf(box.endNs));
    const QRectF r(x0, top + 2, std::max(1.0, x1 - x0), kRowHeight - 4);
    const bool merged = box.count > 1;
    constexpr int kShades = 4;
    const double fill = std::clamp(
        static_cast<double>(box.sumNs) / static_cast<double>(std::max<int64_t>(1, box.endNs - box.startNs)),
        0.0, 1.0);
    const int shade = merged ? static_cast<int>(std::lround(fill * kShades)) : kShades + 1;
    Frame::Batch& batch = frame.batches[{box.name, shade}];
    if (batch.rects.isEmpty()) {
      batch.color = phaseColor(QString::fromStdString(model_->name(box.name)));
      if (merged) batch.color.setAlpha(60 + 45 * shade);  // many narrow events, partly idle
    }
    batch.rects.append(r);
    if (merged) continue;
    if (r.width() > 40) {
      // A nested event's label replaces its parent's, which it would overwrite.
      while (!frame.labels.empty() && frame.labels.back().rect.intersects(r)) frame.labels.pop_back();
      frame.labels.push_back({r, QString::fromStdString(model_->name(box.name))});
    }
    if (lane == selectedLane_ && static_cast<int>(box.event) == selectedEvent_) frame.outlines.push_back(r);
    // Horovod view: each rank's ready tick inside a negotiation; the last one (the late rank) in red.
    if (mode_ == RowMode::ByTensor && model_->name(box.name).rfind("NEGOTIATE", 0) == 0) {
      const auto& e = events[box.event];
      const auto ticks = model_->ticks(lane, e.startNs, e.endNs);
      for (size_t i = 0; i < ticks.size(); ++i) {
        const bool late = i + 1 == ticks.size() && ticks.size() > 1;
        frame.tickMarks.push_back({xOf(ticks[i].timeNs), top, late, ticks[i].rank == highlighted_,
                                   ticks[i].rank, late && r.width() > 30});
      }
    }
  }
}

void TimelineView::paintBoxes(QPainter& p, const Frame& frame) {
  p.setPen(Qt::NoPen);
  for (const auto& [key, batch] : frame.batches) {
    p.setBrush(batch.color);
    p.drawRects(batch.rects);
  }
  p.setBrush(Qt::NoBrush);
  p.setPen(Qt::black);
  const QFontMetrics fm = fontMetrics();
  for (const Frame::Label& l : frame.labels) {
    p.drawText(l.rect.adjusted(3, 0, -2, 0), Qt::AlignVCenter | Qt::AlignLeft,
               fm.elidedText(l.text, Qt::ElideRight, static_cast<int>(l.rect.width()) - 5));
  }
  p.setPen(QPen(palette().color(QPalette::Highlight), 2));
  for (const QRectF& r : frame.outlines) p.drawRect(r);
}

void TimelineView::paintTickMarks(QPainter& p, const Frame& frame) {
  for (const Frame::TickMark& t : frame.tickMarks) {
    const QColor color =
        t.late ? QColor(0xd6, 0x28, 0x28) : (t.mine ? palette().color(QPalette::Highlight) : Qt::black);
    p.setPen(QPen(color, t.late || t.mine ? 2 : 1));
    p.drawLine(QPointF(t.x, t.top + 1), QPointF(t.x, t.top + kRowHeight - 1));
    if (t.labelled) p.drawText(QPointF(t.x + 2, t.top + kRowHeight - 4), QString::number(t.rank));
  }
}

void TimelineView::paintSelectedRange(QPainter& p, const QRect& plot) {
  if (selEnd_ <= selBegin_) return;
  QColor shade = palette().color(QPalette::Highlight);
  shade.setAlpha(60);
  const double x0 = std::max<double>(plot.left(), xOf(selBegin_));
  const double x1 = std::min<double>(plot.right(), xOf(selEnd_));
  if (x1 > x0) p.fillRect(QRectF(x0, plot.top(), x1 - x0, plot.height()), shade);
}

std::vector<TimelineView::LegendEntry> TimelineView::legendOf(const Frame& frame) const {
  std::map<console::TimelineModel::NameId, double> drawnWidth;
  for (const auto& [key, batch] : frame.batches) {
    double& width = drawnWidth[key.first];
    for (const QRectF& r : batch.rects) width += r.width();
  }
  std::vector<std::pair<console::TimelineModel::NameId, double>> drawn(drawnWidth.begin(), drawnWidth.end());
  std::stable_sort(drawn.begin(), drawn.end(), [&](const auto& a, const auto& b) {
    const int x = phaseOrder(model_->name(a.first)), y = phaseOrder(model_->name(b.first));
    if (x != y) return x < y;
    return a.second > b.second;
  });
  std::vector<LegendEntry> legend;
  std::set<std::string> kinds;
  for (const auto& [name, width] : drawn) {
    // Numbered events of one kind (ProfilerStep#1, #2, …) have one colour and one entry.
    const std::string kind = console::phaseKind(model_->name(name));
    if (!kinds.insert(kind).second) continue;
    const QString text = QString::fromStdString(kind);
    legend.push_back({phaseColor(text), text, false});
  }
  if (mode_ == RowMode::ByTensor) {
    legend.push_back({Qt::black, tr("rank ready"), true});
    legend.push_back({QColor(0xd6, 0x28, 0x28), tr("last rank ready"), true});
  }
  return legend;
}

void TimelineView::wheelEvent(QWheelEvent* event) {
  const double steps = event->angleDelta().y() / 120.0;
  if (event->modifiers() & Qt::ShiftModifier) {
    rowScroll_ =
        std::clamp(rowScroll_ - steps * 3 * kRowHeight, 0.0,
                   std::max(0.0, static_cast<double>(rows_.size()) * kRowHeight - plotRect().height()));
    update();
  } else if (steps != 0) {
    zoomAt(event->position().x(), std::pow(kZoomStep, steps));
  }
  event->accept();
}

void TimelineView::keyPressEvent(QKeyEvent* event) {
  const QRect plot = plotRect();
  // W and S zoom around the pointer when it rests on the plot, else around the middle.
  const double anchor = hoverX_ >= plot.left() && hoverX_ <= plot.right() ? hoverX_ : plot.center().x();
  switch (event->key()) {
    case Qt::Key_W:
    case Qt::Key_Plus:
    case Qt::Key_Equal:
      zoomAt(anchor, kZoomStep);
      break;
    case Qt::Key_S:
    case Qt::Key_Minus:
      zoomAt(anchor, 1 / kZoomStep);
      break;
    case Qt::Key_A:
    case Qt::Key_Left:
      panPixels(plot.width() * kKeyPanShare);
      break;
    case Qt::Key_D:
    case Qt::Key_Right:
      panPixels(-plot.width() * kKeyPanShare);
      break;
    case Qt::Key_F:
      zoomToSelection();
      break;
    case Qt::Key_Escape:
      if (!hasSelection()) {
        QWidget::keyPressEvent(event);
        return;
      }
      clearSelection();
      Q_EMIT rangeSelected(0, 0);
      break;
    default:
      QWidget::keyPressEvent(event);
      return;
  }
  event->accept();
}

void TimelineView::leaveEvent(QEvent* event) {
  hoverX_ = -1;
  QWidget::leaveEvent(event);
}

void TimelineView::mousePressEvent(QMouseEvent* event) {
  pressAt_ = lastAt_ = event->position();
  const bool select = event->button() == Qt::RightButton || (event->modifiers() & Qt::ShiftModifier);
  drag_ = select ? Drag::Select : Drag::Pan;
  if (select) setSelection(timeAt(pressAt_.x()), timeAt(pressAt_.x()));
}

void TimelineView::mouseMoveEvent(QMouseEvent* event) {
  const QPointF at = event->position();
  hoverX_ = at.x();
  if (drag_ == Drag::Pan) {
    panPixels(at.x() - lastAt_.x());
    const double maxScroll =
        std::max(0.0, static_cast<double>(rows_.size()) * kRowHeight - plotRect().height());
    rowScroll_ = std::clamp(rowScroll_ - (at.y() - lastAt_.y()), 0.0, maxScroll);
  } else if (drag_ == Drag::Select) {
    setSelection(timeAt(pressAt_.x()), timeAt(at.x()));
  }
  lastAt_ = at;
}

void TimelineView::mouseReleaseEvent(QMouseEvent* event) {
  const QPointF at = event->position();
  const bool click = (at - pressAt_).manhattanLength() <= kClickSlopPx;
  if (drag_ == Drag::Select && !click) {
    Q_EMIT rangeSelected(selBegin_, selEnd_);
  } else if (click && model_) {
    if (drag_ == Drag::Select) {
      setSelection(0, 0);
      Q_EMIT rangeSelected(0, 0);
    }
    const int row = rowAt(at.y());
    if (row >= 0) {
      const int lane = rows_[static_cast<size_t>(row)];
      const int hit = model_->eventAt(lane, timeAt(at.x()), static_cast<int64_t>(kClickSlopPx * nsPerPixel_));
      selectedLane_ = hit >= 0 ? lane : -1;
      selectedEvent_ = hit;
      if (hit >= 0) Q_EMIT eventClicked(lane, hit);
      update();
      Q_EMIT selectionChanged();
    }
  }
  drag_ = Drag::None;
}

}  // namespace ringmaster::gui
