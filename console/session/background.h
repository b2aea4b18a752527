// SPDX-License-Identifier: GPL-3.0-or-later
// Runs slow work (disk, store, processes) off the GUI thread and hands the result back on it.
#pragma once

#include <QObject>
#include <QPointer>
#include <QThread>
#include <exception>
#include <functional>
#include <memory>
#include <string>

namespace ringmaster::console {

// Calls `call` on `receiver`'s thread, queued, if `receiver` still exists then; nothing when `receiver` is
// null (a QPointer to an object already gone). The one way a worker thread hands something to an object that
// may be deleted before it gets there.
template <typename F>
void postIfAlive(QObject* receiver, F call) {
  if (!receiver) return;
  QPointer<QObject> guard(receiver);
  QMetaObject::invokeMethod(
      receiver,
      [guard, call = std::move(call)]() mutable {
        if (guard) call();
      },
      Qt::QueuedConnection);
}

// Calls `work` on a new thread; then, on `context`'s thread and only if `context` still exists, `done` with
// its result or `failed` with the message of what it threw.
template <typename T>
void runInBackground(QObject* context, std::function<T()> work, std::function<void(T)> done,
                     std::function<void(const QString&)> failed) {
  QPointer<QObject> guard(context);
  QThread* thread = QThread::create(
      [guard, work = std::move(work), done = std::move(done), failed = std::move(failed)]() mutable {
        auto result = std::make_shared<T>();
        QString error;
        try {
          *result = work();
        } catch (const std::exception& e) {
          error = QString::fromStdString(e.what());
        }
        postIfAlive(guard, [result, error, done = std::move(done), failed = std::move(failed)]() mutable {
          if (error.isEmpty()) {
            done(std::move(*result));
          } else if (failed) {
            failed(error);
          }
        });
      });
  QObject::connect(thread, &QThread::finished, thread, &QObject::deleteLater);
  thread->start();
}

}  // namespace ringmaster::console
