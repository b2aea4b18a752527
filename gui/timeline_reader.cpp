// SPDX-License-Identifier: GPL-3.0-or-later
#include "gui/timeline_reader.h"

#include <QTimer>
#include <memory>

#include "console/models/run_data.h"
#include "console/session/store_access.h"
#include "gui/pages/timeline_page.h"
#include "gui/views/timeline_view.h"

namespace ringmaster::gui {
namespace {

// A wheel's or a drag's many steps make one read of the timeline.
constexpr std::chrono::milliseconds kTimelineReadDelay{100};

}  // namespace

TimelineReader::TimelineReader(console::StoreAccess* store, TimelinePage* page, QObject* parent)
    : QObject(parent), store_(store), page_(page), delay_(new QTimer(this)) {
  delay_->setSingleShot(true);
  delay_->setInterval(kTimelineReadDelay);
  connect(delay_, &QTimer::timeout, this, &TimelineReader::readRange);
  connect(page_->view(), &TimelineView::visibleRangeChanged, this, [this](int64_t t0, int64_t t1) {
    if (run_ && !run_->timeline.holds(t0, t1)) delay_->start();
  });
}

void TimelineReader::setRun(console::RunData* run, int64_t runId) {
  run_ = run;
  runId_ = runId;
}

void TimelineReader::readRange() {
  if (!run_ || reading_) return;  // the read under way looks again when it ends
  const int64_t t0 = page_->view()->visibleBegin(), t1 = page_->view()->visibleEnd();
  if (run_->timeline.holds(t0, t1)) return;
  const int64_t width = t1 - t0;
  struct Read {
    std::shared_ptr<console::TimelineModel> model;
    std::string error;
  };
  reading_ = true;
  store_->post<Read>(
      this,
      [runId = runId_, extent = run_->timelineExtent, from = t0 - width, to = t1 + width](RunStore& s) {
        Read read;
        try {
          read.model =
              std::make_shared<console::TimelineModel>(console::loadTimeline(s, runId, extent, from, to));
        } catch (const std::exception& error) {
          read.error = error.what();
        }
        return read;
      },
      [this, runId = runId_](Read result) {
        reading_ = false;
        if (!run_ || runId_ != runId) {
          readRange();  // for the run shown now, if it needs one
          return;
        }
        if (!result.model) {
          Q_EMIT failed(QString::fromStdString(result.error));
          return;
        }
        page_->replaceModel([&] { run_->timeline = std::move(*result.model); });
        Q_EMIT read();
        readRange();  // the view may have moved on meanwhile
      });
}

}  // namespace ringmaster::gui
