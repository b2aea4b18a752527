// SPDX-License-Identifier: GPL-3.0-or-later
// A run launched from this console: the launcher (embedded agent or remote hosts) on its own threads, each batch
// of records stored in the run history and diagnosed by console::RunIngest where it arrives (off the GUI
// thread), then handed to the GUI thread as a queued call with the current findings.
#pragma once

#include <QObject>
#include <QString>

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "console/ingest.h"
#include "console/launcher.h"
#include "console/record_sink.h"

namespace ringmaster::gui {

class LiveRun : public QObject, public console::RecordSink {
  Q_OBJECT

 public:
  // Records (and the findings so far) arrive on the GUI thread through this.
  using OnRecords = std::function<void(const std::vector<v1::Record>&, const std::vector<v1::Finding>&)>;

  LiveRun(console::LaunchPlan plan, QString storePath, OnRecords onRecords, QObject* parent = nullptr);
  // Stops the job if it still runs (ranks of the embedded agent cannot outlive this console).
  ~LiveRun() override;

  // Creates the run in the store, starts the ranks and follows them; all off the GUI thread.
  void start();
  void stop();

  int64_t runId() const { return runId_; }
  const QString& jobId() const { return jobId_; }
  bool finished() const { return finished_; }

  void onRecords(const std::string& jobId, const std::string& host, const std::vector<v1::Record>& records) override;

 Q_SIGNALS:
  void started(int64_t runId, const QString& jobId);
  void failedToStart(const QString& message);
  // status: "finished", "failed" or "stopped".
  void ended(const QString& status, const QString& message);

 private:
  console::LaunchPlan plan_;
  QString storePath_;
  OnRecords onRecords_;
  std::unique_ptr<console::Launcher> launcher_;
  std::unique_ptr<console::RunIngest> ingest_;  // stores and diagnoses; serialises its own calls
  std::mutex mutex_;                                    // guards launcher_ between start, stop and destruction
  std::shared_ptr<std::thread> runner_;
  int64_t runId_ = 0;
  QString jobId_;
  std::atomic<bool> finished_{false};
  std::atomic<bool> stopping_{false};
};

}  // namespace ringmaster::gui
