// SPDX-License-Identifier: GPL-3.0-or-later
#include "gui/live_run.h"

#include <QPointer>

#include <chrono>
#include <optional>
#include <thread>

namespace ringmaster::gui {
LiveRun::LiveRun(console::LaunchPlan plan, QString storePath, OnRecords onRecords, QObject* parent)
    : QObject(parent), plan_(std::move(plan)), storePath_(std::move(storePath)), onRecords_(std::move(onRecords)) {}

LiveRun::~LiveRun() {
  {
    std::lock_guard lock(mutex_);
    if (launcher_ && !finished_) launcher_->stop(2);
  }
  if (runner_ && runner_->joinable()) runner_->join();
  // The launcher's threads call onRecords(), which uses the store and the diagnosis: end them first.
  launcher_.reset();
}

void LiveRun::start() {
  QPointer<LiveRun> self(this);
  // One thread launches, then follows the job to its end; the launcher's own threads deliver the records.
  runner_ = std::make_shared<std::thread>([this, self] {
    std::string error;
    try {
      NewRun run;
      run.name = plan_.spec.name().empty() ? std::string("unnamed run") : plan_.spec.name();
      run.spec = plan_.spec;
      run.worldSize = static_cast<int>(plan_.spec.world_size());
      ingest_ = std::make_unique<console::RunIngest>(storePath_.toStdString(), run);
      runId_ = ingest_->runId();
      std::lock_guard lock(mutex_);
      if (stopping_) throw std::runtime_error("stopped before it started");
      launcher_ = std::make_unique<console::Launcher>(plan_);
      launcher_->addSink(this);
      launcher_->start();
    } catch (const std::exception& e) {
      error = e.what();
    }
    if (!error.empty()) {
      if (ingest_) ingest_->finish("failed");
      finished_ = true;
      const QString message = QString::fromStdString(error);
      QMetaObject::invokeMethod(self, [self, message] { if (self) Q_EMIT self->failedToStart(message); },
                                Qt::QueuedConnection);
      return;
    }
    const int64_t runId = runId_;
    const QString jobId = QString::fromStdString(launcher_->jobId());
    QMetaObject::invokeMethod(
        self,
        [self, runId, jobId] {
          if (!self) return;
          self->jobId_ = jobId;
          Q_EMIT self->started(runId, jobId);
        },
        Qt::QueuedConnection);

    // Once a second the diagnosis looks again, so a job that goes quiet is still seen (stalls).
    std::optional<console::JobOutcome> outcome;
    while (!(outcome = launcher_->waitFor(std::chrono::seconds(1)))) ingest_->tick();
    const std::string status = outcome->status == console::JobStatus::Succeeded ? "finished"
                               : outcome->status == console::JobStatus::Stopped ? "stopped"
                                                                                 : "failed";
    try {
      ingest_->finish(status);
    } catch (const std::exception&) {
      // The records are stored already; a status that could not be written shows as "running".
    }
    auto findings = std::make_shared<std::vector<v1::Finding>>(ingest_->findings());
    finished_ = true;
    const QString qStatus = QString::fromStdString(status);
    const QString message = QString::fromStdString(outcome->message);
    QMetaObject::invokeMethod(
        self,
        [self, qStatus, message, findings] {
          if (!self) return;
          if (self->onRecords_) self->onRecords_({}, *findings);
          Q_EMIT self->ended(qStatus, message);
        },
        Qt::QueuedConnection);
  });
}

void LiveRun::stop() {
  stopping_ = true;
  std::lock_guard lock(mutex_);
  if (launcher_) launcher_->stop();
}

void LiveRun::onRecords(const std::string& jobId, const std::string& host, const std::vector<v1::Record>& records) {
  try {
    ingest_->onRecords(jobId, host, records);
  } catch (const std::exception&) {
    // A full disk must not stop the views; reopening the run shows what was stored.
  }
  auto batch = std::make_shared<std::vector<v1::Record>>(records);
  auto findings = std::make_shared<std::vector<v1::Finding>>(ingest_->findings());
  QPointer<LiveRun> self(this);
  QMetaObject::invokeMethod(
      this,
      [self, batch, findings] {
        if (self && self->onRecords_) self->onRecords_(*batch, *findings);
      },
      Qt::QueuedConnection);
}

}  // namespace ringmaster::gui
