// SPDX-License-Identifier: GPL-3.0-or-later
// The Launch page's groups for Ringmaster's own training, which a user's program has no use for: Training
// (batch, optimizer, length, checkpoints), Communication (DDP's buckets, Horovod's fusion and cycle,
// compression) and Fault injection.
#pragma once

#include "common/job_spec.h"
#include "gui/pages/launch_forms/launch_form.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLineEdit;
class QSpinBox;

namespace ringmaster::gui {

class TrainingForm : public LaunchForm {
  Q_OBJECT

 public:
  explicit TrainingForm(QWidget* parent = nullptr);
  void setSpec(const v1::JobSpec& spec);
  void fill(v1::JobSpec& spec) const;

 private:
  QSpinBox* batch_;
  QComboBox* optimizer_;
  QDoubleSpinBox* lr_;
  QDoubleSpinBox* momentum_;
  QSpinBox* epochs_;
  QSpinBox* steps_;
  QSpinBox* accumulation_;
  QLineEdit* checkpointDir_;
  QSpinBox* checkpointEvery_;
};

class CommunicationForm : public LaunchForm {
  Q_OBJECT

 public:
  explicit CommunicationForm(QWidget* parent = nullptr);
  void setSpec(const v1::JobSpec& spec);
  void fill(v1::JobSpec& spec) const;

 private:
  QDoubleSpinBox* bucketCap_;
  QDoubleSpinBox* fusion_;
  QDoubleSpinBox* cycle_;
  QCheckBox* responseCache_;
  QComboBox* compression_;
  QComboBox* reduceOp_;
};

class FaultsForm : public LaunchForm {
  Q_OBJECT

 public:
  explicit FaultsForm(QWidget* parent = nullptr);
  void setSpec(const v1::JobSpec& spec);
  // A fault that does not parse is noted under "faults".
  void fill(v1::JobSpec& spec, const Note& note) const;

 private:
  QLineEdit* straggler_;
  QLineEdit* leak_;
  QLineEdit* crash_;
  QLineEdit* hang_;
};

}  // namespace ringmaster::gui
