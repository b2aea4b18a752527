// SPDX-License-Identifier: GPL-3.0-or-later
// A custom-painted timeline over TimelineModel: rows of lanes (by rank, or Horovod-style by tensor with every
// rank's ready tick), wheel to zoom around the pointer, drag to pan, shift-drag (or right-drag) to select a
// range, click for an event's details; Perfetto's keys W/S (zoom) and A/D (pan), F to zoom to the selection,
// Escape to clear it. A legend names the colours drawn. Each frame asks the model for level-of-detail boxes,
// so the cost follows the pixels shown rather than the events held.
#pragma once

#include <QFontMetrics>
#include <QStringList>
#include <QWidget>
#include <optional>
#include <utility>

#include "console/models/timeline_model.h"

namespace ringmaster::gui {

class TimelineView : public QWidget {
  Q_OBJECT

 public:
  enum class RowMode { ByRank, ByTensor };

  explicit TimelineView(QWidget* parent = nullptr);

  // Not owned; call modelChanged() after adding events.
  void setModel(const console::TimelineModel* model);
  void modelChanged();
  // Its events were read again for another range of the same run: rows rebuilt; the range shown and the
  // selected range kept; the selected event is now `event` of `lane` (-1: none), left where it is.
  void modelReplaced(int lane = -1, int event = -1);
  void setRowMode(RowMode mode);
  RowMode rowMode() const { return mode_; }

  // The visible time range (ns on the job clock).
  int64_t visibleBegin() const { return t0_; }
  int64_t visibleEnd() const;
  void setVisibleRange(int64_t t0, int64_t t1);
  void zoomToFit();
  // Zooms by `factor` (> 1 zooms in) around the time under pixel x.
  void zoomAt(double x, double factor);
  void panPixels(double dx);
  // Emphasises one rank's rows; -1 for none.
  void highlightRank(int rank);
  int highlightedRank() const { return highlighted_; }
  // The selected range ([0, 0) for none).
  void setSelection(int64_t t0, int64_t t1);
  std::pair<int64_t, int64_t> selection() const { return {selBegin_, selEnd_}; }
  // Outlines an event (as a click does) and brings it into view; lane -1 selects none.
  void selectEvent(int lane, int event);
  std::pair<int, int> selectedEvent() const { return {selectedLane_, selectedEvent_}; }
  // Clears the selected range and event.
  void clearSelection();
  // Whether there is a range or an event to zoom to.
  bool hasSelection() const { return selEnd_ > selBegin_ || selectedEvent_ >= 0; }
  // Shows the selected range (or else the selected event) with a little room on either side.
  void zoomToSelection();
  // Lane indexes of the rows, top to bottom.
  const std::vector<int>& rows() const { return rows_; }
  // Where time t of display row `row` is painted (the middle of the row), in widget coordinates.
  QPointF pointOf(int row, int64_t t) const;
  // Boxes painted by the last frame (benchmarks).
  size_t lastBoxCount() const { return lastBoxes_; }
  // What the last frame wrote under the axis ticks, left to right, and named in its legend.
  QStringList axisLabels() const { return axisLabels_; }
  QStringList legendEntries() const { return legendEntries_; }
  // The legend's strip at the bottom of the view.
  QRect legendRect() const;

  QSize sizeHint() const override { return {900, 500}; }

 Q_SIGNALS:
  void eventClicked(int lane, int event);
  void rangeSelected(int64_t t0, int64_t t1);
  void visibleRangeChanged(int64_t t0, int64_t t1);
  // The selected range or event changed (see hasSelection()).
  void selectionChanged();

 protected:
  void paintEvent(QPaintEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;
  void leaveEvent(QEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  void changeEvent(QEvent* event) override;
  bool event(QEvent* event) override;  // tooltips: a row label's full text

 private:
  int labelWidth() const;
  QRect plotRect() const;
  double nsPerPixel() const;
  double xOf(int64_t t) const;
  int64_t timeAt(double x) const;
  int rowAt(double y) const;
  void rebuildRows();
  // The first display row at least partly in view.
  int firstShownRow() const;
  void paintEmptyNotice(QPainter& p);
  void paintAxis(QPainter& p, const QRect& plot);
  // Each row's stripe, its emphasis when its rank is highlighted, and its label.
  void paintRowHeads(QPainter& p, const QRect& plot);
  // What a frame draws over the rows, gathered row by row before any of it is painted.
  struct Frame;
  Frame gatherFrame(const QRect& plot);
  // Row `row`, whose top is at `top`: its boxes between the view's start and t1.
  void gatherRow(Frame& frame, int row, double top, int64_t t1, const QRect& plot);
  void paintBoxes(QPainter& p, const Frame& frame);
  void paintTickMarks(QPainter& p, const Frame& frame);
  void paintSelectedRange(QPainter& p, const QRect& plot);
  // Legend entries: a colour swatch or a tick mark (a pen colour) and its text.
  struct LegendEntry {
    QColor color;
    QString text;
    bool tick = false;
  };
  // The names the frame drew, the timeline's phases first and then the rest by the width they took.
  std::vector<LegendEntry> legendOf(const Frame& frame) const;
  void paintLegend(QPainter& p, const std::vector<LegendEntry>& entries);
  void scrollToRow(int row);
  QString rowLabel(int lane) const;

  const console::TimelineModel* model_ = nullptr;
  RowMode mode_ = RowMode::ByRank;
  std::vector<int> rows_;
  int64_t t0_ = 0;
  double nsPerPixel_ = 1000;
  int highlighted_ = -1;
  int64_t selBegin_ = 0;
  int64_t selEnd_ = 0;
  int selectedLane_ = -1;
  int selectedEvent_ = -1;
  // Dragging: panning or selecting, from where.
  enum class Drag { None, Pan, Select } drag_ = Drag::None;
  QPointF pressAt_;
  QPointF lastAt_;
  double rowScroll_ = 0;
  size_t lastBoxes_ = 0;
  QStringList axisLabels_;
  QStringList legendEntries_;
  double hoverX_ = -1;   // where the pointer rests over the view, for keyboard zoom; -1 when outside
  bool fitted_ = false;  // the range is Fit's: a new size fits again
  // The beginning a long stored run opened on: a new size shows the same range, until the user zooms or pans.
  std::optional<std::pair<int64_t, int64_t>> openedRange_;
  mutable int labelWidth_ = -1;  // width of the row labels' column; -1 until measured for the current font
};

// "1.25 ms", "340 µs", "2.5 s" for a duration in ns.
QString formatDuration(double ns);

// Each text elided to `width` pixels in the middle, except that texts which would then look the same show the
// part where they differ instead ("…layer3.weight" and "…layer4.weight", not "Distr…ght" twice).
QStringList distinctElided(const QStringList& texts, const QFontMetrics& fm, int width);

}  // namespace ringmaster::gui
