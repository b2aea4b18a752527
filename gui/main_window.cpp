// SPDX-License-Identifier: GPL-3.0-or-later
#include "gui/main_window.h"

#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QCoreApplication>
#include <QDir>
#include <QLabel>
#include <QMenuBar>
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
#include "console/session/outcome_text.h"
#include "console/session/store_access.h"
#include "console/session/store_location.h"
#include "gui/dialogs/report_dialog.h"
#include "gui/dialogs/tune_dialog.h"
#include "gui/host_watch.h"
#include "gui/live_run.h"
#include "gui/pages/compare_page.h"
#include "gui/pages/dashboard_page.h"
#include "gui/pages/findings_page.h"
#include "gui/pages/hosts_page.h"
#include "gui/pages/launch_page.h"
#include "gui/pages/logs_page.h"
#include "gui/pages/runs_page.h"
#include "gui/pages/timeline_page.h"
#include "gui/run_history.h"
#include "gui/shown_run.h"
#include "gui/translations.h"
#include "ringmaster/version.h"

namespace ringmaster::gui {
namespace {

const char* const kPageKeys[] = {"hosts",    "launch",  "dashboard", "timeline",
                                 "findings", "compare", "logs",      "runs"};

constexpr int kReconnectedBannerMs = 5000;

QString workerBesideUs() {
  return QDir(QCoreApplication::applicationDirPath()).filePath(QStringLiteral("ringmaster-worker"));
}

QString agentBesideUs() {
  return QDir(QCoreApplication::applicationDirPath()).filePath(QStringLiteral("ringmaster-agent"));
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
  hostWatch_ = new HostWatch(options_.workerPath, options_.stateDir, this);
  logModel_ = new console::LogModel(200'000, this);
  history_ = new RunHistory(store_, this);
  findingsModel_ = new console::FindingsModel(this);

  hosts_ = new HostsPage(hostsModel(), slurmModel(), this);
  launch_ = new LaunchPage(this);
  dashboard_ = new DashboardPage(this);
  timeline_ = new TimelinePage(this);
  findings_ = new FindingsPage(findingsModel_, this);
  compare_ = new ComparePage(runsModel(), store_, this);
  logs_ = new LogsPage(logModel_, this);
  runs_ = new RunsPage(runsModel(), this);

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
  connect(dashboard_, &DashboardPage::stopRequested, this, [this] {
    if (!live_ || live_->finished()) return;
    // Stopping ends every rank's training: asked first, the safe answer the default.
    QMessageBox ask(QMessageBox::Question, tr("Stop the run?"),
                    tr("Stop run %1? Every rank stops training now; what the run recorded so far stays in "
                       "the history.")
                        .arg(live_->runId()),
                    QMessageBox::NoButton, this);
    ask.setObjectName(QStringLiteral("confirmStop"));
    QPushButton* stopIt = ask.addButton(tr("Stop the run"), QMessageBox::DestructiveRole);
    QPushButton* keep = ask.addButton(tr("Keep training"), QMessageBox::RejectRole);
    ask.setDefaultButton(keep);
    ask.exec();
    if (ask.clickedButton() != stopIt || !live_ || live_->finished()) return;
    live_->stop();
    setBanner(tr("Stopping the run…"));
  });
  connect(dashboard_, &DashboardPage::timelineRecordingToggled, this, [this](bool on) {
    if (!live_ || live_->finished()) return;
    timelineButton()->setEnabled(false);  // until the agents answered
    live_->setTimelineRecording(on);
  });
  connect(timeline_, &TimelinePage::importRequested, this, &MainWindow::importTraces);
  connect(runs_, &RunsPage::openRequested, this, [this](int64_t runId) { openRun(runId); });
  connect(runs_, &RunsPage::reportRequested, this, [this](int64_t id) {
    auto* dialog = new ReportDialog(store_, id, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->show();
  });
  history_->serve(runs_);
  connect(history_, &RunHistory::refreshed, this, &MainWindow::runsRefreshed);
  connect(history_, &RunHistory::importing, this, [this](const QString& text) { setBanner(text); });
  connect(history_, &RunHistory::imported, this, [this](int64_t runId, const QString& text, bool warning) {
    // Opening the run clears the banner; the import's account comes back once the run is shown.
    connect(
        this, &MainWindow::runShown, this, [this, text, warning] { setBanner(text, warning); },
        Qt::SingleShotConnection);
    openRun(runId, Timeline);
  });
  hostWatch_->serve(hosts_, launch_);
  connect(hostWatch_->registry(), &console::HostRegistry::hostChecked, this, &MainWindow::hostChecked);
  connect(hostWatch_, &HostWatch::slurmChecked, this, &MainWindow::slurmChecked);
  connect(pages_, &QTabWidget::currentChanged, this, [this](int page) {
    if (page == Hosts) refreshSlurm();
  });

  shown_ = new ShownRun(store_, {dashboard_, timeline_, logs_, logModel_, findingsModel_}, this);
  connect(shown_, &ShownRun::shown, this, &MainWindow::runShown);
  connect(shown_, &ShownRun::timelineRead, this, &MainWindow::timelineRead);
  connect(shown_, &ShownRun::timelineReadFailed, this, [this](const QString& message) {
    setBanner(tr("Could not read the timeline: %1").arg(message), true);
  });
  connect(dashboard_, &DashboardPage::rankSelected, shown_, &ShownRun::selectRank);
  connect(findings_, &FindingsPage::evidenceRequested, this,
          [this](const v1::Finding& finding, FindingsPage::Evidence where) {
            switch (where) {
              case FindingsPage::Evidence::Dashboard:
                shown_->showOnDashboard(finding);
                showPage(Dashboard);
                break;
              case FindingsPage::Evidence::Timeline:
                shown_->showInTimeline(finding);
                showPage(Timeline);
                break;
              case FindingsPage::Evidence::Logs:
                shown_->showLogs(finding);
                showPage(Logs);
                break;
            }
          });

  createMenus();
  updateLiveControls();
  restoreSettings();
  hostWatch_->registry()->restore();
  refreshRuns();
  refreshSlurm();
}

MainWindow::~MainWindow() {
  saveSettings();
  live_.reset();
}

void MainWindow::createMenus() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  file->setObjectName(QStringLiteral("fileMenu"));
  QAction* importFiles =
      file->addAction(tr("&Import traces…"), timeline_, &TimelinePage::chooseTracesToImport);
  importFiles->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_O));
  file->addAction(tr("Import a &folder of traces…"), timeline_, &TimelinePage::chooseFolderToImport);
  exportReport_ = file->addAction(tr("&Export report…"), this, [this] {
    if (shown_->runId() <= 0) return;
    auto* dialog = new ReportDialog(store_, shown_->runId(), this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->show();
  });
  exportReport_->setObjectName(QStringLiteral("exportReport"));
  exportReport_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
  exportReport_->setEnabled(false);
  connect(this, &MainWindow::runShown, exportReport_,
          [this](int64_t runId) { exportReport_->setEnabled(runId > 0); });
  file->addSeparator();
  QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
  quit->setObjectName(QStringLiteral("quit"));
  quit->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Q));
  quit->setMenuRole(QAction::QuitRole);

  QMenu* view = menuBar()->addMenu(tr("&View"));
  for (int i = 0; i < PageCount; ++i) {
    QAction* page = view->addAction(pages_->tabText(i), this, [this, i] { pages_->setCurrentIndex(i); });
    page->setShortcut(QKeySequence(Qt::ALT | static_cast<Qt::Key>(Qt::Key_1 + i)));
  }

  // The language takes effect from the next start: every page's text is made once, as it is built.
  QMenu* language = menuBar()->addMenu(tr("&Language"));
  language->setObjectName(QStringLiteral("languageMenu"));
  auto* languages = new QActionGroup(language);
  const QString inUse = languageInUse();
  QStringList offered{QStringLiteral("en")};
  offered << availableLanguages();
  for (const QString& code : offered) {
    QAction* choice = language->addAction(languageName(code));
    choice->setData(code);
    choice->setCheckable(true);
    choice->setChecked(code == inUse);
    languages->addAction(choice);
    connect(choice, &QAction::triggered, this, [this, code] { chooseLanguage(code); });
  }

  QMenu* help = menuBar()->addMenu(tr("&Help"));
  QAction* about = help->addAction(tr("&About Ringmaster"), this, [this] {
    QMessageBox::about(
        this, tr("About Ringmaster"),
        tr("<h3>Ringmaster %1</h3><p>A console for data-parallel training: launch ranks on your hosts or "
           "through Slurm, watch every rank live, and find the straggler, the leak, the stall and the "
           "crash.</p>"
           "<p>The same runs from a terminal: <code>ringmaster run -np 4 …</code>, <code>ringmaster "
           "show</code>, "
           "<code>ringmaster compare</code>, <code>ringmaster report</code>.</p>"
           "<p>Free software under the GNU General Public License, version 3 or later.</p>")
            .arg(QStringLiteral(RINGMASTER_VERSION)));
  });
  about->setMenuRole(QAction::AboutRole);
  help->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt)->setMenuRole(QAction::AboutQtRole);
}

void MainWindow::chooseLanguage(const QString& language) {
  QSettings().setValue(QStringLiteral("language"), language);
  setBanner(tr("Ringmaster speaks %1 from its next start.").arg(languageName(language)));
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

QAbstractButton* MainWindow::timelineButton() const {
  return dashboard_->timelineButton();
}

void MainWindow::updateLiveControls() {
  const bool running =
      live_ && !live_->finished() && !live_->jobId().isEmpty() && shown_->runId() == live_->runId();
  timelineButton()->setEnabled(running);
  // A Slurm job waiting for its nodes can be cancelled from the same button.
  dashboard_->stopButton()->setEnabled(running || (live_ && live_->waitingForSlurm()));
  if (!running) {
    QSignalBlocker block(timelineButton());
    timelineButton()->setChecked(false);
  }
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
        shown_->show(std::move(owned), heading);
        pages_->setCurrentIndex(page);
      });
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
  launch(hostWatch_->registry()->planFor(spec));
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
        if (live_ && shown_->runId() == live_->runId()) shown_->ingest(records, findings, live_->progress());
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
        if (live_ && shown_->runId() == live_->runId()) shown_->ingest(records, findings, live_->progress());
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
            shown_->show(std::move(data), heading);
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
    setBanner(tr("The run ended: %1 (%2).").arg(console::RunsModel::statusText(status), message), !succeeded);
    if (live_->runId() > 0 && shown_->runId() == live_->runId()) dashboard_->runEnded(status);
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
