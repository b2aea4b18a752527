// SPDX-License-Identifier: GPL-3.0-or-later
// The Launch page's "Your program" group: the executable, its arguments (one line, split as
// QProcess::splitCommand does), working folder, environment (NAME=value a line), whether the ringmaster
// Python package instruments it and, while it does, whether the program is a Horovod script to run on
// Ringmaster's Horovod-compatible layer.
#pragma once

#include <QList>
#include <QPair>

#include "gui/pages/launch_forms/launch_form.h"
#include "ringmaster/v1/job.pb.h"

class QCheckBox;
class QLineEdit;
class QPlainTextEdit;

namespace ringmaster::gui {

class ProgramForm : public LaunchForm {
  Q_OBJECT

 public:
  explicit ProgramForm(QWidget* parent = nullptr);

  void setProgram(const v1::UserProgram& program);
  // No executable, no argv: programErrors() then says the program is missing.
  void fill(v1::UserProgram* program) const;
  // The environment box's NAME=value entries with the line each is on (from 1); blank lines are skipped.
  QList<QPair<int, QString>> environmentEntries() const;
  // An empty working folder is this folder on this machine, each agent's own on hosts.
  void setRunsOnHosts(bool onHosts);

 private:
  QLineEdit* program_;
  QLineEdit* arguments_;
  QLineEdit* workingDir_;
  QPlainTextEdit* environment_;
  QCheckBox* instrumented_;
  QCheckBox* horovod_;  // enabled only while instrumented_ is checked
};

}  // namespace ringmaster::gui
