// SPDX-License-Identifier: GPL-3.0-or-later
#include "gui/pages/launch_forms/slurm_form.h"

#include <QFormLayout>
#include <QLineEdit>
#include <QProcess>
#include <QSpinBox>

#include "console/slurm/slurm_job.h"

namespace ringmaster::gui {

SlurmForm::SlurmForm(QWidget* parent) : LaunchForm(tr("Submit to Slurm"), parent) {
  add(QStringLiteral("slurm"), this);
  setCheckable(true);
  setChecked(false);
  setProperty("hint", tr("Slurm allocates the nodes and starts one agent on each; the ranks are placed "
                         "by the allocation (ringmaster run --slurm)"));
  nodes_ =
      add(QStringLiteral("slurm.nodes"), launch_fields::integer(this, 0, 100000, tr("as Slurm decides")));
  auto text = [this](const char* key, const QString& placeholder) {
    auto* edit = add(QString::fromLatin1(key), new QLineEdit(this));
    edit->setPlaceholderText(placeholder);
    return edit;
  };
  partition_ = text("slurm.partition", tr("the cluster's default"));
  time_ = text("slurm.time", tr("e.g. 01:00:00; the partition's limit"));
  account_ = text("slurm.account", tr("your default account"));
  qos_ = text("slurm.qos", tr("the default"));
  constraint_ = text("slurm.constraint", tr("e.g. a100"));
  gres_ = text("slurm.gres", tr("e.g. gpu:4"));
  extra_ = text("slurm.extra", tr("more sbatch options, e.g. --mem=8G --exclusive"));
  folder_ = text("slurm.folder", QString::fromStdString(console::defaultSlurmFolder()));
  folder_->setProperty("hint", tr("Where each job's folder goes (its token, script and agents' endpoints), "
                                  "on a filesystem the nodes share"));

  auto* form = new QFormLayout(this);
  form->addRow(tr("Nodes"), nodes_);
  form->addRow(tr("Partition"), partition_);
  form->addRow(tr("Time limit"), time_);
  form->addRow(tr("Account"), account_);
  form->addRow(tr("QoS"), qos_);
  form->addRow(tr("Constraint"), constraint_);
  form->addRow(tr("GRES"), gres_);
  form->addRow(tr("More sbatch options"), extra_);
  form->addRow(tr("Job folders"), folder_);
}

void SlurmForm::fill(console::SlurmOptions& o) const {
  o.submit = true;
  o.nodes = nodes_->value();
  o.partition = partition_->text().trimmed().toStdString();
  o.time = time_->text().trimmed().toStdString();
  o.account = account_->text().trimmed().toStdString();
  o.qos = qos_->text().trimmed().toStdString();
  o.constraint = constraint_->text().trimmed().toStdString();
  o.gres = gres_->text().trimmed().toStdString();
  for (const QString& word : QProcess::splitCommand(extra_->text())) o.extra.push_back(word.toStdString());
  if (const QString folder = folder_->text().trimmed(); !folder.isEmpty())
    o.folder = launch_fields::absoluteFolder(folder).toStdString();
}

QVariantMap SlurmForm::preset() const {
  QVariantMap preset{{QStringLiteral("submit"), isChecked()}, {QStringLiteral("nodes"), nodes_->value()}};
  for (QLineEdit* edit : texts()) preset.insert(edit->objectName(), edit->text());
  return preset;
}

void SlurmForm::setPreset(const QVariantMap& preset) {
  // A preset saved without Slurm options (or before presets kept them) runs without Slurm.
  nodes_->setValue(preset.value(QStringLiteral("nodes"), 0).toInt());
  for (QLineEdit* edit : texts()) edit->setText(preset.value(edit->objectName()).toString());
  setChecked(preset.value(QStringLiteral("submit"), false).toBool());
}

QList<QLineEdit*> SlurmForm::texts() const {
  return {partition_, time_, account_, qos_, constraint_, gres_, extra_, folder_};
}

}  // namespace ringmaster::gui
