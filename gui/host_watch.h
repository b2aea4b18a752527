// SPDX-License-Identifier: GPL-3.0-or-later
// The machines a run can go to, as the window knows them: the Hosts page's hosts (console::HostRegistry,
// checked and re-checked), Slurm's partitions (sinfo, off the GUI thread), and what of them the Launch page
// offers (the connected hosts, and what each checked host can run).
#pragma once

#include <QObject>
#include <chrono>

namespace ringmaster::console {
class HostRegistry;
class HostsModel;
class SlurmPartitionsModel;
}  // namespace ringmaster::console

namespace ringmaster::gui {

class HostsPage;
class LaunchPage;

class HostWatch : public QObject {
  Q_OBJECT

 public:
  // `workerPath` and `stateDir` are the embedded agent's (empty: its defaults).
  HostWatch(const QString& workerPath, const QString& stateDir, QObject* parent = nullptr);

  console::HostRegistry* registry() const { return registry_; }
  console::HostsModel* model() const;
  console::SlurmPartitionsModel* slurmModel() const { return slurmModel_; }
  // Carries out the Hosts page's add, remove and check, and keeps the Launch page's hosts up to date.
  void serve(HostsPage* hosts, LaunchPage* launch);
  // Asks Slurm for its partitions (a few seconds at most); slurmChecked() tells when the model has them.
  void refreshSlurm();

 Q_SIGNALS:
  void slurmChecked();

 private:
  console::HostRegistry* registry_;
  console::SlurmPartitionsModel* slurmModel_;
  bool slurmCheckPending_ = false;
};

}  // namespace ringmaster::gui
