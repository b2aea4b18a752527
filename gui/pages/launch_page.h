// SPDX-License-Identifier: GPL-3.0-or-later
// The job form: every field of a job spec, checked as the user types with validateJobSpec's messages, presets
// saved and loaded, and the equivalent `ringmaster run ...` command line to copy. It runs Ringmaster's own
// training or the user's program (JobSpec.program), whose form hides the training fields that do not apply,
// on this machine, on hosts (-H) or through Slurm ("Submit to Slurm": --slurm with sbatch's options, and the
// sbatch line it runs). It offers a backend only where the chosen hosts can run it (nccl needs a GPU).
#pragma once

#include <QMap>
#include <QWidget>

#include "common/job_spec.h"
#include "console/session/run_flags.h"
#include "ringmaster/v1/agent.pb.h"

class QCheckBox;
class QComboBox;
class QFormLayout;
class QGroupBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QRadioButton;
class QSpinBox;

namespace ringmaster::gui {

class CommunicationForm;
class FaultsForm;
class ProgramForm;
class SlurmForm;
class TrainingForm;

class LaunchPage : public QWidget {
  Q_OBJECT

 public:
  explicit LaunchPage(QWidget* parent = nullptr);

  // The spec the form describes, and the problems with it (empty when it can launch).
  v1::JobSpec spec() const;
  QStringList problems() const;
  void setSpec(const v1::JobSpec& spec);
  // `ringmaster run` and console::runArguments() for the form, quoted for a POSIX shell: -np N [-H hosts |
  // --slurm ...] and the flags that differ from the defaults.
  QString commandLine() const;
  // The flags of that command line.
  console::RunFlags runFlags() const;
  // Whether "Submit to Slurm" is on.
  bool submitsToSlurm() const;
  // The sbatch command a submission runs (console::sbatchCommand), with JOB_ID where the job's id goes; empty
  // without Slurm.
  QString sbatchLine() const;

  // Presets live in QSettings: the spec under "presets/<name>", the Slurm group (submit or not, and its
  // options) under "presetSlurm/<name>".
  void savePreset(const QString& name);
  bool loadPreset(const QString& name);
  QStringList presetNames() const;

  // Fields by spec path, for tests that fill the form as a user would. The program's: "program" (the choice
  // of the user's program over Ringmaster's training), "program.argv" (the executable), "program.arguments"
  // (one line, split as QProcess::splitCommand does), "program.working_dir", "program.environment"
  // (NAME=value a line), "program.instrumented" and "program.horovod". Slurm's: "slurm" (the group, checked
  // to submit), "slurm.nodes", "slurm.partition", "slurm.time", "slurm.account", "slurm.qos",
  // "slurm.constraint", "slurm.gres", "slurm.extra" (one line of sbatch words) and "slurm.folder"
  // (--slurm-dir).
  QWidget* field(const QString& name) const { return fields_.value(name); }
  void setLaunchEnabled(bool enabled, const QString& why = {});
  // A remote agent the Hosts page is connected to: how the command line reaches it.
  struct RemoteAgent {
    QString host;
    int slots = 1;  // its cores
    int port = 0;
    QString tokenFile;
    QString tlsCa;
  };
  // "Use connected hosts" puts them in the Hosts field as host:slots; the command line adds --agent-port,
  // --token-file and --tls-ca for the hosts it names when they share them.
  void setConnectedHosts(const QList<RemoteAgent>& agents);
  void useConnectedHosts();
  // What the Hosts page knows of each host, by name as the Hosts field names it ("" for this machine): a
  // backend that a chosen host cannot run (backendProblem) is not offered, and its tooltip says why.
  void setKnownHosts(const QMap<QString, v1::HostInfo>& hosts);

 Q_SIGNALS:
  void launchRequested(const v1::JobSpec& spec);
  // "Submit" with Slurm on: the flags of the form's command line, as `ringmaster run` parses them.
  void slurmSubmitRequested(const console::RunFlags& flags);
  // "Tune…": the flags of the form's command line, as `ringmaster tune` parses them.
  void tuneRequested(const console::RunFlags& flags);

 private:
  // A problem with the form: the field it belongs to (a spec path, as validateJobSpec names it) and the words
  // that say so.
  struct Problem {
    QString field;
    QString text;
  };
  QList<Problem> findProblems() const;
  // The label a field (a FieldError's name, e.g. "hyper.batch_size") has on the form; the name itself when it
  // has none.
  QString labelOf(const QString& field) const;
  void revalidate();
  // Builds the spec; text fields that do not parse add to `problems`.
  v1::JobSpec build(QList<Problem>* problems) const;
  bool runsProgram() const;
  // Why `backend` cannot run on the hosts the form names, for a person; empty when it can or nobody knows.
  QString unusableBecause(v1::Backend backend) const;
  // Shows the fields of Ringmaster's training or those of a program.
  void showKind();

  // The page is built in the order Tab goes through its widgets; then laid out and wired.
  void createFields();
  QGroupBox* createJobGroup();
  // Buttons no member keeps: made beside the command line, then placed and wired.
  struct Buttons {
    QPushButton* copy;
    QPushButton* loadPreset;
    QPushButton* savePreset;
  };
  // The problems label, the command and sbatch lines, presets, Launch and Tune.
  Buttons createOutputAndButtons();
  void layOut(QGroupBox* job, const Buttons& buttons);
  // Every field revalidates the form when it changes.
  void connectFields();
  void connectButtons(const Buttons& buttons);

  QMap<QString, QWidget*> fields_;
  QRadioButton* builtIn_;
  QRadioButton* ownProgram_;
  ProgramForm* programGroup_;
  TrainingForm* training_;
  CommunicationForm* comm_;
  FaultsForm* faults_;
  // What does not apply to a program: whole groups, and rows of the Job group.
  QList<QGroupBox*> trainingGroups_;
  QList<QWidget*> trainingRows_;
  QFormLayout* jobForm_;
  QLineEdit* name_;
  QComboBox* engine_;
  QComboBox* backend_;
  QComboBox* model_;
  QComboBox* dataset_;
  QLineEdit* dataDir_;
  QSpinBox* ranks_;
  QLineEdit* hosts_;
  QPushButton* useConnected_;
  QList<RemoteAgent> connectedHosts_;
  QCheckBox* timeline_;
  QSpinBox* stallTimeout_;
  QSpinBox* maxRestarts_;
  QSpinBox* minRanks_;
  SlurmForm* slurm_;
  QLabel* sbatch_;
  QMap<QString, v1::HostInfo> knownHosts_;
  QLabel* problemsLabel_;
  QPlainTextEdit* command_;
  QComboBox* presets_;
  QPushButton* launch_;
  QPushButton* tune_;
  QString launchBlockedWhy_;
  bool launchEnabled_ = true;
};

}  // namespace ringmaster::gui
