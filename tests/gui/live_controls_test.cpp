// SPDX-License-Identifier: GPL-3.0-or-later
// The console's hold on a live run, offscreen, with real ranks through the embedded agent: a watch stream
// broken mid-run is reconnected and backfilled under a banner, with every step of both ranks on the dashboard
// once; timeline recording turned on and off from the window; and `ringmaster-gui --run -- <flags of
// ringmaster run>` opening on the live job, in-process and as the real program.
#include <gtest/gtest.h>

#include <QAbstractButton>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSettings>
#include <algorithm>

#include "common/error.h"
#include "common/json.h"
#include "gui/command_line.h"
#include "gui/live_run.h"
#include "gui/main_window.h"
#include "gui/pages/dashboard_page.h"
#include "gui/pages/launch_page.h"
#include "gui/pages/timeline_page.h"
#include "gui/views/series_chart.h"
#include "history/run_store.h"
#include "tests/support/agent_test_support.h"
#include "tests/support/console_test.h"
#include "tests/support/process.h"
#include "tests/support/scripted_agent.h"

namespace ringmaster::gui {
namespace {

constexpr int kRunTimeoutMs = 240'000;

class LiveControlsTest : public test::ConsoleTest {
 protected:
  // Steps every rank of the shown run has reported, the fewest among `ranks`.
  static uint64_t stepsOfAll(MainWindow& window, int ranks) {
    if (!window.shownRun() || window.shownRun()->series.rankCount() < ranks) return 0;
    uint64_t fewest = UINT64_MAX;
    for (int r = 0; r < ranks; ++r) {
      fewest = std::min<uint64_t>(fewest,
                                  window.shownRun()->series.rank(r, console::RankMetric::Throughput).count());
    }
    return fewest;
  }

  static bool waitForSteps(MainWindow& window, int ranks, uint64_t steps) {
    return test::waitUntil([&] { return stepsOfAll(window, ranks) >= steps; }, kRunTimeoutMs);
  }

  // Timeline events of `rank` in the shown run.
  static size_t timelineEvents(MainWindow& window, int rank) {
    const console::TimelineModel& timeline = window.shownRun()->timeline;
    size_t n = 0;
    for (int lane = 0; lane < timeline.laneCount(); ++lane) {
      if (timeline.lane(lane).rank == rank) n += timeline.events(lane).size();
    }
    return n;
  }
};

TEST_F(LiveControlsTest, ABrokenWatchStreamReconnectsBackfillsAndSaysSo) {
  MainWindow window(options);
  window.show();
  QStringList banners;
  QObject::connect(&window, &MainWindow::bannerChanged, [&](const QString& text) { banners << text; });
  QString status;
  QObject::connect(&window, &MainWindow::liveRunEnded, [&](const QString& s) { status = s; });

  constexpr uint64_t kSteps = 300;
  window.launch(test::smallJob(2, kSteps));
  ASSERT_TRUE(waitForSteps(window, 2, 5)) << window.bannerText().toStdString();
  ASSERT_TRUE(status.isEmpty()) << "the run ended before the connection could be broken";
  window.liveRun()->dropConnections();
  ASSERT_TRUE(test::waitUntil([&] { return !status.isEmpty(); }, kRunTimeoutMs)) << "the run did not end";
  ASSERT_EQ(status, QStringLiteral("finished"));

  // The banner said the connection was lost, then that it was back with what was backfilled, then went.
  const auto lost = std::find_if(banners.begin(), banners.end(), [](const QString& b) {
    return b.startsWith(QStringLiteral("Connection to ")) &&
           b.endsWith(QStringLiteral(" lost — reconnecting…"));
  });
  ASSERT_NE(lost, banners.end()) << banners.join('\n').toStdString();
  const auto back = std::find_if(lost, banners.end(), [](const QString& b) {
    return b.startsWith(QStringLiteral("Reconnected to ")) && b.contains(QStringLiteral("; backfilled "));
  });
  ASSERT_NE(back, banners.end()) << banners.join('\n').toStdString();
  ASSERT_NE(back + 1, banners.end()) << "the reconnection banner stayed";
  EXPECT_TRUE((back + 1)->isEmpty() || (back + 1)->startsWith(QStringLiteral("The run ended")))
      << (back + 1)->toStdString();

  // Every step of both ranks reached the dashboard, each record once and in order.
  for (int rank = 0; rank < 2; ++rank) {
    const auto& series = window.shownRun()->series.rank(rank, console::RankMetric::Throughput);
    EXPECT_EQ(series.count(), static_cast<int64_t>(kSteps)) << "rank " << rank;
    EXPECT_EQ(series.endStep(), kSteps) << "rank " << rank;
  }
  EXPECT_EQ(window.liveRun()->sequenceFaults(), 0u);
  window.dashboardPage()->redraw();
  EXPECT_GT(window.dashboardPage()->throughputChart()->pointCount(1), 0);
  EXPECT_GT(window.dashboardPage()->throughputChart()->pointCount(2), 0);
}

TEST_F(LiveControlsTest, TimelineRecordingStartsAndStopsOnEveryRankOfALiveRun) {
  MainWindow window(options);
  window.show();
  QAbstractButton* record = window.timelineButton();
  EXPECT_FALSE(record->isEnabled()) << "nothing to record before a run";
  QString status;
  QObject::connect(&window, &MainWindow::liveRunEnded, [&](const QString& s) { status = s; });

  v1::JobSpec spec = test::smallJob(2, 1'000'000);  // runs until stopped
  spec.set_timeline(false);
  window.launch(spec);
  ASSERT_TRUE(waitForSteps(window, 2, 5));
  ASSERT_TRUE(record->isEnabled());
  EXPECT_FALSE(record->isChecked());
  EXPECT_EQ(window.shownRun()->timeline.eventCount(), 0u) << "no timeline before it is asked for";

  // On: every rank's lanes fill.
  record->click();
  ASSERT_TRUE(test::waitUntil([&] { return record->isEnabled(); }, 30'000)) << "the agents did not answer";
  ASSERT_TRUE(record->isChecked()) << window.bannerText().toStdString();
  ASSERT_TRUE(test::waitUntil([&] { return timelineEvents(window, 0) > 0 && timelineEvents(window, 1) > 0; },
                              kRunTimeoutMs));

  // Off: once the ranks have taken it (they ask their agent a few times a second), no more events arrive.
  record->click();
  ASSERT_TRUE(test::waitUntil([&] { return record->isEnabled(); }, 30'000));
  ASSERT_FALSE(record->isChecked()) << window.bannerText().toStdString();
  const uint64_t offAt = stepsOfAll(window, 2);
  ASSERT_TRUE(waitForSteps(window, 2, offAt + 300));
  const size_t settled = window.shownRun()->timeline.eventCount();
  ASSERT_TRUE(waitForSteps(window, 2, offAt + 600));
  EXPECT_EQ(window.shownRun()->timeline.eventCount(), settled);

  window.liveRun()->stop();
  ASSERT_TRUE(test::waitUntil([&] { return !status.isEmpty(); }, 60'000));
  EXPECT_EQ(status, QStringLiteral("stopped"));
  EXPECT_FALSE(record->isEnabled());
}

TEST_F(LiveControlsTest, TheConsoleStartedWithRunFlagsOpensOnTheLiveJob) {
  const QString summary = dir.filePath(QStringLiteral("summary.json"));
  const QStringList arguments = {QStringLiteral("ringmaster-gui"),
                                 QStringLiteral("--store"),
                                 options.storePath,
                                 QStringLiteral("--run"),
                                 QStringLiteral("--"),
                                 QStringLiteral("-np"),
                                 QStringLiteral("2"),
                                 QStringLiteral("--model"),
                                 QStringLiteral("mlp"),
                                 QStringLiteral("--data"),
                                 QStringLiteral("synthetic"),
                                 QStringLiteral("--steps"),
                                 QStringLiteral("30"),
                                 QStringLiteral("--worker"),
                                 options.workerPath,
                                 QStringLiteral("--state-dir"),
                                 options.stateDir,
                                 QStringLiteral("--summary-json"),
                                 summary};
  const ConsoleCommandLine line = parseCommandLine(arguments);
  ASSERT_TRUE(line.run);
  EXPECT_EQ(line.plan.spec.world_size(), 2u);
  EXPECT_EQ(line.plan.spec.model(), v1::MODEL_MLP);
  EXPECT_EQ(line.window.storePath, options.storePath);

  // The last session left the window on the Timeline page, and the Launch form at its defaults.
  QSettings().setValue(QStringLiteral("window/page"), QStringLiteral("timeline"));
  MainWindow window(line.window);
  window.show();
  ASSERT_EQ(window.pages()->currentWidget(), window.timelinePage());
  int64_t shown = 0;
  QObject::connect(&window, &MainWindow::runShown, [&](int64_t id) { shown = id; });
  QString status;
  QObject::connect(&window, &MainWindow::liveRunEnded, [&](const QString& s) { status = s; });
  startConsole(window, line);
  // The Dashboard at once, before the ranks started; the Launch form holds the job that runs.
  EXPECT_EQ(window.pages()->currentWidget(), window.dashboardPage());
  EXPECT_EQ(window.launchPage()->spec().hyper().steps(), 30u);
  EXPECT_EQ(window.launchPage()->spec().model(), v1::MODEL_MLP);
  EXPECT_EQ(window.launchPage()->spec().world_size(), 2u);

  // The dashboard shows the run while it runs, and records of both ranks arrive.
  ASSERT_TRUE(test::waitUntil([&] { return shown > 0; }, kRunTimeoutMs)) << window.bannerText().toStdString();
  EXPECT_EQ(window.pages()->currentWidget(), window.dashboardPage());
  ASSERT_TRUE(test::waitUntil([&] { return !status.isEmpty(); }, kRunTimeoutMs));
  ASSERT_EQ(status, QStringLiteral("finished")) << window.bannerText().toStdString();
  EXPECT_EQ(shown, window.liveRun()->runId());
  EXPECT_EQ(stepsOfAll(window, 2), 30u);

  // Stored as finished under the CLI's name for it; the summary written as `ringmaster run` writes it.
  RunStore store(options.storePath.toStdString());
  const auto runs = store.runs();
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].status, "finished");
  EXPECT_EQ(runs[0].name, "mlp ddp x2");
  EXPECT_EQ(runs[0].worldSize, 2);
  QFile file(summary);
  ASSERT_TRUE(file.open(QIODevice::ReadOnly)) << "no --summary-json file";
  const QByteArray text = file.readAll();
  const rapidjson::Document json = parseJson(std::string_view(text.constData(), size_t(text.size())));
  ASSERT_TRUE(json.IsObject() && json.HasMember("status")) << text.toStdString();
  EXPECT_STREQ(json["status"].GetString(), "finished");

  // Job flags are checked like the CLI's.
  EXPECT_THROW(parseCommandLine({QStringLiteral("ringmaster-gui"), QStringLiteral("--run"),
                                 QStringLiteral("--"), QStringLiteral("--engine"), QStringLiteral("nope")}),
               InputError);
  EXPECT_THROW(
      parseCommandLine({QStringLiteral("ringmaster-gui"), QStringLiteral("-np"), QStringLiteral("2")}),
      InputError);
}

TEST_F(LiveControlsTest, TheProgramWithRunFlagsRunsTheJobAndShowsIt) {
  const QString shots = dir.filePath(QStringLiteral("shots"));
  const std::string gui = test::binPath("ringmaster-gui");
  const std::map<std::string, std::string> env = {
      {"QT_QPA_PLATFORM", "offscreen"},
      {"XDG_CONFIG_HOME", dir.filePath(QStringLiteral("config")).toStdString()}};
  const auto result = test::runProcess(
      {gui, "--store", options.storePath.toStdString(), "--screenshot", shots.toStdString(), "--run", "--",
       "-np", "2", "--model", "mlp", "--data", "synthetic", "--steps", "20", "--worker",
       options.workerPath.toStdString(), "--state-dir", options.stateDir.toStdString()},
      env, std::chrono::milliseconds(kRunTimeoutMs));
  ASSERT_EQ(result.exitCode, 0) << result.err;
  // The pages were rendered once the run ended, the dashboard among them.
  EXPECT_GT(QFileInfo(QDir(shots).filePath(QStringLiteral("dashboard.png"))).size(), 10'000);
  RunStore store(options.storePath.toStdString());
  ASSERT_EQ(store.runs().size(), 1u);
  EXPECT_EQ(store.runs()[0].status, "finished");

  // A bad job flag: exit status 2 and the flag named.
  const auto bad = test::runProcess({gui, "--run", "--", "-np", "2", "--engine", "nope"}, env);
  EXPECT_EQ(bad.exitCode, 2);
  EXPECT_NE(bad.err.find("--engine"), std::string::npos) << bad.err;
}

// Stopping a remote run whose host takes the stop but never ends the job (its job hangs, its watch stream
// stays open), as the window's close does ("Stop it", then the run's destructor waits for it): the run still
// ends, as stopped, saying which host did not confirm, so that the window can close.
TEST_F(LiveControlsTest, StoppingARunWhoseHostNeverConfirmsStillEndsIt) {
  v1::WatchReply running;
  auto* record = running.mutable_batch()->add_records();
  record->set_seq(1);
  record->mutable_rank_state()->set_state(v1::RankState::STATE_RUNNING);
  std::unique_ptr<LiveRun> run;  // outlives the agent, whose going ends a wait on it
  auto live = std::make_unique<test::ScriptedAgent>(test::ScriptedAgent::sendsThenHangs(running));
  console::LaunchPlan plan;
  plan.spec = test::smallJob(1, 5);
  plan.hosts = {{"127.0.0.1", 1}};
  plan.agentPort = live->port();
  plan.token = test::ScriptedAgent::kToken;
  run = std::make_unique<LiveRun>(plan, options.storePath, LiveRun::OnRecords{});
  QString status, message;
  QObject::connect(run.get(), &LiveRun::ended, [&](const QString& s, const QString& m) {
    status = s;
    message = m;
  });
  run->start();
  ASSERT_TRUE(test::waitUntil([&] { return live->watches() == 1; }, 60'000));
  run->stop();
  EXPECT_TRUE(test::waitUntil([&] { return !status.isEmpty(); }, 120'000))
      << "the run waits for ever for its host";
  EXPECT_EQ(status.toStdString(), "stopped");
  EXPECT_TRUE(message.contains(QStringLiteral("host 127.0.0.1 did not confirm"))) << message.toStdString();
  RunStore store(options.storePath.toStdString());
  ASSERT_EQ(store.runs().size(), 1u);
  EXPECT_EQ(store.runs()[0].status, "stopped");
}

}  // namespace
}  // namespace ringmaster::gui
