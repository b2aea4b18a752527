// SPDX-License-Identifier: GPL-3.0-or-later
// The run store, used from one worker thread: the GUI posts work and gets results back as queued calls, so
// SQLite never runs on the GUI thread.
#pragma once

#include <QObject>
#include <QPointer>
#include <QThread>
#include <functional>
#include <memory>

#include "console/session/background.h"
#include "history/run_store.h"

namespace ringmaster::console {

class StoreAccess : public QObject {
  Q_OBJECT

 public:
  // Opens `path` on the worker thread; a failure is reported through failed().
  explicit StoreAccess(const QString& path, QObject* parent = nullptr);
  ~StoreAccess() override;

  const QString& path() const { return path_; }

  // Runs `work` with the store on the worker thread, then `done` with its result on `context`'s thread.
  template <typename T>
  void post(QObject* context, std::function<T(RunStore&)> work, std::function<void(T)> done) {
    QPointer<QObject> guard(context);
    QPointer<StoreAccess> self(this);
    QMetaObject::invokeMethod(
        worker_,
        [this, self, guard, work = std::move(work), done = std::move(done)]() mutable {
          if (!store_) return;
          auto result = std::make_shared<T>();
          try {
            *result = work(*store_);
          } catch (const std::exception& e) {
            tellFailed(self, e);
            return;
          }
          postIfAlive(guard, [result, done = std::move(done)] { done(std::move(*result)); });
        },
        Qt::QueuedConnection);
  }

 Q_SIGNALS:
  void failed(const QString& message);

 private:
  // Emits failed() with what `error` says, on this object's thread, if it still exists then.
  static void tellFailed(const QPointer<StoreAccess>& self, const std::exception& error);

  QString path_;
  QThread thread_;
  QObject* worker_;
  std::unique_ptr<RunStore> store_;  // touched on the worker thread only
};

}  // namespace ringmaster::console
