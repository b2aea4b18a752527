// SPDX-License-Identifier: GPL-3.0-or-later
#include "gui/live_run.h"

#include <QPointer>
#include <chrono>
#include <optional>

namespace ringmaster::gui {

LiveRun::LiveRun(console::LaunchPlan plan, QString storePath, OnRecords onRecords, QObject* parent,
                 LiveRunFiles files)
    : QObject(parent),
      session_(std::move(plan),
               console::RunSessionOptions{storePath.toStdString(), files.summaryJson, files.timeline}),
      onRecords_(std::move(onRecords)) {
  session_.addSink(this);
}

LiveRun::~LiveRun() {
  if (!finished_) session_.stop(2);
  if (runner_.joinable()) runner_.join();
  for (auto& control : controls_) control.join();
}

void LiveRun::post(std::function<void(LiveRun&)> call) {
  QPointer<LiveRun> self(this);
  QMetaObject::invokeMethod(
      this,
      [self, call = std::move(call)] {
        if (self) call(*self);
      },
      Qt::QueuedConnection);
}

void LiveRun::start() {
  // One thread starts the session, then follows the job to its end; the launcher's own threads deliver
  // records.
  runner_ = std::thread([this] {
    try {
      session_.start();
    } catch (const std::exception& e) {
      finished_ = true;
      const QString message = QString::fromStdString(e.what());
      post([message](LiveRun& run) { Q_EMIT run.failedToStart(message); });
      return;
    }
    const int64_t runId = session_.runId();
    const QString jobId = QString::fromStdString(session_.jobId());
    QStringList hosts;
    for (const auto& line : session_.placementLines()) hosts << QString::fromStdString(line);
    post([runId, jobId, hosts](LiveRun& run) {
      run.jobId_ = jobId;
      Q_EMIT run.started(runId, jobId, hosts);
    });

    std::optional<console::JobOutcome> outcome;
    while (!(outcome = session_.waitFor(std::chrono::seconds(1)))) {
    }
    const console::RunResult result = session_.finish(*outcome);
    finished_ = true;
    std::string message = outcome->message;
    for (const auto& problem : result.problems) message += (message.empty() ? "" : "; ") + problem;
    const QString status = QString::fromStdString(result.status);
    const QString text = QString::fromStdString(message);
    auto findings = std::make_shared<std::vector<v1::Finding>>(result.findings);
    post([status, text, findings](LiveRun& run) {
      if (run.onRecords_) run.onRecords_({}, *findings);
      Q_EMIT run.ended(status, text);
    });
  });
}

void LiveRun::stop() {
  session_.stop();
}

std::map<std::string, console::HostFacts> LiveRun::hostFacts() const {
  std::map<std::string, console::HostFacts> facts;
  for (const auto& p : session_.placements()) facts[p.host] = console::hostFacts(p.info);
  return facts;
}

void LiveRun::setTimelineRecording(bool on) {
  if (!session_.started() || finished_) {
    Q_EMIT timelineRecording(!on, tr("the run is not running"));
    return;
  }
  // The session lives until the destructor, which waits for this thread first.
  controls_.emplace_back([this, on] {
    const QString problem = QString::fromStdString(session_.control(
        on ? v1::ControlRequest::ACTION_TIMELINE_ON : v1::ControlRequest::ACTION_TIMELINE_OFF));
    post([on, problem](LiveRun& run) { Q_EMIT run.timelineRecording(on, problem); });
  });
}

void LiveRun::onRecords(const std::string&, const std::string& host, const std::vector<v1::Record>& records) {
  // Each host's journal arrives in sequence, each record once, across reconnections too.
  uint64_t& next = nextSeq_[host];
  for (const auto& r : records) {
    if (next != 0 && r.seq() != next) sequenceFaults_ += 1;
    next = r.seq() + 1;
  }
  auto batch = std::make_shared<std::vector<v1::Record>>(records);
  auto findings = std::make_shared<std::vector<v1::Finding>>(session_.findings());
  post([batch, findings](LiveRun& run) {
    if (run.onRecords_) run.onRecords_(*batch, *findings);
  });
}

void LiveRun::onConnectionLost(const std::string&, const std::string& host, const std::string& why) {
  const QString h = QString::fromStdString(host), w = QString::fromStdString(why);
  post([h, w](LiveRun& run) { Q_EMIT run.connectionLost(h, w); });
}

void LiveRun::onConnectionRestored(const std::string&, const std::string& host, uint64_t backfilled) {
  const QString h = QString::fromStdString(host);
  const qulonglong n = backfilled;
  post([h, n](LiveRun& run) { Q_EMIT run.connectionRestored(h, n); });
}

}  // namespace ringmaster::gui
