// SPDX-License-Identifier: GPL-3.0-or-later
// The hosts a user works with, as the console keeps them: "This machine" (the embedded agent) and remote
// agents, remembered between sessions, each checked off the GUI thread (Connecting, then Connected with its
// host info or Unreachable with a reason) and re-checked quietly now and then, so a host that goes away or
// comes back shows it. It knows how each connected host was reached (port, token, CA), so a job naming those
// hosts launches there.
#pragma once

#include <QObject>
#include <QString>
#include <chrono>
#include <map>
#include <vector>

#include "console/models/hosts_model.h"
#include "console/session/agent_client.h"
#include "console/session/launcher.h"

class QTimer;

namespace ringmaster::console {

// A connected remote agent as the Launch page offers it.
struct ConnectedAgent {
  QString host;   // as the agent was reached, without the port
  int slots = 1;  // its cores
  int port = 0;
  QString tokenFile;
  QString tlsCa;
};

class HostRegistry : public QObject {
  Q_OBJECT

 public:
  // `workerPath` and `stateDir` are the embedded agent's (empty: its defaults), for this machine's preflight.
  HostRegistry(QString workerPath, QString stateDir, QObject* parent = nullptr);

  HostsModel* model() const { return model_; }

  // Adds a remote agent (remembered in the settings) and checks it; this machine is always row 0.
  void addHost(const HostEntry& entry);
  // Forgets the remote host of `row`.
  void removeHost(int row);
  // Checks the host of `row` again, off the GUI thread: Connecting, then Connected or Unreachable.
  void checkHost(int row);
  // Reads the remembered hosts and checks each one, and this machine.
  void restore();
  // Remote hosts are re-checked quietly (no "connecting" in between) this often. Default 30 s.
  void setWatchInterval(std::chrono::milliseconds interval);

  // The remote agents connected now, in the order of the list.
  std::vector<ConnectedAgent> connectedAgents() const;
  // The plan for `spec`: its hosts reached as they were reached here (port, token, CA), or this machine's
  // embedded agent when it names none.
  LaunchPlan planFor(const v1::JobSpec& spec) const;

 Q_SIGNALS:
  // A check of the host in `row` ended (its state is Connected or Unreachable).
  void hostChecked(int row);

 private:
  void checkLocalHost();
  void startCheck(int row, bool showConnecting);
  void recheckRemoteHosts();
  void save() const;

  QString workerPath_;
  QString stateDir_;
  HostsModel* model_;
  QTimer* watch_;
  std::map<QString, AgentEndpoint>
      endpoints_;                      // how each remote host was reached by its last check, by address
  std::map<QString, int> generation_;  // a check's answer counts only if no newer check of it began
};

}  // namespace ringmaster::console
