// SPDX-License-Identifier: GPL-3.0-or-later
// The Hosts page against real agents, offscreen: a `ringmaster-agent` process on a loopback port added as a
// user would, connected with its host info and preflight, a job launched on it from the Launch page, the host
// remembered across windows; an address where nothing listens and a wrong token, each with a message a person
// can act on.
#include <gtest/gtest.h>

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QDir>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QTableView>
#include <set>

#include "console/hosts/host_check.h"
#include "console/hosts/host_registry.h"
#include "gui/main_window.h"
#include "gui/pages/dashboard_page.h"
#include "gui/pages/hosts_page.h"
#include "gui/pages/launch_page.h"
#include "gui/views/series_chart.h"
#include "tests/gui/agent_process.h"
#include "tests/support/console_test.h"
#include "tests/support/files.h"

namespace ringmaster::gui {
namespace {

using State = console::HostEntry::State;
constexpr int kCheckTimeoutMs = 30'000;

class HostsTest : public test::ConsoleTest {
 protected:
  // Writes `text` to `name` in the sandbox; returns its path.
  QString write(const QString& name, const std::string& text) {
    const QString path = dir.filePath(name);
    test::writeFile(path.toStdString(), text);
    return path;
  }

  // Types the address (and token file) into the Hosts page and presses "Add host"; returns the new row once
  // its check has ended.
  int addFromPage(MainWindow& window, const QString& address, const QString& tokenFile = {}) {
    HostsPage* page = window.hostsPage();
    page->findChild<QLineEdit*>(QStringLiteral("hostAddress"))->setText(address);
    page->findChild<QLineEdit*>(QStringLiteral("hostTokenFile"))->setText(tokenFile);
    std::vector<State> seen;
    auto c = QObject::connect(window.hostsModel(), &QAbstractItemModel::dataChanged, [&] {
      const int row = window.hostsModel()->rowOf(address);
      if (row >= 0 && (seen.empty() || seen.back() != window.hostsModel()->host(row).state)) {
        seen.push_back(window.hostsModel()->host(row).state);
      }
    });
    page->findChild<QPushButton*>(QStringLiteral("addHost"))->click();
    const int row = window.hostsModel()->rowOf(address);
    EXPECT_GT(row, 0) << "the page did not add " << address.toStdString();
    EXPECT_TRUE(test::waitUntil(
        [&] {
          const State s = window.hostsModel()->host(row).state;
          return s == State::Connected || s == State::Unreachable;
        },
        kCheckTimeoutMs))
        << "the check of " << address.toStdString() << " did not end";
    QObject::disconnect(c);
    // It said "connecting" while the check ran (on a worker thread: the window kept running meanwhile).
    EXPECT_FALSE(seen.empty());
    if (!seen.empty()) {
      EXPECT_EQ(seen.front(), State::Connecting);
    }
    return row;
  }

  QString cell(MainWindow& window, int row, int column) {
    return window.hostsModel()->index(row, column).data().toString();
  }
};

// The registry behind the page, without widgets: its model stays consistent (QAbstractItemModelTester) while
// a real agent and an address where nothing listens are added, checked, planned for, forgotten and
// remembered.
TEST_F(HostsTest, TheRegistryChecksRemembersAndPlansForRealAgents) {
  const QString token = write(QStringLiteral("token"), "registry-token\n");
  test::AgentProcess agent(dir.filePath(QStringLiteral("remote")).toStdString(), token.toStdString());
  ASSERT_TRUE(agent.ready()) << "ringmaster-agent did not come up";
  const QString address = QString::fromStdString(agent.address());
  const QString nowhere = QStringLiteral("127.0.0.1:%1").arg(test::freePort());
  {
    console::HostRegistry registry(options.workerPath, options.stateDir);
    QAbstractItemModelTester tester(registry.model(), QAbstractItemModelTester::FailureReportingMode::Fatal);
    std::set<int> checked;
    QObject::connect(&registry, &console::HostRegistry::hostChecked, [&](int row) { checked.insert(row); });
    registry.restore();
    console::HostEntry withToken, unreachable;
    withToken.address = address;
    withToken.tokenFile = token;
    unreachable.address = nowhere;
    registry.addHost(withToken);
    registry.addHost(unreachable);
    ASSERT_TRUE(test::waitUntil([&] { return checked.size() == 3; }, kCheckTimeoutMs))
        << "checks did not end";
    const console::HostsModel& model = *registry.model();
    EXPECT_EQ(model.host(0).state, State::Connected) << model.host(0).message.toStdString();
    EXPECT_EQ(model.host(model.rowOf(address)).state, State::Connected);
    EXPECT_EQ(model.host(model.rowOf(nowhere)).state, State::Unreachable);
    EXPECT_TRUE(
        model.host(model.rowOf(nowhere)).message.contains(QStringLiteral("no agent of this user serves it")))
        << model.host(model.rowOf(nowhere)).message.toStdString();

    // Only the connected agent is offered, with how it was reached.
    const auto connected = registry.connectedAgents();
    ASSERT_EQ(connected.size(), 1u);
    EXPECT_EQ(connected[0].host, QStringLiteral("127.0.0.1"));
    EXPECT_EQ(connected[0].port, agent.port());
    EXPECT_EQ(connected[0].tokenFile, token);
    EXPECT_GT(connected[0].slots, 0);

    // A job naming that host is planned with its port and token; one naming no host runs on this machine.
    v1::JobSpec spec = defaultJobSpec();
    auto* host = spec.add_hosts();
    host->set_host("127.0.0.1");
    host->set_slots(2);
    const console::LaunchPlan plan = registry.planFor(spec);
    ASSERT_EQ(plan.hosts.size(), 1u);
    ASSERT_EQ(plan.agents.count("127.0.0.1"), 1u);
    EXPECT_EQ(plan.agents.at("127.0.0.1").port, agent.port());
    EXPECT_EQ(plan.agents.at("127.0.0.1").token, "registry-token");
    EXPECT_EQ(plan.workerPath, options.workerPath.toStdString());
    EXPECT_TRUE(registry.planFor(defaultJobSpec()).hosts.empty());

    registry.removeHost(model.rowOf(nowhere));
    EXPECT_EQ(model.rowOf(nowhere), -1);
  }
  // Remembered: a new registry reads the hosts back (the removed one stays gone) and checks them.
  console::HostRegistry again(options.workerPath, options.stateDir);
  QAbstractItemModelTester tester(again.model(), QAbstractItemModelTester::FailureReportingMode::Fatal);
  again.restore();
  EXPECT_EQ(again.model()->rowCount(), 2);
  EXPECT_GT(again.model()->rowOf(address), 0);
  EXPECT_EQ(again.model()->rowOf(nowhere), -1);
  ASSERT_TRUE(test::waitUntil([&] { return again.connectedAgents().size() == 1; }, kCheckTimeoutMs));
}

// A console started without a state folder checks this machine against the folder its embedded agent will
// use.
TEST_F(HostsTest, ThisMachineIsCheckedAgainstTheEmbeddedAgentsDefaultStateFolder) {
  qputenv("XDG_STATE_HOME", dir.filePath(QStringLiteral("xdg-state")).toUtf8());
  {
    console::HostRegistry registry(options.workerPath, QString());
    std::set<int> checked;
    QObject::connect(&registry, &console::HostRegistry::hostChecked, [&](int row) { checked.insert(row); });
    registry.restore();
    ASSERT_TRUE(test::waitUntil([&] { return checked.count(0) == 1; }, kCheckTimeoutMs)) << "no check ended";
    const console::HostEntry& local = registry.model()->host(0);
    EXPECT_EQ(local.state, State::Connected) << local.message.toStdString();
    for (const auto& problem : local.info.problems())
      EXPECT_EQ(problem.find("state directory"), std::string::npos) << problem;
  }
  qunsetenv("XDG_STATE_HOME");
}

TEST_F(HostsTest, ARealAgentConnectsShowsItsHostAndRunsAJobLaunchedFromTheForm) {
  const QString token = write(QStringLiteral("token"), "s3cret-token-for-the-test\n");
  const QString wrongToken = write(QStringLiteral("wrong-token"), "not-the-agents-token\n");
  test::AgentProcess agent(dir.filePath(QStringLiteral("remote")).toStdString(), token.toStdString());
  ASSERT_TRUE(agent.ready()) << "ringmaster-agent did not come up";
  const QString address = QString::fromStdString(agent.address());

  {
    MainWindow window(options);
    window.show();
    // A wrong token: unreachable, and the page says the token was rejected.
    int row = addFromPage(window, address, wrongToken);
    EXPECT_EQ(window.hostsModel()->host(row).state, State::Unreachable);
    EXPECT_TRUE(
        window.hostsModel()->host(row).message.contains(QStringLiteral("token rejected (UNAUTHENTICATED)")))
        << window.hostsModel()->host(row).message.toStdString();
    window.hostsPage()->view()->selectRow(row);
    window.hostsPage()->findChild<QPushButton*>(QStringLiteral("removeHost"))->click();
    EXPECT_EQ(window.hostsModel()->rowOf(address), -1);

    // The right one: connected, with the agent's host info and preflight.
    row = addFromPage(window, address, token);
    const console::HostEntry& host = window.hostsModel()->host(row);
    ASSERT_EQ(host.state, State::Connected) << host.message.toStdString();
    ASSERT_TRUE(host.hasInfo);
    EXPECT_FALSE(host.info.hostname().empty());
    EXPECT_GT(host.info.cores(), 0u);
    EXPECT_GT(host.info.memory_bytes(), 0u);
    EXPECT_TRUE(cell(window, row, console::HostsModel::State).startsWith(QStringLiteral("connected")));
    EXPECT_FALSE(cell(window, row, console::HostsModel::Backends).isEmpty());
    EXPECT_FALSE(cell(window, row, console::HostsModel::Preflight).isEmpty());

    // The Launch page offers it; a 2-rank job launched from the form runs there and lands in the history.
    LaunchPage* form = window.launchPage();
    auto* useConnected = form->findChild<QPushButton*>(QStringLiteral("useConnectedHosts"));
    ASSERT_TRUE(useConnected->isEnabled());
    useConnected->click();
    auto* hosts = qobject_cast<QLineEdit*>(form->field(QStringLiteral("hosts")));
    EXPECT_TRUE(hosts->text().startsWith(QStringLiteral("127.0.0.1:"))) << hosts->text().toStdString();
    hosts->setText(QStringLiteral("127.0.0.1:2"));
    // The same job from a terminal reaches the agent as the page does.
    EXPECT_TRUE(form->commandLine().contains(
        QStringLiteral("-H 127.0.0.1:2 --agent-port %1 --token-file %2").arg(agent.port()).arg(token)))
        << form->commandLine().toStdString();
    qobject_cast<QLineEdit*>(form->field(QStringLiteral("name")))
        ->setText(QStringLiteral("on the remote agent"));
    qobject_cast<QSpinBox*>(form->field(QStringLiteral("world_size")))->setValue(2);
    qobject_cast<QComboBox*>(form->field(QStringLiteral("model")))->setCurrentText(QStringLiteral("mlp"));
    qobject_cast<QComboBox*>(form->field(QStringLiteral("dataset")))
        ->setCurrentText(QStringLiteral("synthetic"));
    qobject_cast<QSpinBox*>(form->field(QStringLiteral("hyper.epochs")))->setValue(0);
    qobject_cast<QSpinBox*>(form->field(QStringLiteral("hyper.steps")))->setValue(10);
    ASSERT_TRUE(form->problems().isEmpty()) << form->problems().join('\n').toStdString();
    QString status;
    QObject::connect(&window, &MainWindow::liveRunEnded, [&](const QString& s) { status = s; });
    form->findChild<QPushButton*>(QStringLiteral("launch"))->click();
    ASSERT_TRUE(test::waitUntil([&] { return !status.isEmpty(); }, 180'000)) << "the run did not end";
    ASSERT_EQ(status, QStringLiteral("finished")) << window.bannerText().toStdString();
    EXPECT_FALSE(window.liveRun()->onThisMachine());
    EXPECT_EQ(window.shownRun()->series.rank(0, console::RankMetric::Throughput).count(), 10);
    EXPECT_EQ(window.shownRun()->series.rank(1, console::RankMetric::Throughput).count(), 10);
    // The ranks ran under the remote agent: its journal holds the job.
    EXPECT_TRUE(QDir(dir.filePath(QStringLiteral("remote")))
                    .entryList(QDir::AllEntries | QDir::NoDotAndDotDot)
                    .size() > 0);
  }

  // A new window remembers the host (with its token file) and connects again by itself.
  {
    MainWindow window(options);
    const int row = window.hostsModel()->rowOf(address);
    ASSERT_GT(row, 0);
    EXPECT_EQ(window.hostsModel()->host(row).tokenFile, token);
    ASSERT_TRUE(test::waitUntil([&] { return window.hostsModel()->host(row).state == State::Connected; },
                                kCheckTimeoutMs));

    // The agent goes away: "Check again" says so.
    agent.stop();
    window.hostsPage()->view()->selectRow(row);
    bool checked = false;
    QObject::connect(&window, &MainWindow::hostChecked, [&](int r) { checked = checked || r == row; });
    window.hostsPage()->findChild<QPushButton*>(QStringLiteral("checkHost"))->click();
    ASSERT_TRUE(test::waitUntil([&] { return checked; }, kCheckTimeoutMs));
    EXPECT_EQ(window.hostsModel()->host(row).state, State::Unreachable);
    EXPECT_TRUE(window.hostsModel()->host(row).message.contains(QStringLiteral("connection refused")))
        << window.hostsModel()->host(row).message.toStdString();
  }
}

// Nobody presses "Check again": the window re-checks its remote hosts by itself and shows one that went away.
TEST_F(HostsTest, AHostThatGoesAwayIsShownUnreachableWithoutAsking) {
  test::AgentProcess agent(dir.filePath(QStringLiteral("remote")).toStdString());
  ASSERT_TRUE(agent.ready()) << "ringmaster-agent did not come up";
  MainWindow window(options);
  window.setHostWatchInterval(std::chrono::milliseconds(200));
  const int row = addFromPage(window, QString::fromStdString(agent.address()), {});
  ASSERT_EQ(window.hostsModel()->host(row).state, State::Connected)
      << window.hostsModel()->host(row).message.toStdString();
  // Quiet re-checks of a healthy host never show "connecting" in between.
  std::vector<State> seen;
  int rechecks = 0;
  auto c = QObject::connect(window.hostsModel(), &QAbstractItemModel::dataChanged,
                            [&] { seen.push_back(window.hostsModel()->host(row).state); });
  auto d = QObject::connect(&window, &MainWindow::hostChecked, [&](int r) { rechecks += r == row ? 1 : 0; });
  ASSERT_TRUE(test::waitUntil([&] { return rechecks >= 3; }, kCheckTimeoutMs))
      << "the host was not re-checked";
  EXPECT_EQ(window.hostsModel()->host(row).state, State::Connected);
  for (State s : seen) EXPECT_EQ(s, State::Connected);
  QObject::disconnect(c);
  QObject::disconnect(d);

  agent.stop();
  ASSERT_TRUE(test::waitUntil([&] { return window.hostsModel()->host(row).state == State::Unreachable; },
                              kCheckTimeoutMs))
      << "the host that went away still shows as "
      << cell(window, row, console::HostsModel::State).toStdString();
  EXPECT_TRUE(
      window.hostsModel()->host(row).message.contains(QStringLiteral("no agent of this user serves it")))
      << window.hostsModel()->host(row).message.toStdString();
}

TEST_F(HostsTest, AnAddressWhereNoAgentListensIsUnreachableWithAMessageToActOn) {
  MainWindow window(options);
  window.show();
  const QString address = QStringLiteral("127.0.0.1:%1").arg(test::freePort());
  const int row = addFromPage(window, address);
  const console::HostEntry& host = window.hostsModel()->host(row);
  EXPECT_EQ(host.state, State::Unreachable);
  // A loopback address without a token is this user's own agent, over its socket.
  EXPECT_TRUE(host.message.startsWith(
      QStringLiteral("cannot reach %1: no agent of this user serves it (").arg(address)))
      << host.message.toStdString();
  EXPECT_TRUE(
      host.message.contains(QStringLiteral("is ringmaster-agent running as this user, and on port %1?")
                                .arg(address.section(QLatin1Char(':'), 1))))
      << host.message.toStdString();
  EXPECT_TRUE(
      cell(window, row, console::HostsModel::State).startsWith(QStringLiteral("unreachable: cannot reach")));
  // The Launch page has no connected host to offer.
  EXPECT_FALSE(
      window.launchPage()->findChild<QPushButton*>(QStringLiteral("useConnectedHosts"))->isEnabled());

  // Addresses and files a person can get wrong are named in the message, without a network call.
  EXPECT_EQ(console::checkHost("node1:99999", "", "").message,
            "address node1:99999: '99999' is not a TCP port (1-65535)");
  EXPECT_EQ(
      console::checkHost("127.0.0.1", dir.filePath(QStringLiteral("missing")).toStdString(), "").message,
      "token file " + dir.filePath(QStringLiteral("missing")).toStdString() +
          ": cannot read the file (No such file or directory)");
  const console::AgentEndpoint v6 = console::parseAgentAddress("[::1]:6000");
  EXPECT_EQ(v6.host, "::1");
  EXPECT_EQ(v6.port, 6000);
  EXPECT_EQ(console::parseAgentAddress("node1").port, agent::kDefaultAgentPort);
}

}  // namespace
}  // namespace ringmaster::gui
