// SPDX-License-Identifier: GPL-3.0-or-later
#include "console/hosts/host_registry.h"

#include <QSettings>
#include <QTimer>
#include <algorithm>

#include "agent/agent_server.h"
#include "agent/host_info.h"
#include "console/hosts/host_check.h"
#include "console/session/background.h"

namespace ringmaster::console {

HostRegistry::HostRegistry(QString workerPath, QString stateDir, QObject* parent)
    : QObject(parent),
      workerPath_(std::move(workerPath)),
      stateDir_(std::move(stateDir)),
      model_(new HostsModel(this)),
      watch_(new QTimer(this)) {
  connect(watch_, &QTimer::timeout, this, &HostRegistry::recheckRemoteHosts);
  watch_->start(30000);
}

void HostRegistry::addHost(const HostEntry& entry) {
  if (entry.isLocal()) return;
  const int row = model_->addHost(entry);
  save();
  checkHost(row);
}

void HostRegistry::removeHost(int row) {
  if (row <= 0 || row >= model_->rowCount()) return;
  endpoints_.erase(model_->host(row).address);
  model_->removeHost(row);
  save();
}

void HostRegistry::checkHost(int row) {
  if (row == 0) {
    checkLocalHost();
  } else {
    startCheck(row, true);
  }
}

void HostRegistry::setWatchInterval(std::chrono::milliseconds interval) {
  watch_->start(static_cast<int>(interval.count()));
}

void HostRegistry::restore() {
  QSettings settings;
  const int count = settings.beginReadArray(QStringLiteral("hosts"));
  std::vector<HostEntry> saved;
  for (int i = 0; i < count; ++i) {
    settings.setArrayIndex(i);
    HostEntry entry;
    entry.address = settings.value(QStringLiteral("address")).toString();
    entry.tokenFile = settings.value(QStringLiteral("tokenFile")).toString();
    entry.tlsCa = settings.value(QStringLiteral("tlsCa")).toString();
    if (!entry.address.isEmpty()) saved.push_back(entry);
  }
  settings.endArray();
  for (const auto& entry : saved) checkHost(model_->addHost(entry));
  checkLocalHost();
}

void HostRegistry::save() const {
  QSettings settings;
  settings.beginWriteArray(QStringLiteral("hosts"), model_->rowCount() - 1);
  for (int row = 1; row < model_->rowCount(); ++row) {
    const HostEntry& h = model_->host(row);
    settings.setArrayIndex(row - 1);
    settings.setValue(QStringLiteral("address"), h.address);
    settings.setValue(QStringLiteral("tokenFile"), h.tokenFile);
    settings.setValue(QStringLiteral("tlsCa"), h.tlsCa);
  }
  settings.endArray();
}

void HostRegistry::checkLocalHost() {
  model_->setState(0, HostEntry::State::Connecting);
  runInBackground<v1::HostInfo>(
      this,
      [worker = workerPath_.toStdString(), stateDir = stateDir_.toStdString()] {
        // No folder given: the embedded agent's own default, which is the one its jobs will use.
        return agent::collectHostInfo(worker, stateDir.empty() ? agent::defaultStateDir() : stateDir);
      },
      [this](v1::HostInfo info) {
        model_->setInfo(0, info);
        model_->setState(0, HostEntry::State::Connected);
        Q_EMIT hostChecked(0);
      },
      [this](const QString& error) {
        model_->setState(0, HostEntry::State::Unreachable, error);
        Q_EMIT hostChecked(0);
      });
}

void HostRegistry::recheckRemoteHosts() {
  for (int row = 1; row < model_->rowCount(); ++row) {
    if (model_->host(row).state != HostEntry::State::Connecting) startCheck(row, false);
  }
}

void HostRegistry::startCheck(int row, bool showConnecting) {
  if (row <= 0 || row >= model_->rowCount()) return;
  const HostEntry entry = model_->host(row);
  const int generation = ++generation_[entry.address];
  if (showConnecting) model_->setState(row, HostEntry::State::Connecting);
  runInBackground<HostCheck>(
      this,
      [address = entry.address.toStdString(), token = entry.tokenFile.toStdString(),
       ca = entry.tlsCa.toStdString()] { return console::checkHost(address, token, ca); },
      [this, address = entry.address, generation](HostCheck check) {
        // The row may have moved (a host removed above it) or gone, or a newer check be under way.
        const int now = model_->rowOf(address);
        if (now < 0 || generation_[address] != generation) return;
        if (!check.endpoint.host.empty()) endpoints_[address] = check.endpoint;
        if (check.reachable) {
          model_->setInfo(now, check.info);
          model_->setState(now, HostEntry::State::Connected);
        } else {
          model_->setState(now, HostEntry::State::Unreachable, QString::fromStdString(check.message));
        }
        Q_EMIT hostChecked(now);
      },
      [this, address = entry.address](const QString& error) {
        const int now = model_->rowOf(address);
        if (now < 0) return;
        model_->setState(now, HostEntry::State::Unreachable, error);
        Q_EMIT hostChecked(now);
      });
}

std::vector<ConnectedAgent> HostRegistry::connectedAgents() const {
  std::vector<ConnectedAgent> connected;
  for (int row = 1; row < model_->rowCount(); ++row) {
    const HostEntry& h = model_->host(row);
    auto it = endpoints_.find(h.address);
    if (h.state != HostEntry::State::Connected || it == endpoints_.end()) continue;
    connected.push_back({QString::fromStdString(it->second.host),
                         static_cast<int>(std::max(1u, h.info.cores())), it->second.port, h.tokenFile,
                         h.tlsCa});
  }
  return connected;
}

LaunchPlan HostRegistry::planFor(const v1::JobSpec& spec) const {
  LaunchPlan plan;
  plan.spec = spec;
  plan.workerPath = workerPath_.toStdString();
  plan.stateDir = stateDir_.toStdString();
  for (const auto& h : spec.hosts()) {
    plan.hosts.push_back(HostSlots{h.host(), static_cast<int>(h.slots())});
    // A host on the list is reached as it was there: its port, token and CA; a connected one before the
    // others.
    for (const auto& [address, endpoint] : endpoints_) {
      const int row = model_->rowOf(address);
      if (endpoint.host != h.host() || row < 0) continue;
      const bool connected = model_->host(row).state == HostEntry::State::Connected;
      if (connected || !plan.agents.count(h.host())) plan.agents[h.host()] = endpoint;
    }
  }
  return plan;
}

}  // namespace ringmaster::console
