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
        QObject* target = guard.data();
        if (!target) return;
        QMetaObject::invokeMethod(
            target,
            [guard, result, error, done = std::move(done), failed = std::move(failed)]() mutable {
              if (!guard) return;
              if (error.isEmpty()) {
                done(std::move(*result));
              } else if (failed) {
                failed(error);
              }
            },
            Qt::QueuedConnection);
      });
  QObject::connect(thread, &QThread::finished, thread, &QObject::deleteLater);
  thread->start();
}

}  // namespace ringmaster::console
