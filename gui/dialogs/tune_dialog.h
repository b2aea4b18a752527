// SPDX-License-Identifier: GPL-3.0-or-later
// The console's `ringmaster tune`: a console::TuneSession over the Launch form's job, run on its own thread,
// each trial a row of the table and a point of the chart (throughput, with the 95 % interval of its
// difference from the default's run of the same round as whiskers) as it ends, then the session's
// recommendation and a button that puts the recommended flags into the Launch form. The trials are stored
// runs tagged tune:<name>, so the Runs page lists them.
#pragma once

#include <QDialog>
#include <atomic>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

#include "console/session/run_flags.h"
#include "console/tune/tune_session.h"

class QChart;
class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QScatterSeries;
class QSpinBox;
class QTableWidget;
class QValueAxis;

namespace ringmaster::gui {

class TuneDialog : public QDialog {
  Q_OBJECT

 public:
  // `flags`: the job to tune as finishRunFlags() leaves them, with the worker, state folder and store this
  // console uses.
  explicit TuneDialog(console::RunFlags flags, QWidget* parent = nullptr);
  // Stops a running session and waits for its trial to end (ranks of this machine cannot outlive it).
  ~TuneDialog() override;

  // Starts a session with the form's target, trials and name; a problem with them shows under the form.
  void start();
  // The running trial is stopped and no other starts.
  void stop();
  bool running() const { return running_; }

  // The trials so far, in the order they ended, and the session's recommendation once it has ended.
  const std::vector<console::TrialResult>& trials() const { return trials_; }
  QString recommendation() const { return recommendation_; }
  std::optional<console::TuneSetting> recommendedSetting() const { return recommended_; }

  // For tests and screenshots.
  QComboBox* targetBox() const { return target_; }
  QSpinBox* trialsBox() const { return trialCount_; }
  QLineEdit* nameEdit() const { return name_; }
  QTableWidget* table() const { return table_; }
  QScatterSeries* points() const { return points_; }
  QChart* chart() const { return chart_; }
  QLabel* statusLabel() const { return status_; }
  QLabel* recommendationLabel() const { return recommendationLabel_; }
  QPushButton* startButton() const { return start_; }
  QPushButton* stopButton() const { return stop_; }
  QPushButton* useButton() const { return use_; }

 Q_SIGNALS:
  void trialEnded(int number);
  // The session ended: all its rounds ran, it was stopped, or a trial could not start.
  void sessionEnded();
  // "Use in the Launch form": the recommended setting.
  void settingChosen(const console::TuneSetting& setting);

 protected:
  void closeEvent(QCloseEvent* event) override;

 private:
  void addTrial(const console::TrialResult& trial);
  void finish(const QString& recommendation, std::optional<console::TuneSetting> setting,
              const QString& problem, bool stopped);
  void updateControls();
  void rescale();

  console::RunFlags flags_;
  std::unique_ptr<console::TuneSession> session_;
  std::thread runner_;
  std::atomic<bool> stopRequested_{false};
  bool running_ = false;
  bool closeWhenEnded_ = false;  // closed while running: it closes once the stopped session has ended
  std::vector<console::TrialResult> trials_;
  QString recommendation_;
  std::optional<console::TuneSetting> recommended_;

  QComboBox* target_;
  QSpinBox* trialCount_;
  QLineEdit* name_;
  QLabel* plan_;
  QPushButton* start_;
  QPushButton* stop_;
  QLabel* status_;
  QTableWidget* table_;
  QChart* chart_;
  QScatterSeries* points_;
  QScatterSeries* defaults_;
  QValueAxis* xAxis_;
  QValueAxis* yAxis_;
  QLabel* recommendationLabel_;
  QPushButton* use_;
};

}  // namespace ringmaster::gui
