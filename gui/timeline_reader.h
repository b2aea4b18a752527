// SPDX-License-Identifier: GPL-3.0-or-later
// A long stored run's timeline is read a range at a time: once the Timeline page shows time the shown run
// does not hold, what it shows with a view's width on either side is read from the store (the zoom's or
// pan's many steps coalesced; one read at a time) and replaces the run's timeline.
#pragma once

#include <QObject>

class QTimer;

namespace ringmaster::console {
struct RunData;
class StoreAccess;
}  // namespace ringmaster::console

namespace ringmaster::gui {

class TimelinePage;

class TimelineReader : public QObject {
  Q_OBJECT

 public:
  TimelineReader(console::StoreAccess* store, TimelinePage* page, QObject* parent = nullptr);

  // The run the Timeline page shows (nullptr: none); it must outlive the next setRun().
  void setRun(console::RunData* run, int64_t runId);

 Q_SIGNALS:
  // The shown run holds another range of its timeline.
  void read();
  void failed(const QString& message);

 private:
  void readRange();

  console::StoreAccess* store_;
  TimelinePage* page_;
  console::RunData* run_ = nullptr;
  int64_t runId_ = 0;
  QTimer* delay_;
  bool reading_ = false;
};

}  // namespace ringmaster::gui
