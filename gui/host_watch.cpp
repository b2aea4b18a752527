// SPDX-License-Identifier: GPL-3.0-or-later
#include "gui/host_watch.h"

#include "console/hosts/host_registry.h"
#include "console/models/hosts_model.h"
#include "console/session/background.h"
#include "console/slurm/slurm_job.h"
#include "gui/pages/hosts_page.h"
#include "gui/pages/launch_page.h"

namespace ringmaster::gui {
namespace {

constexpr std::chrono::seconds kSinfoTimeout{5};

// "node-a:6000" as the Hosts field names it: "node-a" ("[::1]:6000": "::1").
QString hostName(const QString& address) {
  QString host = address;
  if (host.startsWith(QLatin1Char('['))) return host.mid(1, host.indexOf(QLatin1Char(']')) - 1);
  if (host.count(QLatin1Char(':')) == 1) host.truncate(host.indexOf(QLatin1Char(':')));
  return host;
}

}  // namespace

HostWatch::HostWatch(const QString& workerPath, const QString& stateDir, QObject* parent)
    : QObject(parent),
      registry_(new console::HostRegistry(workerPath, stateDir, this)),
      slurmModel_(new console::SlurmPartitionsModel(this)) {}

console::HostsModel* HostWatch::model() const {
  return registry_->model();
}

void HostWatch::serve(HostsPage* hosts, LaunchPage* launch) {
  connect(hosts, &HostsPage::checkRequested, registry_, &console::HostRegistry::checkHost);
  connect(hosts, &HostsPage::checkRequested, this, &HostWatch::refreshSlurm);
  connect(hosts, &HostsPage::addRequested, registry_, &console::HostRegistry::addHost);
  connect(hosts, &HostsPage::removeRequested, registry_, &console::HostRegistry::removeHost);
  connect(model(), &QAbstractItemModel::dataChanged, launch, [this, launch] {
    // The Launch page offers the connected hosts, with their cores as slots.
    QList<LaunchPage::RemoteAgent> connected;
    for (const console::ConnectedAgent& a : registry_->connectedAgents()) {
      connected.push_back({a.host, a.slots, a.port, a.tokenFile, a.tlsCa});
    }
    launch->setConnectedHosts(connected);
    // And knows what each checked host can run: this machine as "", a remote one by its name.
    QMap<QString, v1::HostInfo> known;
    for (int row = 0; row < model()->rowCount(); ++row) {
      const console::HostEntry& host = model()->host(row);
      if (!host.hasInfo || (!host.isLocal() && host.state != console::HostEntry::State::Connected)) continue;
      known.insert(host.isLocal() ? QString() : hostName(host.address), host.info);
    }
    launch->setKnownHosts(known);
  });
}

void HostWatch::refreshSlurm() {
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

}  // namespace ringmaster::gui
