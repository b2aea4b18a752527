// SPDX-License-Identifier: GPL-3.0-or-later
#include "gui/pages/launch_forms/training_forms.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLineEdit>
#include <QRegularExpression>
#include <QSpinBox>

#include "common/error.h"
#include "jobflags/job_flags.h"

namespace ringmaster::gui {

using launch_fields::choices;
using launch_fields::integer;
using launch_fields::number;
using launch_fields::q;

TrainingForm::TrainingForm(QWidget* parent) : LaunchForm(tr("Training"), parent) {
  batch_ = add(QStringLiteral("hyper.batch_size"), integer(this, 1, 65536));
  optimizer_ = add(QStringLiteral("hyper.optimizer"), choices(this, {"sgd", "adam"}));
  lr_ = add(QStringLiteral("hyper.lr"), number(this, 0, 10, 6));
  momentum_ = add(QStringLiteral("hyper.momentum"), number(this, 0, 0.999, 3));
  epochs_ = add(QStringLiteral("hyper.epochs"), integer(this, 0, 100000, tr("use steps")));
  steps_ = add(QStringLiteral("hyper.steps"), integer(this, 0, 100000000, tr("use epochs")));
  accumulation_ = add(QStringLiteral("hyper.accumulation_steps"), integer(this, 1, 1024));
  checkpointDir_ = add(QStringLiteral("checkpoint_dir"), new QLineEdit(this));
  checkpointDir_->setPlaceholderText(tr("no checkpoints"));
  checkpointEvery_ =
      add(QStringLiteral("checkpoint_every"), integer(this, 0, 100000000, tr("only at the end")));

  auto* form = new QFormLayout(this);
  form->addRow(tr("Batch size per rank"), batch_);
  form->addRow(tr("Optimizer"), optimizer_);
  form->addRow(tr("Learning rate"), lr_);
  form->addRow(tr("Momentum"), momentum_);
  form->addRow(tr("Epochs"), epochs_);
  form->addRow(tr("Steps"), steps_);
  form->addRow(tr("Gradient accumulation"), accumulation_);
  form->addRow(tr("Checkpoint folder"), checkpointDir_);
  form->addRow(tr("Checkpoint every (steps)"), checkpointEvery_);
}

void TrainingForm::setSpec(const v1::JobSpec& spec) {
  const auto& h = spec.hyper();
  batch_->setValue(static_cast<int>(h.batch_size()));
  optimizer_->setCurrentText(q(optimizerName(h.optimizer())));
  lr_->setValue(h.lr());
  momentum_->setValue(h.momentum());
  epochs_->setValue(static_cast<int>(h.epochs()));
  steps_->setValue(static_cast<int>(h.steps()));
  accumulation_->setValue(static_cast<int>(h.accumulation_steps()));
  checkpointDir_->setText(QString::fromStdString(spec.checkpoint_dir()));
  checkpointEvery_->setValue(static_cast<int>(spec.checkpoint_every()));
}

void TrainingForm::fill(v1::JobSpec& spec) const {
  auto* h = spec.mutable_hyper();
  h->set_batch_size(static_cast<uint32_t>(batch_->value()));
  h->set_optimizer(
      parseOptimizer(optimizer_->currentText().toStdString()).value_or(v1::OPTIMIZER_UNSPECIFIED));
  h->set_lr(lr_->value());
  h->set_momentum(momentum_->value());
  h->set_epochs(static_cast<uint32_t>(epochs_->value()));
  h->set_steps(static_cast<uint64_t>(steps_->value()));
  h->set_accumulation_steps(static_cast<uint32_t>(accumulation_->value()));
  spec.set_checkpoint_dir(checkpointDir_->text().trimmed().toStdString());
  spec.set_checkpoint_every(static_cast<uint64_t>(checkpointEvery_->value()));
}

CommunicationForm::CommunicationForm(QWidget* parent) : LaunchForm(tr("Communication"), parent) {
  bucketCap_ = add(QStringLiteral("hyper.bucket_cap_mb"), number(this, 0, 4096, 2, tr(" MiB")));
  fusion_ = add(QStringLiteral("hyper.fusion_threshold_mb"), number(this, 0, 4096, 2, tr(" MiB")));
  cycle_ = add(QStringLiteral("hyper.cycle_time_ms"), number(this, 0, 10000, 2, tr(" ms")));
  responseCache_ =
      add(QStringLiteral("hyper.no_response_cache"), new QCheckBox(tr("Reuse agreed responses"), this));
  compression_ = add(QStringLiteral("hyper.compression"), choices(this, {"none", "fp16", "bf16"}));
  reduceOp_ = add(QStringLiteral("hyper.reduce_op"), choices(this, {"average", "sum"}));

  auto* form = new QFormLayout(this);
  form->addRow(tr("DDP bucket cap"), bucketCap_);
  form->addRow(tr("Horovod fusion threshold"), fusion_);
  form->addRow(tr("Horovod cycle time"), cycle_);
  form->addRow(tr("Horovod response cache"), responseCache_);
  form->addRow(tr("Gradient compression"), compression_);
  form->addRow(tr("Horovod reduction"), reduceOp_);
}

void CommunicationForm::setSpec(const v1::JobSpec& spec) {
  const auto& h = spec.hyper();
  bucketCap_->setValue(h.bucket_cap_mb());
  fusion_->setValue(h.fusion_threshold_mb());
  cycle_->setValue(h.cycle_time_ms());
  responseCache_->setChecked(!h.no_response_cache());
  compression_->setCurrentText(q(compressionName(h.compression())));
  reduceOp_->setCurrentText(q(reduceOpName(h.reduce_op())));
}

void CommunicationForm::fill(v1::JobSpec& spec) const {
  auto* h = spec.mutable_hyper();
  h->set_bucket_cap_mb(bucketCap_->value());
  h->set_fusion_threshold_mb(fusion_->value());
  h->set_cycle_time_ms(cycle_->value());
  h->set_no_response_cache(!responseCache_->isChecked());
  h->set_compression(
      parseCompression(compression_->currentText().toStdString()).value_or(v1::COMPRESSION_NONE));
  h->set_reduce_op(parseReduceOp(reduceOp_->currentText().toStdString()).value_or(v1::REDUCE_OP_UNSPECIFIED));
}

FaultsForm::FaultsForm(QWidget* parent) : LaunchForm(tr("Fault injection (for demos and tests)"), parent) {
  straggler_ = add(QStringLiteral("faults.stragglers"), new QLineEdit(this));
  straggler_->setPlaceholderText(tr("RANK:MS[@STEP], e.g. 2:50"));
  leak_ = add(QStringLiteral("faults.leaks"), new QLineEdit(this));
  leak_->setPlaceholderText(tr("RANK:MB, e.g. 1:2"));
  crash_ = add(QStringLiteral("faults.crashes"), new QLineEdit(this));
  crash_->setPlaceholderText(tr("RANK:STEP"));
  hang_ = add(QStringLiteral("faults.hangs"), new QLineEdit(this));
  hang_->setPlaceholderText(tr("RANK:STEP"));

  auto* form = new QFormLayout(this);
  form->addRow(tr("Straggler"), straggler_);
  form->addRow(tr("Memory leak"), leak_);
  form->addRow(tr("Crash"), crash_);
  form->addRow(tr("Hang"), hang_);
}

void FaultsForm::setSpec(const v1::JobSpec& spec) {
  auto faultText = [](const auto& list, auto format) {
    QStringList parts;
    for (const auto& f : list) parts << format(f);
    return parts.join(QLatin1Char(' '));
  };
  straggler_->setText(faultText(spec.faults().stragglers(), [](const v1::FaultInjection::Straggler& s) {
    return QStringLiteral("%1:%2@%3").arg(s.rank()).arg(s.extra_ms()).arg(s.from_step());
  }));
  leak_->setText(faultText(spec.faults().leaks(), [](const v1::FaultInjection::Leak& l) {
    return QStringLiteral("%1:%2").arg(l.rank()).arg(l.mb_per_step());
  }));
  auto atStep = [](const v1::FaultInjection::AtStep& a) {
    return QStringLiteral("%1:%2").arg(a.rank()).arg(a.step());
  };
  crash_->setText(faultText(spec.faults().crashes(), atStep));
  hang_->setText(faultText(spec.faults().hangs(), atStep));
}

void FaultsForm::fill(v1::JobSpec& spec, const Note& note) const {
  auto each = [](const QLineEdit* edit) {
    return edit->text().split(QRegularExpression(QStringLiteral("[\\s;]+")), Qt::SkipEmptyParts);
  };
  auto* faults = spec.mutable_faults();
  try {
    for (const QString& t : each(straggler_))
      *faults->add_stragglers() = parseStragglerFault(t.toStdString());
    for (const QString& t : each(leak_)) *faults->add_leaks() = parseLeakFault(t.toStdString());
    for (const QString& t : each(crash_))
      *faults->add_crashes() = parseStepFault(t.toStdString(), "--inject-crash");
    for (const QString& t : each(hang_))
      *faults->add_hangs() = parseStepFault(t.toStdString(), "--inject-hang");
  } catch (const InputError& e) {
    note(QStringLiteral("faults"), tr("Fault injection: %1").arg(QString::fromStdString(e.what())));
  }
}

}  // namespace ringmaster::gui
