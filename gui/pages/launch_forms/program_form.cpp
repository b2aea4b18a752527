// SPDX-License-Identifier: GPL-3.0-or-later
#include "gui/pages/launch_forms/program_form.h"

#include <QCheckBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProcess>
#include <QPushButton>
#include <algorithm>

namespace ringmaster::gui {
namespace {

// The words as one line that QProcess::splitCommand() splits back into them: a word holding white space goes
// in double quotes, and a double quote is written three times. (splitCommand has no way to write an empty
// word.)
QString argumentsLine(const QStringList& words) {
  QStringList quoted;
  for (QString word : words) {
    const bool spaced = std::any_of(word.begin(), word.end(), [](QChar c) { return c.isSpace(); });
    word.replace(QLatin1Char('"'), QStringLiteral("\"\"\""));
    quoted << (spaced ? QLatin1Char('"') + word + QLatin1Char('"') : word);
  }
  return quoted.join(QLatin1Char(' '));
}

}  // namespace

ProgramForm::ProgramForm(QWidget* parent) : LaunchForm(tr("Your program"), parent) {
  setObjectName(QStringLiteral("programGroup"));
  program_ = add(QStringLiteral("program.argv"), new QLineEdit(this));
  program_->setText(QStringLiteral("/usr/bin/python3"));
  program_->setPlaceholderText(tr("an executable, e.g. /usr/bin/python3"));
  arguments_ = add(QStringLiteral("program.arguments"), new QLineEdit(this));
  arguments_->setPlaceholderText(tr("e.g. train.py --epochs 3 --note \"two words\""));
  workingDir_ = add(QStringLiteral("program.working_dir"), new QLineEdit(this));
  environment_ = add(QStringLiteral("program.environment"), new QPlainTextEdit(this));
  environment_->setPlaceholderText(tr("one NAME=value a line, e.g. OMP_NUM_THREADS=2"));
  environment_->setTabChangesFocus(true);
  environment_->setMaximumHeight(environment_->fontMetrics().lineSpacing() * 4 + 12);
  instrumented_ = add(QStringLiteral("program.instrumented"),
                      new QCheckBox(tr("Instrument with the ringmaster Python package"), this));
  instrumented_->setChecked(true);
  instrumented_->setProperty("hint",
                             tr("Step times, all-reduces and memory of a PyTorch program, with no change to "
                                "it. Off: its output, exit and memory only."));
  horovod_ = add(QStringLiteral("program.horovod"),
                 new QCheckBox(tr("Horovod script (horovod.torch on Ringmaster's layer)"), this));
  horovod_->setProperty("hint",
                        tr("For a script that imports horovod.torch as hvd: its ranks get Ringmaster's "
                           "Horovod-compatible layer on torch.distributed, with no Horovod or MPI installed. "
                           "Where Horovod is installed, it is used instead. Needs the instrumentation."));
  auto* browseProgram = new QPushButton(tr("Browse…"), this);
  browseProgram->setObjectName(QStringLiteral("browseProgram"));
  auto* browseFolder = new QPushButton(tr("Browse…"), this);
  browseFolder->setObjectName(QStringLiteral("browseWorkingDir"));

  auto* form = new QFormLayout(this);
  form->addRow(tr("Program"), launch_fields::withButton(program_, browseProgram));
  form->addRow(tr("Arguments"), arguments_);
  form->addRow(tr("Working folder"), launch_fields::withButton(workingDir_, browseFolder));
  form->addRow(tr("Environment"), environment_);
  form->addRow(QString(), instrumented_);
  form->addRow(QString(), horovod_);
  auto* note = new QLabel(
      tr("Every rank runs the program with torchrun's environment (RANK, WORLD_SIZE, MASTER_ADDR, …). "
         "A remote agent runs only the programs it was started to allow (<nobr>--allow-program</nobr>)."),
      this);
  note->setTextFormat(Qt::RichText);
  note->setWordWrap(true);
  note->setForegroundRole(QPalette::PlaceholderText);
  form->addRow(note);

  // The layer is part of the package the instrumentation loads.
  connect(instrumented_, &QCheckBox::toggled, horovod_, &QCheckBox::setEnabled);
  connect(browseProgram, &QPushButton::clicked, this, [this] {
    const QString file =
        QFileDialog::getOpenFileName(this, tr("Program to run"), QFileInfo(program_->text()).path());
    if (!file.isEmpty()) program_->setText(file);
  });
  connect(browseFolder, &QPushButton::clicked, this, [this] {
    const QString start = workingDir_->text().trimmed().isEmpty()
                              ? QDir::currentPath()
                              : launch_fields::absoluteFolder(workingDir_->text().trimmed());
    const QString folder = QFileDialog::getExistingDirectory(this, tr("Working folder"), start);
    if (!folder.isEmpty()) workingDir_->setText(folder);
  });
}

void ProgramForm::setProgram(const v1::UserProgram& program) {
  program_->setText(QString::fromStdString(program.argv(0)));
  QStringList arguments;
  for (int i = 1; i < program.argv_size(); ++i) arguments << QString::fromStdString(program.argv(i));
  arguments_->setText(argumentsLine(arguments));
  workingDir_->setText(QString::fromStdString(program.working_dir()));
  QStringList environment;
  for (const auto& entry : program.environment()) environment << QString::fromStdString(entry);
  environment_->setPlainText(environment.join(QLatin1Char('\n')));
  instrumented_->setChecked(!program.uninstrumented());
  horovod_->setChecked(program.horovod());
}

void ProgramForm::fill(v1::UserProgram* program) const {
  if (const QString executable = program_->text().trimmed(); !executable.isEmpty()) {
    program->add_argv(executable.toStdString());
    for (const QString& word : QProcess::splitCommand(arguments_->text()))
      program->add_argv(word.toStdString());
  }
  if (const QString folder = workingDir_->text().trimmed(); !folder.isEmpty()) {
    program->set_working_dir(launch_fields::absoluteFolder(folder).toStdString());
  }
  for (const auto& entry : environmentEntries()) program->add_environment(entry.second.toStdString());
  program->set_uninstrumented(!instrumented_->isChecked());
  program->set_horovod(instrumented_->isChecked() && horovod_->isChecked());
}

QList<QPair<int, QString>> ProgramForm::environmentEntries() const {
  QList<QPair<int, QString>> entries;
  const QStringList lines = environment_->toPlainText().split(QLatin1Char('\n'));
  for (int i = 0; i < lines.size(); ++i) {
    const QString entry = lines[i].trimmed();
    if (!entry.isEmpty()) entries.append({i + 1, entry});
  }
  return entries;
}

void ProgramForm::setRunsOnHosts(bool onHosts) {
  workingDir_->setPlaceholderText(onHosts ? tr("each host's agent's own folder")
                                          : tr("this folder: %1").arg(QDir::currentPath()));
}

}  // namespace ringmaster::gui
