// SPDX-License-Identifier: GPL-3.0-or-later
// The Launch page's "Submit to Slurm" group, checked to submit: sbatch's options (--slurm-nodes,
// --partition, …, one line of more sbatch words) and where the job folders go (--slurm-dir).
#pragma once

#include <QList>
#include <QVariantMap>

#include "console/slurm/slurm_options.h"
#include "gui/pages/launch_forms/launch_form.h"

class QLineEdit;
class QSpinBox;

namespace ringmaster::gui {

class SlurmForm : public LaunchForm {
  Q_OBJECT

 public:
  explicit SlurmForm(QWidget* parent = nullptr);

  bool submits() const { return isChecked(); }
  // The options the group holds, to submit with.
  void fill(console::SlurmOptions& options) const;
  // As a preset keeps it: whether to submit, and the options.
  QVariantMap preset() const;
  void setPreset(const QVariantMap& preset);

 private:
  QList<QLineEdit*> texts() const;

  QSpinBox* nodes_;
  QLineEdit* partition_;
  QLineEdit* time_;
  QLineEdit* account_;
  QLineEdit* qos_;
  QLineEdit* constraint_;
  QLineEdit* gres_;
  QLineEdit* extra_;
  QLineEdit* folder_;
};

}  // namespace ringmaster::gui
