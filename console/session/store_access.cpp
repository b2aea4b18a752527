// SPDX-License-Identifier: GPL-3.0-or-later
#include "console/session/store_access.h"

namespace ringmaster::console {

StoreAccess::StoreAccess(const QString& path, QObject* parent) : QObject(parent), path_(path) {
  worker_ = new QObject;
  worker_->moveToThread(&thread_);
  connect(&thread_, &QThread::finished, worker_, &QObject::deleteLater);
  thread_.setObjectName(QStringLiteral("run store"));
  thread_.start();
  QPointer<StoreAccess> self(this);
  QMetaObject::invokeMethod(
      worker_,
      [this, self, path = path_.toStdString()] {
        try {
          store_ = std::make_unique<RunStore>(path);
        } catch (const std::exception& e) {
          tellFailed(self, e);
        }
      },
      Qt::QueuedConnection);
}

void StoreAccess::tellFailed(const QPointer<StoreAccess>& self, const std::exception& error) {
  const QString message = QString::fromStdString(error.what());
  postIfAlive(self, [self, message] { Q_EMIT self->failed(message); });
}

StoreAccess::~StoreAccess() {
  // Close the store on its own thread, then stop the thread.
  QMetaObject::invokeMethod(
      worker_, [this] { store_.reset(); }, Qt::BlockingQueuedConnection);
  thread_.quit();
  thread_.wait();
}

}  // namespace ringmaster::console
