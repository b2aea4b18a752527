// SPDX-License-Identifier: GPL-3.0-or-later
#include "gui/live_run.h"

#include <algorithm>
#include <chrono>
#include <optional>

#include "console/models/translated.h"
#include "console/session/background.h"
#include "console/slurm/slurm_job.h"

namespace ringmaster::gui {

LiveRun::LiveRun(console::LaunchPlan plan, QString storePath, OnRecords onRecords, QObject* parent,
                 LiveRunFiles files)
    : QObject(parent),
      storePath_(std::move(storePath)),
      files_(std::move(files)),
      spec_(plan.spec),
      onRecords_(std::move(onRecords)) {
  ownedSession_ = std::make_unique<console::RunSession>(
      std::move(plan),
      console::RunSessionOptions{storePath_.toStdString(), files_.summaryJson, files_.timeline});
  ownedSession_->addSink(this);
  session_ = ownedSession_.get();
}

LiveRun::LiveRun(console::RunFlags flags, std::string agentPath, QString storePath, OnRecords onRecords,
                 QObject* parent)
    : QObject(parent),
      storePath_(std::move(storePath)),
      files_{flags.summaryJson, flags.timeline},
      spec_(flags.spec),
      slurm_(std::move(flags)),
      agentPath_(std::move(agentPath)),
      onRecords_(std::move(onRecords)) {}

LiveRun::~LiveRun() {
  if (!finished_) {
    stopRequested_ = true;
    if (console::RunSession* s = session()) s->stop(2);
  }
  if (runner_.joinable()) runner_.join();
  for (auto& control : controls_) control.join();
  // The session follows the Slurm job: it goes first.
  session_ = nullptr;
  ownedSession_.reset();
  slurmJob_.reset();
}

void LiveRun::post(std::function<void(LiveRun&)> call) {
  console::postIfAlive(this, [this, call = std::move(call)] { call(*this); });
}

bool LiveRun::startSlurmJob() {
  try {
    slurmJob_ = console::SlurmJob::submit(*slurm_, agentPath_);
  } catch (const std::exception& e) {
    finished_ = true;
    const QString message = QString::fromStdString(e.what());
    post([message](LiveRun& run) { Q_EMIT run.failedToStart(message); });
    return false;
  }
  const QString id = QString::fromStdString(slurmJob_->slurmJobId());
  const QString command = QString::fromStdString(slurmJob_->command());
  post([id, command](LiveRun& run) {
    run.slurmJobId_ = id;
    run.slurmCommand_ = command;
    Q_EMIT run.slurmSubmitted(id, command);
  });
  std::optional<console::LaunchPlan> plan;
  try {
    plan = slurmJob_->waitForAgents(
        [this](const std::string& line) {
          const QString text = QString::fromStdString(line);
          post([text](LiveRun& run) { Q_EMIT run.slurmState(text); });
        },
        [this] { return !stopRequested_ && !left_; });
  } catch (const std::exception& e) {
    // Left waiting (the window closed): the job stays queued for `ringmaster attach`.
    if (left_) {
      finished_ = true;
      return false;
    }
    QString message = QString::fromStdString(e.what());
    try {
      slurmJob_->cancel();
    } catch (const std::exception& cancelError) {
      message += QStringLiteral("; ") + QString::fromStdString(cancelError.what());
    }
    finished_ = true;
    if (stopRequested_) {
      post([id](LiveRun& run) {
        Q_EMIT run.ended(
            QString::fromStdString(std::string(console::statusName(console::JobStatus::Stopped))),
            tr("Slurm job %1 was cancelled before it started").arg(id));
      });
    } else {
      post([message](LiveRun& run) { Q_EMIT run.failedToStart(message); });
    }
    return false;
  }
  auto session = std::make_unique<console::RunSession>(
      std::move(*plan),
      console::RunSessionOptions{storePath_.toStdString(), files_.summaryJson, files_.timeline});
  session->addSink(this);
  session->followSlurmJob(slurmJob_.get());
  ownedSession_ = std::move(session);
  session_ = ownedSession_.get();
  return true;
}

void LiveRun::start() {
  // One thread starts the session (for Slurm: submits the job and waits for its agents first), then follows
  // the job to its end; the launcher's own threads deliver records.
  runner_ = std::thread([this] {
    if (slurm_ && !startSlurmJob()) return;
    follow();
  });
}

void LiveRun::follow() {
  console::RunSession& session = *this->session();
  try {
    session.start();
  } catch (const std::exception& e) {
    finished_ = true;
    const QString message = QString::fromStdString(e.what());
    post([message](LiveRun& run) { Q_EMIT run.failedToStart(message); });
    return;
  }
  // Stop pressed while the session was made: it was not running yet.
  if (stopRequested_) session.stop();
  const int64_t runId = session.runId();
  const QString jobId = QString::fromStdString(session.jobId());
  QStringList hosts;
  for (const auto& line : session.placementLines()) hosts << QString::fromStdString(line);
  post([runId, jobId, hosts](LiveRun& run) {
    run.jobId_ = jobId;
    Q_EMIT run.started(runId, jobId, hosts);
  });

  std::optional<console::JobOutcome> outcome;
  while (!(outcome = session.waitFor(std::chrono::seconds(1)))) {
  }
  const console::RunResult result = session.finish(*outcome);
  finished_ = true;
  // How it ended in the window's language, then what the session noted, in its own words.
  QString text = console::translated(outcome->message);
  for (const auto& note : result.notes)
    text += (text.isEmpty() ? QString() : QStringLiteral("; ")) + QString::fromStdString(note);
  for (const auto& problem : result.problems)
    text += (text.isEmpty() ? QString() : QStringLiteral("; ")) + QString::fromStdString(problem);
  const QString status = QString::fromStdString(result.status);
  auto findings = std::make_shared<std::vector<v1::Finding>>(result.findings);
  post([status, text, findings](LiveRun& run) {
    if (run.onRecords_) run.onRecords_({}, *findings);
    Q_EMIT run.ended(status, text);
  });
}

void LiveRun::stop() {
  stopRequested_ = true;
  if (console::RunSession* s = session()) s->stop();
}

bool LiveRun::remote() const {
  if (slurm_) return true;
  const console::RunSession* s = session();
  return s && !s->onThisMachine();
}

bool LiveRun::detach() {
  console::RunSession* s = session();
  if (!s) {
    if (!slurm_ || finished_) return false;
    left_ = true;
    return true;
  }
  return s->detach();
}

void LiveRun::dropConnections() {
  if (console::RunSession* s = session()) s->dropConnections();
}

int64_t LiveRun::runId() const {
  const console::RunSession* s = session();
  return s ? s->runId() : 0;
}

bool LiveRun::onThisMachine() const {
  const console::RunSession* s = session();
  return s && s->onThisMachine();
}

console::ProgressSnapshot LiveRun::progress() const {
  const console::RunSession* s = session();
  return s ? s->progress() : console::ProgressSnapshot{};
}

std::map<std::string, console::HostFacts> LiveRun::hostFacts() const {
  std::map<std::string, console::HostFacts> facts;
  if (const console::RunSession* s = session()) {
    for (const auto& p : s->placements()) facts[p.host] = console::hostFacts(p.info);
  }
  return facts;
}

void LiveRun::setTimelineRecording(bool on) {
  console::RunSession* s = session();
  if (!s || !s->started() || finished_) {
    Q_EMIT timelineRecording(!on, tr("the run is not running"));
    return;
  }
  // The session lives until the destructor, which waits for this thread first.
  controls_.emplace_back([this, s, on] {
    const QString problem = QString::fromStdString(
        s->control(on ? v1::ControlRequest::ACTION_TIMELINE_ON : v1::ControlRequest::ACTION_TIMELINE_OFF));
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
  // The diagnosis fits every rank's whole series, so it runs a few times a second rather than for every
  // batch, which on a long run would leave the records behind; a batch with news (a finding, a rank that
  // ended, a stall report) gets fresh findings at once.
  const bool news = std::any_of(records.begin(), records.end(), [](const v1::Record& r) {
    return r.has_finding() || r.has_rank_state() || r.has_stall();
  });
  const auto now = std::chrono::steady_clock::now();
  if (news || !findings_ || now - findingsAt_ >= kFindingsInterval) {
    findings_ = std::make_shared<const std::vector<v1::Finding>>(session()->findings());
    findingsAt_ = now;
  }
  auto batch = std::make_shared<std::vector<v1::Record>>(records);
  post([batch, findings = findings_](LiveRun& run) {
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
