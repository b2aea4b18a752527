// SPDX-License-Identifier: GPL-3.0-or-later
// A run launched from this console, as the window sees it: a console::RunSession (the same as `ringmaster
// run`'s) started and followed on its own thread, each batch of records handed to the GUI thread as a queued
// call with the session's findings. Lost and restored watch streams, and the answers to timeline on/off,
// arrive as queued signals too. A run submitted to Slurm is first submitted and waited for on that thread
// (console::SlurmJob, as `ringmaster run --slurm` does), its queue state and Slurm's reason arriving as
// signals, then followed as any other.
#pragma once

#include <QObject>
#include <QString>
#include <QStringList>
#include <atomic>
#include <chrono>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

#include "console/hosts/host_facts.h"
#include "console/session/run_flags.h"
#include "console/session/run_session.h"

namespace ringmaster::console {
class SlurmJob;
}

namespace ringmaster::gui {

// Files a run writes besides the history, as `ringmaster run --summary-json FILE --timeline FILE` do.
struct LiveRunFiles {
  std::string summaryJson;  // the run summary, written when the run ends
  std::string timeline;     // every rank's timeline as a Chrome trace, written as it arrives
};

class LiveRun : public QObject, public console::RecordSink {
  Q_OBJECT

 public:
  // Records (and the findings so far) arrive on the GUI thread through this.
  using OnRecords = std::function<void(const std::vector<v1::Record>&, const std::vector<v1::Finding>&)>;

  LiveRun(console::LaunchPlan plan, QString storePath, OnRecords onRecords, QObject* parent = nullptr,
          LiveRunFiles files = {});
  // A job to submit to Slurm: `flags` as `ringmaster run --slurm` takes them, `agentPath` the
  // ringmaster-agent the nodes run.
  LiveRun(console::RunFlags flags, std::string agentPath, QString storePath, OnRecords onRecords,
          QObject* parent = nullptr);
  // Stops the job if it still runs (ranks of the embedded agent cannot outlive this console; a Slurm job
  // is cancelled) unless it was detached.
  ~LiveRun() override;

  // Creates the run in the store, starts the ranks and follows them; all off the GUI thread.
  void start();
  // Stops the run; a Slurm job still waiting for its nodes is cancelled.
  void stop();
  // The ranks run on remote hosts' agents or under Slurm (not this machine's embedded agent), so they can
  // outlive this console.
  bool remote() const;
  // Lets go of a remote run without stopping it (the window closes, the job trains on; the run is stored as
  // "detached"; a Slurm job still waiting stays queued, for `ringmaster attach`). False when the run is
  // local or no longer running.
  bool detach();
  // Asks every rank to start or stop recording its timeline (the agents' Control call, off the GUI thread);
  // timelineRecording() says how it went.
  void setTimelineRecording(bool on);
  // Breaks every host's watch stream as a network fault would; the launcher reconnects and backfills.
  void dropConnections();

  int64_t runId() const;
  const QString& jobId() const { return jobId_; }
  bool finished() const { return finished_; }
  bool onThisMachine() const;
  // Submitted to Slurm and not running yet (or not started at all).
  bool waitingForSlurm() const { return slurm_ && !session() && !finished_; }
  // The Slurm job's id and the sbatch command that submitted it, once slurmSubmitted() said so.
  const QString& slurmJobId() const { return slurmJobId_; }
  const QString& slurmCommand() const { return slurmCommand_; }
  // What each host told about itself, once started.
  std::map<std::string, console::HostFacts> hostFacts() const;
  // Steps done of the total, samples/s and ETA, as `ringmaster run` prints them.
  console::ProgressSnapshot progress() const;
  // The steps the job will run; 0 when its program decides (console::expectedSteps).
  uint64_t totalSteps() const { return console::expectedSteps(spec_); }
  // Records that arrived out of sequence: a gap or a repeat in a host's journal (should stay 0).
  uint64_t sequenceFaults() const { return sequenceFaults_.load(); }

  void onRecords(const std::string& jobId, const std::string& host,
                 const std::vector<v1::Record>& records) override;
  void onConnectionLost(const std::string& jobId, const std::string& host, const std::string& why) override;
  void onConnectionRestored(const std::string& jobId, const std::string& host, uint64_t backfilled) override;

 Q_SIGNALS:
  // `hosts`: where the ranks run, e.g. {"node1 (ranks 0-3)", "node2 (ranks 4-7)"}.
  void started(int64_t runId, const QString& jobId, const QStringList& hosts);
  void failedToStart(const QString& message);
  // status: the history's word for how it ended (console::statusName).
  void ended(const QString& status, const QString& message);
  void connectionLost(const QString& host, const QString& why);
  void connectionRestored(const QString& host, qulonglong backfilled);
  // The answer to setTimelineRecording(): `problem` is empty when every host took it.
  void timelineRecording(bool on, const QString& problem);
  // sbatch took the job: Slurm's job id and the command that submitted it.
  void slurmSubmitted(const QString& slurmJobId, const QString& command);
  // The job's queue state and Slurm's reason while it waits, e.g. "Slurm job 12: PENDING (Resources)".
  void slurmState(const QString& line);

 private:
  // Calls `call` on the GUI thread, if this object still exists then.
  void post(std::function<void(LiveRun&)> call);
  console::RunSession* session() const { return session_.load(); }
  // Submits the Slurm job and waits for its agents, then makes the session; false when the run ended there.
  bool startSlurmJob();
  void follow();

  const QString storePath_;
  const LiveRunFiles files_;
  v1::JobSpec spec_;
  std::optional<console::RunFlags> slurm_;
  std::string agentPath_;
  std::unique_ptr<console::SlurmJob> slurmJob_;        // outlives the session that follows it
  std::unique_ptr<console::RunSession> ownedSession_;  // made on the runner thread for a Slurm job
  std::atomic<console::RunSession*> session_{nullptr};
  OnRecords onRecords_;
  std::thread runner_;
  std::list<std::thread> controls_;          // Control calls in flight; joined before the session goes
  std::map<std::string, uint64_t> nextSeq_;  // by host; touched by the launcher's sink calls only
  // The last findings passed on with records, and when they were computed (the sink calls' too).
  static constexpr std::chrono::milliseconds kFindingsInterval{250};
  std::shared_ptr<const std::vector<v1::Finding>> findings_;
  std::chrono::steady_clock::time_point findingsAt_;
  std::atomic<uint64_t> sequenceFaults_{0};
  std::atomic<bool> stopRequested_{false};
  std::atomic<bool> left_{false};  // detached while waiting for Slurm
  QString jobId_;
  QString slurmJobId_;
  QString slurmCommand_;
  std::atomic<bool> finished_{false};
};

}  // namespace ringmaster::gui
