// SPDX-License-Identifier: GPL-3.0-or-later
#include "gui/live_run.h"

#include <QPointer>

#include <chrono>
#include <optional>
#include <thread>

#include "common/job_spec.h"
#include "console/run_summary.h"
#include "console/timeline_sink.h"

namespace ringmaster::gui {
LiveRun::LiveRun(console::LaunchPlan plan, QString storePath, OnRecords onRecords, QObject* parent,
                 LiveRunFiles files)
    : QObject(parent),
      plan_(std::move(plan)),
      storePath_(std::move(storePath)),
      onRecords_(std::move(onRecords)),
      files_(std::move(files)) {}

LiveRun::~LiveRun() {
  {
    std::lock_guard lock(mutex_);
    if (launcher_ && !finished_ && !detached_) launcher_->stop(2);
  }
  if (runner_ && runner_->joinable()) runner_->join();
  for (auto& control : controls_) control.join();
  // The launcher's threads call onRecords(), which uses the store and the diagnosis: end them first.
  launcher_.reset();
}

void LiveRun::start() {
  QPointer<LiveRun> self(this);
  // One thread launches, then follows the job to its end; the launcher's own threads deliver the records.
  runner_ = std::make_shared<std::thread>([this, self] {
    std::string error;
    QStringList hosts;
    try {
      NewRun run;
      run.name = plan_.spec.name().empty() ? std::string("unnamed run") : plan_.spec.name();
      run.spec = plan_.spec;
      run.worldSize = static_cast<int>(plan_.spec.world_size());
      ingest_ = std::make_unique<console::RunIngest>(storePath_.toStdString(), run);
      runId_ = ingest_->runId();
      v1::JobSpec spec = plan_.spec;
      applyDefaults(spec);
      summary_ = std::make_unique<console::RunSummaryBuilder>(spec);
      if (!files_.timeline.empty()) timeline_ = std::make_unique<console::TimelineSink>(files_.timeline);
      std::lock_guard lock(mutex_);
      if (stopping_) throw std::runtime_error("stopped before it started");
      launcher_ = std::make_unique<console::Launcher>(plan_);
      launcher_->addSink(this);
      launcher_->addSink(summary_.get());
      if (timeline_) launcher_->addSink(timeline_.get());
      launcher_->start();
      launched_ = true;
      for (const auto& p : launcher_->placements()) {
        hosts << QStringLiteral("%1 (ranks %2-%3)")
                     .arg(QString::fromStdString(p.host))
                     .arg(p.firstRank)
                     .arg(p.firstRank + p.localRanks - 1);
      }
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
        [self, runId, jobId, hosts] {
          if (!self) return;
          self->jobId_ = jobId;
          Q_EMIT self->started(runId, jobId, hosts);
        },
        Qt::QueuedConnection);

    // Once a second the diagnosis looks again, so a job that goes quiet is still seen (stalls).
    std::optional<console::JobOutcome> outcome;
    while (!(outcome = launcher_->waitFor(std::chrono::seconds(1)))) ingest_->tick();
    const std::string status = outcome->status == console::JobStatus::Succeeded  ? "finished"
                               : outcome->status == console::JobStatus::Stopped  ? "stopped"
                               : outcome->status == console::JobStatus::Detached ? "detached"
                                                                                  : "failed";
    try {
      ingest_->finish(status);
    } catch (const std::exception&) {
      // The records are stored already; a status that could not be written shows as "running".
    }
    auto findings = std::make_shared<std::vector<v1::Finding>>(ingest_->findings());
    std::string message = outcome->message;
    if (!files_.summaryJson.empty()) {
      try {
        summary_->writeJson(files_.summaryJson, launcher_->jobId(), *outcome, *findings);
      } catch (const std::exception& e) {
        message += std::string(message.empty() ? "" : "; ") + e.what();
      }
    }
    finished_ = true;
    const QString qStatus = QString::fromStdString(status);
    const QString qMessage = QString::fromStdString(message);
    QMetaObject::invokeMethod(
        self,
        [self, qStatus, qMessage, findings] {
          if (!self) return;
          if (self->onRecords_) self->onRecords_({}, *findings);
          Q_EMIT self->ended(qStatus, qMessage);
        },
        Qt::QueuedConnection);
  });
}

bool LiveRun::detach() {
  std::lock_guard lock(mutex_);
  if (!launched_ || finished_ || !launcher_->detach()) return false;
  detached_ = true;
  return true;
}

void LiveRun::stop() {
  stopping_ = true;
  std::lock_guard lock(mutex_);
  if (launcher_) launcher_->stop();
}

void LiveRun::setTimelineRecording(bool on) {
  console::Launcher* launcher = nullptr;
  {
    std::lock_guard lock(mutex_);
    if (launched_) launcher = launcher_.get();
  }
  if (!launcher || finished_) {
    Q_EMIT timelineRecording(!on, tr("the run is not running"));
    return;
  }
  // The launcher lives until the destructor, which waits for this thread first.
  QPointer<LiveRun> self(this);
  controls_.emplace_back([self, launcher, on] {
    const std::string problem = launcher->control(on ? v1::ControlRequest::ACTION_TIMELINE_ON
                                                     : v1::ControlRequest::ACTION_TIMELINE_OFF);
    const QString text = QString::fromStdString(problem);
    QMetaObject::invokeMethod(
        self, [self, on, text] { if (self) Q_EMIT self->timelineRecording(on, text); }, Qt::QueuedConnection);
  });
}

void LiveRun::dropConnections() {
  std::lock_guard lock(mutex_);
  if (!launched_) return;
  for (size_t host = 0; host < launcher_->placements().size(); ++host) launcher_->follower(host).dropConnection();
}

void LiveRun::onRecords(const std::string& jobId, const std::string& host, const std::vector<v1::Record>& records) {
  // Each host's journal arrives in sequence, each record once, across reconnections too.
  uint64_t& next = nextSeq_[host];
  for (const auto& r : records) {
    if (next != 0 && r.seq() != next) sequenceFaults_ += 1;
    next = r.seq() + 1;
  }
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

void LiveRun::onConnectionLost(const std::string&, const std::string& host, const std::string& why) {
  QPointer<LiveRun> self(this);
  const QString h = QString::fromStdString(host), w = QString::fromStdString(why);
  QMetaObject::invokeMethod(
      this, [self, h, w] { if (self) Q_EMIT self->connectionLost(h, w); }, Qt::QueuedConnection);
}

void LiveRun::onConnectionRestored(const std::string&, const std::string& host, uint64_t backfilled) {
  QPointer<LiveRun> self(this);
  const QString h = QString::fromStdString(host);
  const qulonglong n = backfilled;
  QMetaObject::invokeMethod(
      this, [self, h, n] { if (self) Q_EMIT self->connectionRestored(h, n); }, Qt::QueuedConnection);
}

}  // namespace ringmaster::gui
