// SPDX-License-Identifier: GPL-3.0-or-later
#include "gui/main_window.h"

#include <QCloseEvent>
#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QSplitter>
#include <QTabWidget>
#include <QTimer>
#include <QVBoxLayout>

#include "common/job_spec.h"
#include "common/json.h"
#include "console/hosts/host_registry.h"
#include "console/session/background.h"
#include "console/session/outcome_text.h"
#include "console/session/store_access.h"
#include "console/session/store_location.h"
#include "console/slurm/slurm_job.h"
#include "gui/dialogs/report_dialog.h"
#include "gui/dialogs/tune_dialog.h"
#include "gui/live_run.h"
#include "gui/pages/compare_page.h"
#include "gui/pages/dashboard_page.h"
#include "gui/pages/findings_page.h"
#include "gui/pages/hosts_page.h"
#include "gui/pages/launch_page.h"
#include "gui/pages/logs_page.h"
#include "gui/pages/runs_page.h"
#include "gui/pages/timeline_page.h"
#include "gui/views/series_chart.h"
#include "gui/views/timeline_view.h"
#include "traces/horovod_timeline_reader.h"

namespace ringmaster::gui {
namespace {

const char* const kPageKeys[] = {"hosts",    "launch",  "dashboard", "timeline",
                                 "findings", "compare", "logs",      "runs"};

// Resetting the runs model loses the user's selection: do it only when a run came, went or changed.
bool sameRuns(const std::vector<RunInfo>& runs, const console::RunsModel& model) {
  if (static_cast<int>(runs.size()) != model.rowCount()) return false;
  for (size_t i = 0; i < runs.size(); ++i) {
    const RunInfo* shown = model.run(static_cast<int>(i));
    const RunInfo& r = runs[i];
    if (shown->id != r.id || shown->name != r.name || shown->status != r.status ||
        shown->worldSize != r.worldSize || shown->endedUnixNs != r.endedUnixNs || shown->tags != r.tags ||
        shown->notes != r.notes)
      return false;
  }
  return true;
}

// Resetting the findings model loses the user's selection: do it only when something changed.
bool sameFindings(const std::vector<v1::Finding>& a, const std::vector<v1::Finding>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].SerializeAsString() != b[i].SerializeAsString()) return false;
  }
  return true;
}

constexpr int kReconnectedBannerMs = 5000;
constexpr std::chrono::seconds kSinfoTimeout{5};
constexpr std::chrono::milliseconds kStoreWatchInterval{1000};
// A wheel's or a drag's many steps make one read of the timeline.
constexpr std::chrono::milliseconds kTimelineReadDelay{100};

QString workerBesideUs() {
  return QDir(QCoreApplication::applicationDirPath()).filePath(QStringLiteral("ringmaster-worker"));
}

QString agentBesideUs() {
  return QDir(QCoreApplication::applicationDirPath()).filePath(QStringLiteral("ringmaster-agent"));
}

// "node-a:6000" as the Hosts field names it: "node-a" ("[::1]:6000": "::1").
QString hostName(const QString& address) {
  QString host = address;
  if (host.startsWith(QLatin1Char('['))) return host.mid(1, host.indexOf(QLatin1Char(']')) - 1);
  if (host.count(QLatin1Char(':')) == 1) host.truncate(host.indexOf(QLatin1Char(':')));
  return host;
}

}  // namespace

MainWindow::MainWindow(MainWindowOptions options, QWidget* parent)
    : QMainWindow(parent), options_(std::move(options)) {
  setWindowTitle(tr("Ringmaster"));
  if (options_.storePath.isEmpty())
    options_.storePath = console::defaultStorePath(console::StoreFolder::Make);
  if (options_.workerPath.isEmpty()) options_.workerPath = workerBesideUs();
  if (options_.agentPath.isEmpty()) options_.agentPath = agentBesideUs();

  store_ = new console::StoreAccess(options_.storePath, this);
  registry_ = new console::HostRegistry(options_.workerPath, options_.stateDir, this);
  hostsModel_ = registry_->model();
  logModel_ = new console::LogModel(200'000, this);
  runsModel_ = new console::RunsModel(this);
  findingsModel_ = new console::FindingsModel(this);

  slurmModel_ = new console::SlurmPartitionsModel(this);
  hosts_ = new HostsPage(hostsModel_, slurmModel_, this);
  launch_ = new LaunchPage(this);
  dashboard_ = new DashboardPage(this);
  timeline_ = new TimelinePage(this);
  findings_ = new FindingsPage(findingsModel_, this);
  compare_ = new ComparePage(runsModel_, store_, this);
  logs_ = new LogsPage(logModel_, this);
  runs_ = new RunsPage(runsModel_, this);

  pages_ = new QTabWidget(this);
  pages_->setDocumentMode(true);
  pages_->addTab(hosts_, tr("Hosts"));
  pages_->addTab(launch_, tr("Launch"));
  pages_->addTab(dashboard_, tr("Dashboard"));
  pages_->addTab(timeline_, tr("Timeline"));
  pages_->addTab(findings_, tr("Findings"));
  pages_->addTab(compare_, tr("Compare"));
  pages_->addTab(logs_, tr("Logs"));
  pages_->addTab(runs_, tr("Runs"));

  banner_ = new QLabel(this);
  banner_->setWordWrap(true);
  banner_->setMargin(6);
  banner_->hide();
  auto* central = new QWidget(this);
  auto* layout = new QVBoxLayout(central);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(0);
  layout->addWidget(banner_);
  layout->addWidget(pages_, 1);
  setCentralWidget(central);
  resize(1440, 900);

  connect(store_, &console::StoreAccess::failed, this, [this](const QString& message) {
    setBanner(tr("Run history: %1").arg(message), true);
    Q_EMIT problem(message);
  });
  connect(launch_, &LaunchPage::launchRequested, this, qOverload<const v1::JobSpec&>(&MainWindow::launch));
  connect(launch_, &LaunchPage::slurmSubmitRequested, this, &MainWindow::submitToSlurm);
  connect(launch_, &LaunchPage::tuneRequested, this, &MainWindow::openTune);
  connect(dashboard_, &DashboardPage::rankSelected, this, &MainWindow::selectRank);
  connect(dashboard_, &DashboardPage::stopRequested, this, [this] {
    if (live_) {
      live_->stop();
      setBanner(tr("Stopping the run…"));
    }
  });
  connect(dashboard_, &DashboardPage::timelineRecordingToggled, this, [this](bool on) {
    if (!live_ || live_->finished()) return;
    timelineButton()->setEnabled(false);  // until the agents answered
    live_->setTimelineRecording(on);
  });
  connect(findings_, &FindingsPage::findingActivated, this, &MainWindow::showEvidence);
  connect(timeline_, &TimelinePage::importRequested, this, &MainWindow::importTraces);
  connect(runs_, &RunsPage::openRequested, this, [this](int64_t runId) { openRun(runId); });
  connect(runs_, &RunsPage::refreshRequested, this, &MainWindow::refreshRuns);
  connect(runs_, &RunsPage::reportRequested, this, [this](int64_t id) {
    auto* dialog = new ReportDialog(store_, id, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->show();
  });
  connect(runs_, &RunsPage::renameRequested, this, [this](int64_t id, const QString& name) {
    store_->post<bool>(
        this,
        [id, name = name.toStdString()](RunStore& s) {
          s.renameRun(id, name);
          return true;
        },
        [this](bool) { refreshRuns(); });
  });
  connect(runs_, &RunsPage::tagRequested, this, [this](int64_t id, const QString& tag) {
    store_->post<bool>(
        this,
        [id, tag = tag.toStdString()](RunStore& s) {
          s.addTag(id, tag);
          return true;
        },
        [this](bool) { refreshRuns(); });
  });
  connect(runs_, &RunsPage::deleteRequested, this, [this](int64_t id) {
    store_->post<bool>(
        this,
        [id](RunStore& s) {
          s.deleteRun(id);
          return true;
        },
        [this](bool) { refreshRuns(); });
  });
  connect(hosts_, &HostsPage::checkRequested, registry_, &console::HostRegistry::checkHost);
  connect(hosts_, &HostsPage::checkRequested, this, &MainWindow::refreshSlurm);
  connect(pages_, &QTabWidget::currentChanged, this, [this](int page) {
    if (page == Hosts) refreshSlurm();
  });
  connect(hosts_, &HostsPage::addRequested, registry_, &console::HostRegistry::addHost);
  connect(hosts_, &HostsPage::removeRequested, registry_, &console::HostRegistry::removeHost);
  connect(registry_, &console::HostRegistry::hostChecked, this, &MainWindow::hostChecked);
  connect(hostsModel_, &QAbstractItemModel::dataChanged, this, [this] {
    // The Launch page offers the connected hosts, with their cores as slots.
    QList<LaunchPage::RemoteAgent> connected;
    for (const console::ConnectedAgent& a : registry_->connectedAgents()) {
      connected.push_back({a.host, a.slots, a.port, a.tokenFile, a.tlsCa});
    }
    launch_->setConnectedHosts(connected);
    // And knows what each checked host can run: this machine as "", a remote one by its name.
    QMap<QString, v1::HostInfo> known;
    for (int row = 0; row < hostsModel_->rowCount(); ++row) {
      const console::HostEntry& host = hostsModel_->host(row);
      if (!host.hasInfo || (!host.isLocal() && host.state != console::HostEntry::State::Connected)) continue;
      known.insert(host.isLocal() ? QString() : hostName(host.address), host.info);
    }
    launch_->setKnownHosts(known);
  });

  timelineRead_ = new QTimer(this);
  timelineRead_->setSingleShot(true);
  timelineRead_->setInterval(kTimelineReadDelay);
  connect(timelineRead_, &QTimer::timeout, this, &MainWindow::readTimelineRange);
  connect(timeline_->view(), &TimelineView::visibleRangeChanged, this, [this](int64_t t0, int64_t t1) {
    if (run_ && !run_->timeline.holds(t0, t1)) timelineRead_->start();
  });

  // Runs started elsewhere (the CLI, another console) appear without a manual refresh.
  storeWatch_ = new QTimer(this);
  storeWatch_->setInterval(kStoreWatchInterval);
  connect(storeWatch_, &QTimer::timeout, this, &MainWindow::checkStoreChanged);
  storeWatch_->start();

  updateLiveControls();
  restoreSettings();
  registry_->restore();
  refreshRuns();
  refreshSlurm();
}

void MainWindow::setStoreWatchInterval(std::chrono::milliseconds interval) {
  storeWatch_->setInterval(interval);
}

void MainWindow::checkStoreChanged() {
  if (storeCheckPending_) return;
  storeCheckPending_ = true;
  store_->post<int64_t>(
      this, [](RunStore& s) { return s.dataVersion(); },
      [this](int64_t version) {
        storeCheckPending_ = false;
        const bool changed = storeVersion_ >= 0 && version != storeVersion_;
        storeVersion_ = version;
        if (changed) refreshRuns();
      });
}

MainWindow::~MainWindow() {
  saveSettings();
  live_.reset();
}

void MainWindow::closeEvent(QCloseEvent* event) {
  if (live_ && !live_->finished() && live_->remote()) {
    // Remote ranks belong to their hosts' agents: closing the window leaves them training unless the user
    // asks.
    QMessageBox box(QMessageBox::Question, tr("A run is in progress"),
                    tr("The run keeps training on its hosts when the console closes; their agents keep its "
                       "journal. Leave it running, or stop it?"),
                    QMessageBox::Cancel, this);
    QPushButton* leave = box.addButton(tr("Leave it running"), QMessageBox::AcceptRole);
    QPushButton* stopIt = box.addButton(tr("Stop it"), QMessageBox::DestructiveRole);
    box.setDefaultButton(leave);
    box.exec();
    if (box.clickedButton() == leave) {
      live_->detach();
    } else if (box.clickedButton() != stopIt) {
      event->ignore();
      return;
    }
  } else if (live_ && !live_->finished()) {
    // Ranks of the embedded agent are children of this process: closing ends them, so ask first.
    const auto answer = QMessageBox::question(
        this, tr("A run is in progress"),
        tr("The run on this machine stops when the console closes. Stop it and close?"));
    if (answer != QMessageBox::Yes) {
      event->ignore();
      return;
    }
  }
  saveSettings();
  event->accept();
}

void MainWindow::restoreSettings() {
  QSettings settings;
  restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray());
  restoreState(settings.value(QStringLiteral("window/state")).toByteArray());
  for (auto* split : findChildren<QSplitter*>()) {
    const QByteArray state = settings.value(QStringLiteral("window/") + split->objectName()).toByteArray();
    if (!split->objectName().isEmpty() && !state.isEmpty()) split->restoreState(state);
  }
  const QString last = settings.value(QStringLiteral("launch/last")).toString();
  v1::JobSpec spec;
  if (!last.isEmpty() && messageFromJson(last.toStdString(), spec)) {
    launch_->setSpec(spec);
  }
  const QString page = settings.value(QStringLiteral("window/page")).toString();
  for (int i = 0; i < PageCount; ++i) {
    if (page == QLatin1String(kPageKeys[i])) pages_->setCurrentIndex(i);
  }
}

void MainWindow::saveSettings() {
  QSettings settings;
  settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
  settings.setValue(QStringLiteral("window/state"), saveState());
  for (auto* split : findChildren<QSplitter*>()) {
    if (!split->objectName().isEmpty())
      settings.setValue(QStringLiteral("window/") + split->objectName(), split->saveState());
  }
  settings.setValue(QStringLiteral("window/page"), QLatin1String(kPageKeys[pages_->currentIndex()]));
  settings.setValue(QStringLiteral("launch/last"),
                    QString::fromStdString(messageToJson(withSecretsMasked(launch_->spec()))));
}

void MainWindow::setBanner(const QString& text, bool warning) {
  banner_->setVisible(!text.isEmpty());
  banner_->setText(text);
  banner_->setToolTip({});
  Q_EMIT bannerChanged(text);
  banner_->setStyleSheet(warning ? QStringLiteral("background: #fbe3d6; color: #7a1f0f;")
                                 : QStringLiteral("background: #dbeafe; color: #12305c;"));
}

QString MainWindow::bannerText() const {
  return banner_->isVisibleTo(this) ? banner_->text() : QString();
}

void MainWindow::addHost(const console::HostEntry& entry) {
  registry_->addHost(entry);
}

void MainWindow::checkHost(int row) {
  registry_->checkHost(row);
}

void MainWindow::setHostWatchInterval(std::chrono::milliseconds interval) {
  registry_->setWatchInterval(interval);
}

QAbstractButton* MainWindow::timelineButton() const {
  return dashboard_->timelineButton();
}

void MainWindow::updateLiveControls() {
  const bool running =
      live_ && !live_->finished() && !live_->jobId().isEmpty() && shownRunId_ == live_->runId();
  timelineButton()->setEnabled(running);
  // A Slurm job waiting for its nodes can be cancelled from the same button.
  dashboard_->stopButton()->setEnabled(running || (live_ && live_->waitingForSlurm()));
  if (!running) {
    QSignalBlocker block(timelineButton());
    timelineButton()->setChecked(false);
  }
}

void MainWindow::refreshRuns() {
  store_->post<std::vector<RunInfo>>(
      this, [](RunStore& s) { return s.runs(); },
      [this](std::vector<RunInfo> runs) {
        // The same list again keeps the user's selection and the Compare page's ticks as they are.
        if (!sameRuns(runs, *runsModel_)) runsModel_->setRuns(std::move(runs));
        runs_->setStatus(tr("%n run(s) in %1", nullptr, runsModel_->rowCount())
                             .arg(QDir::toNativeSeparators(store_->path())));
        Q_EMIT runsRefreshed();
      });
}

void MainWindow::openRun(int64_t runId, Page page) {
  setBanner(tr("Opening run %1…").arg(runId));
  store_->post<std::shared_ptr<console::RunData>>(
      this,
      [runId, atOnce = options_.timelineEventsAtOnce](RunStore& s) {
        return std::make_shared<console::RunData>(console::loadRun(s, runId, atOnce));
      },
      [this, runId, page](std::shared_ptr<console::RunData> data) {
        RunHeading heading;
        heading.runId = runId;
        heading.name = QString::fromStdString(data->info->name);
        heading.status = QString::fromStdString(data->info->status);
        heading.totalSteps = console::expectedSteps(data->info->spec);
        auto owned = std::make_unique<console::RunData>(std::move(*data));
        setBanner({});
        showRunData(std::move(owned), heading);
        pages_->setCurrentIndex(page);
      });
}

void MainWindow::showRunData(std::unique_ptr<console::RunData> data, const RunHeading& heading) {
  const int64_t runId = heading.runId;
  // Views first let go of the old run, then it is replaced.
  dashboard_->setRun(nullptr, {});
  timeline_->setModel(nullptr);
  run_ = std::move(data);
  shownRunId_ = runId;
  dashboard_->setRun(run_.get(), heading);
  timeline_->setModel(&run_->timeline);
  timelineEventsShown_ = run_->timeline.eventCount();
  logModel_->clear();
  logModel_->append(run_->logs);
  logs_->setRankCount(run_->series.rankCount());
  findingsModel_->setFindings(run_->findings);
  dashboard_->setFindings(run_->findings);
  selectRank(-1);
  Q_EMIT runShown(runId);
}

void MainWindow::openTune(console::RunFlags flags) {
  // A running session keeps its dialog; a finished one gives way to the form's job.
  if (tune_ && tune_->running()) {
    tune_->raise();
    tune_->activateWindow();
    return;
  }
  if (tune_) tune_->deleteLater();
  if (flags.worker.empty()) flags.worker = options_.workerPath.toStdString();
  if (flags.stateDir.empty()) flags.stateDir = options_.stateDir.toStdString();
  if (flags.store.empty()) flags.store = options_.storePath.toStdString();
  tune_ = new TuneDialog(std::move(flags), this);
  tune_->setAttribute(Qt::WA_DeleteOnClose);
  connect(tune_, &TuneDialog::trialEnded, this, &MainWindow::refreshRuns);
  connect(tune_, &TuneDialog::settingChosen, this, [this](const console::TuneSetting& setting) {
    v1::JobSpec spec = launch_->spec();
    setting.applyTo(spec);
    launch_->setSpec(spec);
    showPage(Launch);
    setBanner(tr("The Launch form now has %1.").arg(QString::fromStdString(setting.flags())));
  });
  tune_->show();
}

void MainWindow::launch(const v1::JobSpec& spec) {
  launch(registry_->planFor(spec));
}

void MainWindow::launch(const console::LaunchPlan& launchPlan, const LiveRunFiles& files) {
  if (live_ && !live_->finished()) {
    setBanner(tr("A run is already in progress; stop it before launching another."), true);
    return;
  }
  console::LaunchPlan plan = launchPlan;
  if (plan.workerPath.empty()) plan.workerPath = options_.workerPath.toStdString();
  if (plan.stateDir.empty()) plan.stateDir = options_.stateDir.toStdString();
  const v1::JobSpec spec = plan.spec;
  live_.reset();
  live_ = std::make_unique<LiveRun>(
      std::move(plan), options_.storePath,
      [this](const std::vector<v1::Record>& records, const std::vector<v1::Finding>& findings) {
        ingestLive(records, findings);
      },
      nullptr, files);
  if (launchPlan.hosts.empty()) {
    setBanner(tr("Starting %n rank(s) on this machine…", nullptr, static_cast<int>(spec.world_size())));
  } else {
    setBanner(tr("Starting %n rank(s)…", nullptr, static_cast<int>(spec.world_size())));
  }
  followLiveRun(spec);
}

void MainWindow::submitToSlurm(const console::RunFlags& flags) {
  if (live_ && !live_->finished()) {
    setBanner(tr("A run is already in progress; stop it before launching another."), true);
    return;
  }
  live_.reset();
  // The nodes' agents run the worker beside them, from the same (shared) install.
  live_ = std::make_unique<LiveRun>(
      flags, options_.agentPath.toStdString(), options_.storePath,
      [this](const std::vector<v1::Record>& records, const std::vector<v1::Finding>& findings) {
        ingestLive(records, findings);
      });
  connect(live_.get(), &LiveRun::slurmSubmitted, this, [this](const QString& id, const QString& command) {
    setBanner(tr("Submitted Slurm job %1: %2").arg(id, command));
    updateLiveControls();
  });
  connect(live_.get(), &LiveRun::slurmState, this, [this](const QString& line) { setBanner(line); });
  setBanner(tr("Submitting %n rank(s) to Slurm…", nullptr, flags.ranks));
  followLiveRun(flags.spec);
  pages_->setCurrentWidget(dashboard_);
}

void MainWindow::followLiveRun(const v1::JobSpec& spec) {
  const QString name = QString::fromStdString(spec.name());  // the dashboard names an unnamed run
  const bool recordFromStart = spec.timeline();
  connect(live_.get(), &LiveRun::started, this,
          [this, name, recordFromStart](int64_t runId, const QString& jobId, const QStringList& hosts) {
            if (live_->onThisMachine()) {
              setBanner(tr("Run %1 (%2) is running on this machine.").arg(runId).arg(jobId));
            } else {
              setBanner(tr("Run %1 (%2) is running on %3.")
                            .arg(runId)
                            .arg(jobId)
                            .arg(hosts.join(QStringLiteral(", "))));
            }
            auto data = std::make_unique<console::RunData>();
            data->hosts = live_->hostFacts();
            RunHeading heading;
            heading.runId = runId;
            heading.name = name;
            heading.status = QStringLiteral("running");
            heading.live = true;
            heading.totalSteps = live_->totalSteps();
            showRunData(std::move(data), heading);
            updateLiveControls();
            QSignalBlocker block(timelineButton());
            timelineButton()->setChecked(recordFromStart);
            pages_->setCurrentWidget(dashboard_);
            refreshRuns();
          });
  connect(live_.get(), &LiveRun::failedToStart, this, [this](const QString& message) {
    setBanner(tr("The run could not start: %1").arg(message), true);
    updateLiveControls();
    Q_EMIT liveRunEnded(QStringLiteral("failed"));
  });
  connect(live_.get(), &LiveRun::ended, this, [this](const QString& status, const QString& message) {
    const bool succeeded = status.toStdString() == console::statusName(console::JobStatus::Succeeded);
    const QString how = console::translatedOutcome(message.toStdString());
    setBanner(tr("The run ended: %1 (%2).").arg(console::RunsModel::statusText(status), how), !succeeded);
    if (live_->runId() > 0 && shownRunId_ == live_->runId()) dashboard_->runEnded(status);
    updateLiveControls();
    dashboard_->markDirty();
    refreshRuns();
    Q_EMIT liveRunEnded(status);
  });
  // The watch of a host's journal broke: the launcher reconnects and backfills by itself; say so meanwhile.
  connect(live_.get(), &LiveRun::connectionLost, this, [this](const QString& host, const QString& why) {
    setBanner(tr("Connection to %1 lost — reconnecting…").arg(host), true);
    banner_->setToolTip(why);
  });
  connect(live_.get(), &LiveRun::connectionRestored, this,
          [this](const QString& host, qulonglong backfilled) {
            const QString text =
                tr("Reconnected to %1; backfilled %n record(s).", nullptr, static_cast<int>(backfilled))
                    .arg(host);
            setBanner(text);
            QTimer::singleShot(kReconnectedBannerMs, this, [this, text] {
              if (banner_->text() == text) setBanner({});
            });
          });
  connect(live_.get(), &LiveRun::timelineRecording, this, [this](bool on, const QString& problem) {
    updateLiveControls();
    if (problem.isEmpty()) {
      setBanner(on ? tr("Recording the timeline on every rank.") : tr("Timeline recording stopped."));
      return;
    }
    QSignalBlocker block(timelineButton());
    timelineButton()->setChecked(!on);
    setBanner(tr("Could not turn the timeline %1: %2").arg(on ? tr("on") : tr("off"), problem), true);
  });
  updateLiveControls();
  live_->start();
}

void MainWindow::refreshSlurm() {
  if (slurmCheckPending_) return;
  slurmCheckPending_ = true;
  // sinfo may hang on a controller that does not answer: off the GUI thread, with a hard limit. No Slurm is
  // no error: the page then shows no cluster.
  console::runInBackground<std::vector<console::SlurmPartition>>(
      this, [] { return console::slurmPartitions(kSinfoTimeout); },
      [this](std::vector<console::SlurmPartition> partitions) {
        slurmCheckPending_ = false;
        slurmModel_->setPartitions(std::move(partitions));
        Q_EMIT slurmChecked();
      },
      [this](const QString&) {
        slurmCheckPending_ = false;
        slurmModel_->setPartitions({});
        Q_EMIT slurmChecked();
      });
}

void MainWindow::ingestLive(const std::vector<v1::Record>& records,
                            const std::vector<v1::Finding>& findings) {
  if (!run_ || !live_ || shownRunId_ != live_->runId()) return;
  std::vector<v1::LogLine> lines;
  for (const v1::Record& r : records) {
    run_->ingest(r);
    if (r.has_log()) lines.push_back(r.log());
  }
  logModel_->append(lines);
  logs_->setRankCount(run_->series.rankCount());
  // The session's diagnosis is the list: it holds the detectors' findings and those that came as records.
  if (!sameFindings(findings, run_->findings)) {
    run_->findings = findings;
    findingsModel_->setFindings(findings);
    dashboard_->setFindings(findings);
  }
  dashboard_->setProgress(live_->progress());
  dashboard_->markDirty();
  if (run_->timeline.eventCount() != timelineEventsShown_) {
    timelineEventsShown_ = run_->timeline.eventCount();
    timeline_->modelChanged();
  }
}

void MainWindow::selectRank(int rank) {
  selectedRank_ = rank;
  dashboard_->highlightRank(rank);
  timeline_->highlightRank(rank);
  logs_->showRank(rank);
}

void MainWindow::showEvidence(const v1::Finding& finding) {
  selectRank(finding.rank());
  if (!run_) return;
  // The chart range: from a little before the finding's first step to the end of the run.
  const uint64_t since = finding.since_step();
  const uint64_t end = std::max<uint64_t>(run_->series.endStep(), since + 1);
  dashboard_->showSteps(since > 10 ? since - 10 : 0, end);
  // The timeline range: the steps from `since` of the finding's rank (a few steps, so the picture is
  // readable).
  const auto& tl = run_->timeline;
  int64_t t0 = INT64_MAX, t1 = INT64_MIN;
  for (int lane : tl.rankRows()) {
    if (finding.rank() >= 0 && tl.lane(lane).rank != finding.rank()) continue;
    for (const auto& e : tl.events(lane)) {
      if (e.step >= since && e.step < since + 3) {
        t0 = std::min(t0, e.startNs);
        t1 = std::max(t1, e.endNs);
      }
    }
  }
  if (t0 < t1) timeline_->showRange(t0, t1);
}

void MainWindow::readTimelineRange() {
  if (!run_ || timelineReading_) return;  // the read under way looks again when it ends
  const int64_t t0 = timeline_->view()->visibleBegin(), t1 = timeline_->view()->visibleEnd();
  if (run_->timeline.holds(t0, t1)) return;
  const int64_t width = t1 - t0;
  struct Read {
    std::shared_ptr<console::TimelineModel> model;
    std::string error;
  };
  timelineReading_ = true;
  store_->post<Read>(
      this,
      [runId = shownRunId_, extent = run_->timelineExtent, from = t0 - width, to = t1 + width](RunStore& s) {
        Read read;
        try {
          read.model =
              std::make_shared<console::TimelineModel>(console::loadTimeline(s, runId, extent, from, to));
        } catch (const std::exception& error) {
          read.error = error.what();
        }
        return read;
      },
      [this, runId = shownRunId_](Read read) {
        timelineReading_ = false;
        if (!run_ || shownRunId_ != runId) {
          readTimelineRange();  // for the run shown now, if it needs one
          return;
        }
        if (!read.model) {
          setBanner(tr("Could not read the timeline: %1").arg(QString::fromStdString(read.error)), true);
          return;
        }
        timeline_->replaceModel([&] { run_->timeline = std::move(*read.model); });
        timelineEventsShown_ = run_->timeline.eventCount();
        Q_EMIT timelineRead();
        readTimelineRange();  // the view may have moved on meanwhile
      });
}

void MainWindow::importTraces(const QStringList& paths) {
  if (paths.isEmpty()) return;
  const QString what =
      paths.size() == 1 ? QFileInfo(paths.front()).fileName() : tr("%n files", "", int(paths.size()));
  setBanner(tr("Importing %1…").arg(what));
  std::vector<std::string> inputs;
  for (const QString& path : paths) inputs.push_back(path.toStdString());
  store_->post<ImportResult>(
      this, [inputs](RunStore& s) { return ringmaster::importTraces(s, inputs); },
      [this, what](ImportResult result) {
        QString text = tr("Imported %1: %2 events.").arg(what).arg(result.summary.timelineEvents);
        if (result.files.size() > 1 || result.steps > 0) {
          text = tr("Imported %1 as one run of %2 ranks (%3): %4 events, %5 steps.")
                     .arg(what)
                     .arg(result.summary.ranks)
                     .arg(QString::fromStdString(result.rankRule))
                     .arg(result.summary.timelineEvents)
                     .arg(result.steps);
        }
        if (!result.summary.complete)
          text += QLatin1Char(' ') + tr("A file was cut short; what was whole is kept.");
        refreshRuns();
        // Opening the run clears the banner; the import's account comes back once the run is shown.
        connect(
            this, &MainWindow::runShown, this,
            [this, text, warning = !result.summary.complete] { setBanner(text, warning); },
            Qt::SingleShotConnection);
        openRun(result.runId, Timeline);
      });
}

void MainWindow::showPage(Page page) {
  pages_->setCurrentIndex(page);
}

QStringList MainWindow::saveScreenshots(const QString& dir, const QString& suffix) {
  QDir().mkpath(dir);
  QStringList written;
  const int current = pages_->currentIndex();
  for (int i = 0; i < PageCount; ++i) {
    pages_->setCurrentIndex(i);
    // Let layouts settle (a banner that just hid, a page shown for the first time) before grabbing.
    QCoreApplication::processEvents();
    if (i == Dashboard) dashboard_->redraw();
    const QString file = QDir(dir).filePath(QLatin1String(kPageKeys[i]) + suffix + QStringLiteral(".png"));
    if (grab().save(file)) written << file;
  }
  pages_->setCurrentIndex(current);
  return written;
}

}  // namespace ringmaster::gui
