// SPDX-License-Identifier: GPL-3.0-or-later
#include "gui/pages/launch_page.h"

#include <QApplication>
#include <QButtonGroup>
#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProcess>
#include <QPushButton>
#include <QRadioButton>
#include <QRegularExpression>
#include <QScrollArea>
#include <QSettings>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QStyle>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <set>

#include "common/error.h"
#include "common/host_backends.h"
#include "common/host_list.h"
#include "common/job_spec.h"
#include "common/json.h"
#include "common/shell_words.h"
#include "console/models/translated.h"
#include "console/session/run_flags.h"
#include "console/slurm/slurm_job.h"
#include "jobflags/job_flags.h"

namespace ringmaster::gui {
namespace {

// Where the sbatch line the form shows has the job's id, which is chosen at launch.
constexpr const char* kJobIdPlaceholder = "JOB_ID";

QString q(std::string_view s) {
  return QString::fromUtf8(s.data(), static_cast<int>(s.size()));
}

QComboBox* choices(QWidget* parent, std::initializer_list<std::string_view> names) {
  auto* box = new QComboBox(parent);
  for (auto n : names) box->addItem(q(n));
  return box;
}

QDoubleSpinBox* number(QWidget* parent, double lo, double hi, int decimals, const QString& suffix = {}) {
  auto* box = new QDoubleSpinBox(parent);
  box->setRange(lo, hi);
  box->setDecimals(decimals);
  box->setSuffix(suffix);
  return box;
}

QSpinBox* integer(QWidget* parent, int lo, int hi, const QString& special = {}) {
  auto* box = new QSpinBox(parent);
  box->setRange(lo, hi);
  if (!special.isEmpty()) box->setSpecialValueText(special);
  return box;
}

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

// The environment box's NAME=value entries with the line each is on (from 1); blank lines are skipped.
QList<QPair<int, QString>> environmentEntries(const QString& text) {
  QList<QPair<int, QString>> entries;
  const QStringList lines = text.split(QLatin1Char('\n'));
  for (int i = 0; i < lines.size(); ++i) {
    const QString entry = lines[i].trimmed();
    if (!entry.isEmpty()) entries.append({i + 1, entry});
  }
  return entries;
}

// A folder as the ranks get it: absolute, from the console's current folder, with "~" as the home folder.
QString absoluteFolder(const QString& text) {
  QString path = text;
  if (path == QLatin1String("~") || path.startsWith(QLatin1String("~/")))
    path.replace(0, 1, QDir::homePath());
  return QDir::cleanPath(QDir::current().absoluteFilePath(path));
}

// A line edit with a browse button after it.
QHBoxLayout* withButton(QWidget* edit, QPushButton* button) {
  auto* row = new QHBoxLayout;
  row->addWidget(edit, 1);
  row->addWidget(button);
  return row;
}

// Where a preset's Slurm options go, beside its spec under "presets/<name>".
QString slurmPresetKey(const QString& name) {
  return QStringLiteral("presetSlurm/") + name;
}

}  // namespace

LaunchPage::LaunchPage(QWidget* parent) : QWidget(parent) {
  auto add = [this](const QString& key, QWidget* w) {
    w->setObjectName(key);
    fields_.insert(key, w);
    return w;
  };
  builtIn_ = new QRadioButton(tr("Ringmaster model"), this);
  builtIn_->setObjectName(QStringLiteral("builtIn"));
  ownProgram_ =
      static_cast<QRadioButton*>(add(QStringLiteral("program"), new QRadioButton(tr("Your program"), this)));
  auto* kind = new QButtonGroup(this);
  kind->addButton(builtIn_);
  kind->addButton(ownProgram_);
  builtIn_->setChecked(true);
  program_ = static_cast<QLineEdit*>(add(QStringLiteral("program.argv"), new QLineEdit(this)));
  program_->setText(QStringLiteral("/usr/bin/python3"));
  program_->setPlaceholderText(tr("an executable, e.g. /usr/bin/python3"));
  arguments_ = static_cast<QLineEdit*>(add(QStringLiteral("program.arguments"), new QLineEdit(this)));
  arguments_->setPlaceholderText(tr("e.g. train.py --epochs 3 --note \"two words\""));
  workingDir_ = static_cast<QLineEdit*>(add(QStringLiteral("program.working_dir"), new QLineEdit(this)));
  environment_ =
      static_cast<QPlainTextEdit*>(add(QStringLiteral("program.environment"), new QPlainTextEdit(this)));
  environment_->setPlaceholderText(tr("one NAME=value a line, e.g. OMP_NUM_THREADS=2"));
  environment_->setTabChangesFocus(true);
  environment_->setMaximumHeight(environment_->fontMetrics().lineSpacing() * 4 + 12);
  instrumented_ =
      static_cast<QCheckBox*>(add(QStringLiteral("program.instrumented"),
                                  new QCheckBox(tr("Instrument with the ringmaster Python package"), this)));
  instrumented_->setChecked(true);
  instrumented_->setProperty("hint",
                             tr("Step times, all-reduces and memory of a PyTorch program, with no change to "
                                "it. Off: its output, exit and memory only."));
  auto* browseProgram = new QPushButton(tr("Browse…"), this);
  browseProgram->setObjectName(QStringLiteral("browseProgram"));
  auto* browseFolder = new QPushButton(tr("Browse…"), this);
  browseFolder->setObjectName(QStringLiteral("browseWorkingDir"));

  name_ = static_cast<QLineEdit*>(add(QStringLiteral("name"), new QLineEdit(this)));
  name_->setPlaceholderText(tr("e.g. resnet18 ddp baseline"));
  engine_ = static_cast<QComboBox*>(add(QStringLiteral("engine"), choices(this, {"ddp", "horovod"})));
  backend_ = static_cast<QComboBox*>(add(QStringLiteral("backend"), choices(this, {"gloo", "nccl"})));
  model_ = static_cast<QComboBox*>(
      add(QStringLiteral("model"), choices(this, {"mlp", "cnn", "resnet18", "resnet50"})));
  dataset_ = static_cast<QComboBox*>(
      add(QStringLiteral("dataset"), choices(this, {"synthetic", "fashion-mnist", "cifar10"})));
  dataDir_ = static_cast<QLineEdit*>(add(QStringLiteral("data_dir"), new QLineEdit(this)));
  dataDir_->setPlaceholderText(tr("packaged default"));
  ranks_ = static_cast<QSpinBox*>(add(QStringLiteral("world_size"), integer(this, 1, 4096)));
  hosts_ = static_cast<QLineEdit*>(add(QStringLiteral("hosts"), new QLineEdit(this)));
  hosts_->setPlaceholderText(tr("this machine; or host1:4,host2:4"));
  useConnected_ = new QPushButton(tr("Use connected hosts"), this);
  useConnected_->setObjectName(QStringLiteral("useConnectedHosts"));
  useConnected_->setEnabled(false);
  useConnected_->setToolTip(tr("Connect to remote agents on the Hosts page first"));
  batch_ = static_cast<QSpinBox*>(add(QStringLiteral("hyper.batch_size"), integer(this, 1, 65536)));
  optimizer_ =
      static_cast<QComboBox*>(add(QStringLiteral("hyper.optimizer"), choices(this, {"sgd", "adam"})));
  lr_ = static_cast<QDoubleSpinBox*>(add(QStringLiteral("hyper.lr"), number(this, 0, 10, 6)));
  momentum_ = static_cast<QDoubleSpinBox*>(add(QStringLiteral("hyper.momentum"), number(this, 0, 0.999, 3)));
  epochs_ =
      static_cast<QSpinBox*>(add(QStringLiteral("hyper.epochs"), integer(this, 0, 100000, tr("use steps"))));
  steps_ = static_cast<QSpinBox*>(
      add(QStringLiteral("hyper.steps"), integer(this, 0, 100000000, tr("use epochs"))));
  bucketCap_ = static_cast<QDoubleSpinBox*>(
      add(QStringLiteral("hyper.bucket_cap_mb"), number(this, 0, 4096, 2, tr(" MiB"))));
  fusion_ = static_cast<QDoubleSpinBox*>(
      add(QStringLiteral("hyper.fusion_threshold_mb"), number(this, 0, 4096, 2, tr(" MiB"))));
  cycle_ = static_cast<QDoubleSpinBox*>(
      add(QStringLiteral("hyper.cycle_time_ms"), number(this, 0, 10000, 2, tr(" ms"))));
  responseCache_ = static_cast<QCheckBox*>(
      add(QStringLiteral("hyper.no_response_cache"), new QCheckBox(tr("Reuse agreed responses"), this)));
  compression_ = static_cast<QComboBox*>(
      add(QStringLiteral("hyper.compression"), choices(this, {"none", "fp16", "bf16"})));
  reduceOp_ =
      static_cast<QComboBox*>(add(QStringLiteral("hyper.reduce_op"), choices(this, {"average", "sum"})));
  accumulation_ =
      static_cast<QSpinBox*>(add(QStringLiteral("hyper.accumulation_steps"), integer(this, 1, 1024)));
  checkpointDir_ = static_cast<QLineEdit*>(add(QStringLiteral("checkpoint_dir"), new QLineEdit(this)));
  checkpointDir_->setPlaceholderText(tr("no checkpoints"));
  checkpointEvery_ = static_cast<QSpinBox*>(
      add(QStringLiteral("checkpoint_every"), integer(this, 0, 100000000, tr("only at the end"))));
  timeline_ = static_cast<QCheckBox*>(
      add(QStringLiteral("timeline"), new QCheckBox(tr("Record from the start"), this)));
  stallTimeout_ = static_cast<QSpinBox*>(
      add(QStringLiteral("stall_timeout_s"), integer(this, 0, static_cast<int>(kLongestWaitS), tr("never"))));
  stallTimeout_->setSuffix(tr(" s"));
  stallTimeout_->setProperty("hint", tr("Stop the job, as failed, once it has made no progress for this long "
                                        "while a stall finding names why (--stall-timeout-s)"));
  maxRestarts_ =
      static_cast<QSpinBox*>(add(QStringLiteral("max_restarts"), integer(this, 0, 1000, tr("none"))));
  maxRestarts_->setProperty("hint",
                            tr("When a rank fails, stop the others and start every rank again from the "
                               "last checkpoint, at most this many times (--max-restarts)"));
  minRanks_ =
      static_cast<QSpinBox*>(add(QStringLiteral("min_ranks"), integer(this, 0, 4096, tr("every rank"))));
  minRanks_->setProperty("hint",
                         tr("With restarts: when a host is gone at a restart, go on with the ranks of the "
                            "hosts that remain if they are at least this many (--min-ranks)"));
  straggler_ = static_cast<QLineEdit*>(add(QStringLiteral("faults.stragglers"), new QLineEdit(this)));
  straggler_->setPlaceholderText(tr("RANK:MS[@STEP], e.g. 2:50"));
  leak_ = static_cast<QLineEdit*>(add(QStringLiteral("faults.leaks"), new QLineEdit(this)));
  leak_->setPlaceholderText(tr("RANK:MB, e.g. 1:2"));
  crash_ = static_cast<QLineEdit*>(add(QStringLiteral("faults.crashes"), new QLineEdit(this)));
  crash_->setPlaceholderText(tr("RANK:STEP"));
  hang_ = static_cast<QLineEdit*>(add(QStringLiteral("faults.hangs"), new QLineEdit(this)));
  hang_->setPlaceholderText(tr("RANK:STEP"));

  slurm_ = static_cast<QGroupBox*>(add(QStringLiteral("slurm"), new QGroupBox(tr("Submit to Slurm"), this)));
  slurm_->setCheckable(true);
  slurm_->setChecked(false);
  slurm_->setProperty("hint",
                      tr("Slurm allocates the nodes and starts one agent on each; the ranks are placed "
                         "by the allocation (ringmaster run --slurm)"));
  slurmNodes_ = static_cast<QSpinBox*>(
      add(QStringLiteral("slurm.nodes"), integer(this, 0, 100000, tr("as Slurm decides"))));
  auto slurmText = [&](const char* key, const QString& placeholder) {
    auto* edit = static_cast<QLineEdit*>(add(QString::fromLatin1(key), new QLineEdit(this)));
    edit->setPlaceholderText(placeholder);
    return edit;
  };
  partition_ = slurmText("slurm.partition", tr("the cluster's default"));
  time_ = slurmText("slurm.time", tr("e.g. 01:00:00; the partition's limit"));
  account_ = slurmText("slurm.account", tr("your default account"));
  qos_ = slurmText("slurm.qos", tr("the default"));
  constraint_ = slurmText("slurm.constraint", tr("e.g. a100"));
  gres_ = slurmText("slurm.gres", tr("e.g. gpu:4"));
  slurmExtra_ = slurmText("slurm.extra", tr("more sbatch options, e.g. --mem=8G --exclusive"));
  slurmFolder_ = slurmText("slurm.folder", QString::fromStdString(console::defaultSlurmFolder()));
  slurmFolder_->setProperty("hint",
                            tr("Where each job's folder goes (its token, script and agents' endpoints), "
                               "on a filesystem the nodes share"));

  auto* job = new QGroupBox(tr("Job"), this);
  jobForm_ = new QFormLayout(job);
  jobForm_->addRow(tr("Name"), name_);
  jobForm_->addRow(tr("Engine"), engine_);
  jobForm_->addRow(tr("Backend"), backend_);
  jobForm_->addRow(tr("Model"), model_);
  jobForm_->addRow(tr("Data"), dataset_);
  jobForm_->addRow(tr("Data folder"), dataDir_);
  jobForm_->addRow(tr("Ranks"), ranks_);
  jobForm_->addRow(tr("Hosts"), withButton(hosts_, useConnected_));
  jobForm_->addRow(tr("Timeline"), timeline_);
  jobForm_->addRow(tr("Stop when stalled for"), stallTimeout_);
  jobForm_->addRow(tr("Max restarts"), maxRestarts_);
  jobForm_->addRow(tr("Min ranks"), minRanks_);
  trainingRows_ = {engine_, backend_, model_, dataset_, dataDir_};

  auto* slurmForm = new QFormLayout(slurm_);
  slurmForm->addRow(tr("Nodes"), slurmNodes_);
  slurmForm->addRow(tr("Partition"), partition_);
  slurmForm->addRow(tr("Time limit"), time_);
  slurmForm->addRow(tr("Account"), account_);
  slurmForm->addRow(tr("QoS"), qos_);
  slurmForm->addRow(tr("Constraint"), constraint_);
  slurmForm->addRow(tr("GRES"), gres_);
  slurmForm->addRow(tr("More sbatch options"), slurmExtra_);
  slurmForm->addRow(tr("Job folders"), slurmFolder_);

  programGroup_ = new QGroupBox(tr("Your program"), this);
  programGroup_->setObjectName(QStringLiteral("programGroup"));
  auto* programForm = new QFormLayout(programGroup_);
  programForm->addRow(tr("Program"), withButton(program_, browseProgram));
  programForm->addRow(tr("Arguments"), arguments_);
  programForm->addRow(tr("Working folder"), withButton(workingDir_, browseFolder));
  programForm->addRow(tr("Environment"), environment_);
  programForm->addRow(QString(), instrumented_);
  auto* programNote = new QLabel(
      tr("Every rank runs the program with torchrun's environment (RANK, WORLD_SIZE, MASTER_ADDR, …). "
         "A remote agent runs only the programs it was started to allow (<nobr>--allow-program</nobr>)."),
      this);
  programNote->setTextFormat(Qt::RichText);
  programNote->setWordWrap(true);
  programNote->setForegroundRole(QPalette::PlaceholderText);
  programForm->addRow(programNote);

  auto* training = new QGroupBox(tr("Training"), this);
  auto* trainForm = new QFormLayout(training);
  trainForm->addRow(tr("Batch size per rank"), batch_);
  trainForm->addRow(tr("Optimizer"), optimizer_);
  trainForm->addRow(tr("Learning rate"), lr_);
  trainForm->addRow(tr("Momentum"), momentum_);
  trainForm->addRow(tr("Epochs"), epochs_);
  trainForm->addRow(tr("Steps"), steps_);
  trainForm->addRow(tr("Gradient accumulation"), accumulation_);
  trainForm->addRow(tr("Checkpoint folder"), checkpointDir_);
  trainForm->addRow(tr("Checkpoint every (steps)"), checkpointEvery_);

  auto* comm = new QGroupBox(tr("Communication"), this);
  auto* commForm = new QFormLayout(comm);
  commForm->addRow(tr("DDP bucket cap"), bucketCap_);
  commForm->addRow(tr("Horovod fusion threshold"), fusion_);
  commForm->addRow(tr("Horovod cycle time"), cycle_);
  commForm->addRow(tr("Horovod response cache"), responseCache_);
  commForm->addRow(tr("Gradient compression"), compression_);
  commForm->addRow(tr("Horovod reduction"), reduceOp_);

  auto* faults = new QGroupBox(tr("Fault injection (for demos and tests)"), this);
  auto* faultForm = new QFormLayout(faults);
  faultForm->addRow(tr("Straggler"), straggler_);
  faultForm->addRow(tr("Memory leak"), leak_);
  faultForm->addRow(tr("Crash"), crash_);
  faultForm->addRow(tr("Hang"), hang_);
  trainingGroups_ = {training, comm, faults};

  problemsLabel_ = new QLabel(this);
  problemsLabel_->setWordWrap(true);
  problemsLabel_->setObjectName(QStringLiteral("problems"));
  command_ = new QPlainTextEdit(this);
  command_->setReadOnly(true);
  command_->setMaximumHeight(70);
  command_->setObjectName(QStringLiteral("commandLine"));
  QFont mono(QStringLiteral("monospace"));
  mono.setStyleHint(QFont::Monospace);
  command_->setFont(mono);
  sbatch_ = new QLabel(this);
  sbatch_->setObjectName(QStringLiteral("sbatchLine"));
  sbatch_->setWordWrap(true);
  sbatch_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  sbatch_->setFont(mono);
  sbatch_->hide();
  auto* copy = new QPushButton(tr("Copy command"), this);
  presets_ = new QComboBox(this);
  presets_->setMinimumWidth(160);
  auto* loadPresetButton = new QPushButton(tr("Load preset"), this);
  auto* savePresetButton = new QPushButton(tr("Save as preset…"), this);
  launch_ = new QPushButton(tr("Launch"), this);
  launch_->setObjectName(QStringLiteral("launch"));
  launch_->setDefault(true);
  tune_ = new QPushButton(tr("Tune…"), this);
  tune_->setObjectName(QStringLiteral("tune"));
  tune_->setToolTip(tr("Search this job's bucket cap or fusion threshold × cycle time with short runs"));

  auto* columns = new QHBoxLayout;
  auto* left = new QVBoxLayout;
  left->addWidget(job);
  left->addWidget(slurm_);
  left->addWidget(comm);
  left->addStretch();
  auto* right = new QVBoxLayout;
  right->addWidget(programGroup_);
  right->addWidget(training);
  right->addWidget(faults);
  right->addStretch();
  columns->addLayout(left);
  columns->addLayout(right);

  auto* presetRow = new QHBoxLayout;
  presetRow->addWidget(new QLabel(tr("Presets"), this));
  presetRow->addWidget(presets_);
  presetRow->addWidget(loadPresetButton);
  presetRow->addWidget(savePresetButton);
  presetRow->addStretch();
  presetRow->addWidget(tune_);
  presetRow->addWidget(launch_);

  auto* commandRow = new QHBoxLayout;
  commandRow->addWidget(command_, 1);
  commandRow->addWidget(copy, 0, Qt::AlignTop);

  auto* kindRow = new QHBoxLayout;
  kindRow->addWidget(new QLabel(tr("Train with:"), this));
  kindRow->addWidget(builtIn_);
  kindRow->addWidget(ownProgram_);
  kindRow->addStretch();

  auto* inner = new QWidget(this);
  auto* layout = new QVBoxLayout(inner);
  layout->addLayout(kindRow);
  layout->addLayout(columns);
  layout->addWidget(problemsLabel_);
  layout->addWidget(new QLabel(tr("The same job from a terminal:"), this));
  layout->addLayout(commandRow);
  layout->addWidget(sbatch_);
  layout->addStretch(1);  // the command line stays under the form, however short it is
  auto* scroll = new QScrollArea(this);
  scroll->setWidget(inner);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  auto* outer = new QVBoxLayout(this);
  outer->setContentsMargins(0, 0, 0, 0);
  outer->addWidget(scroll, 1);
  // Presets, Tune and Launch below the scrolled form: always in sight, however tall the form.
  const int margin = style()->pixelMetric(QStyle::PM_LayoutLeftMargin);
  presetRow->setContentsMargins(margin, margin / 2, margin, margin);
  outer->addLayout(presetRow);

  for (QWidget* w : fields_) {
    if (auto* e = qobject_cast<QLineEdit*>(w))
      connect(e, &QLineEdit::textChanged, this, &LaunchPage::revalidate);
    if (auto* c = qobject_cast<QComboBox*>(w))
      connect(c, &QComboBox::currentIndexChanged, this, &LaunchPage::revalidate);
    if (auto* s = qobject_cast<QSpinBox*>(w))
      connect(s, &QSpinBox::valueChanged, this, &LaunchPage::revalidate);
    if (auto* d = qobject_cast<QDoubleSpinBox*>(w))
      connect(d, &QDoubleSpinBox::valueChanged, this, &LaunchPage::revalidate);
    if (auto* b = qobject_cast<QAbstractButton*>(w))
      connect(b, &QAbstractButton::toggled, this, &LaunchPage::revalidate);
    if (auto* t = qobject_cast<QPlainTextEdit*>(w))
      connect(t, &QPlainTextEdit::textChanged, this, &LaunchPage::revalidate);
  }
  connect(slurm_, &QGroupBox::toggled, this, &LaunchPage::revalidate);
  connect(ownProgram_, &QRadioButton::toggled, this, &LaunchPage::showKind);
  connect(browseProgram, &QPushButton::clicked, this, [this] {
    const QString file =
        QFileDialog::getOpenFileName(this, tr("Program to run"), QFileInfo(program_->text()).path());
    if (!file.isEmpty()) program_->setText(file);
  });
  connect(browseFolder, &QPushButton::clicked, this, [this] {
    const QString start = workingDir_->text().trimmed().isEmpty()
                              ? QDir::currentPath()
                              : absoluteFolder(workingDir_->text().trimmed());
    const QString folder = QFileDialog::getExistingDirectory(this, tr("Working folder"), start);
    if (!folder.isEmpty()) workingDir_->setText(folder);
  });
  connect(useConnected_, &QPushButton::clicked, this, &LaunchPage::useConnectedHosts);
  connect(copy, &QPushButton::clicked, this, [this] { QApplication::clipboard()->setText(commandLine()); });
  connect(launch_, &QPushButton::clicked, this, [this] {
    if (!problems().isEmpty()) return;
    if (!submitsToSlurm()) {
      Q_EMIT launchRequested(spec());
      return;
    }
    // What the command line says, read as `ringmaster run` reads it: the job the form shows is the one that
    // runs.
    try {
      Q_EMIT slurmSubmitRequested(console::parseRunFlags(console::runArguments(runFlags())));
    } catch (const InputError& e) {
      problemsLabel_->setText(QString::fromStdString(e.what()));
      problemsLabel_->setStyleSheet(QStringLiteral("color: #d62828;"));
    }
  });
  connect(tune_, &QPushButton::clicked, this, [this] {
    if (!problems().isEmpty()) return;
    // What the command line says, read as `ringmaster tune` reads it: the job the form shows is the one
    // tuned.
    try {
      Q_EMIT tuneRequested(console::parseRunFlags(console::runArguments(runFlags())));
    } catch (const InputError& e) {
      problemsLabel_->setText(QString::fromStdString(e.what()));
      problemsLabel_->setStyleSheet(QStringLiteral("color: #d62828;"));
    }
  });
  connect(savePresetButton, &QPushButton::clicked, this, [this] {
    bool ok = false;
    const QString name = QInputDialog::getText(this, tr("Save preset"), tr("Preset name"), QLineEdit::Normal,
                                               name_->text(), &ok);
    if (ok && !name.trimmed().isEmpty()) savePreset(name.trimmed());
  });
  connect(loadPresetButton, &QPushButton::clicked, this, [this] {
    if (!presets_->currentText().isEmpty()) loadPreset(presets_->currentText());
  });

  v1::JobSpec defaults = defaultJobSpec();
  setSpec(defaults);
  showKind();
  presets_->addItems(presetNames());
}

bool LaunchPage::runsProgram() const {
  return ownProgram_->isChecked();
}

void LaunchPage::showKind() {
  const bool program = runsProgram();
  programGroup_->setVisible(program);
  for (QGroupBox* group : trainingGroups_) {
    group->setVisible(!program);
    group->setEnabled(!program);
  }
  for (QWidget* field : trainingRows_) {
    jobForm_->setRowVisible(field, !program);
    field->setEnabled(!program);
  }
}

void LaunchPage::setSpec(const v1::JobSpec& spec) {
  name_->setText(QString::fromStdString(spec.name()));
  ranks_->setValue(static_cast<int>(spec.world_size()));
  QStringList hosts;
  for (const auto& host : spec.hosts())
    hosts << QStringLiteral("%1:%2").arg(QString::fromStdString(host.host())).arg(host.slots());
  hosts_->setText(hosts.join(QLatin1Char(',')));
  timeline_->setChecked(spec.timeline());
  stallTimeout_->setValue(static_cast<int>(std::lround(spec.stall_timeout_s())));
  maxRestarts_->setValue(static_cast<int>(spec.max_restarts()));
  minRanks_->setValue(static_cast<int>(spec.min_ranks()));
  // A program's spec leaves the training fields as they are, and a training spec the program's.
  if (isUserProgram(spec)) {
    const auto& program = spec.program();
    ownProgram_->setChecked(true);
    program_->setText(QString::fromStdString(program.argv(0)));
    QStringList arguments;
    for (int i = 1; i < program.argv_size(); ++i) arguments << QString::fromStdString(program.argv(i));
    arguments_->setText(argumentsLine(arguments));
    workingDir_->setText(QString::fromStdString(program.working_dir()));
    QStringList environment;
    for (const auto& entry : program.environment()) environment << QString::fromStdString(entry);
    environment_->setPlainText(environment.join(QLatin1Char('\n')));
    instrumented_->setChecked(!program.uninstrumented());
    revalidate();
    return;
  }
  builtIn_->setChecked(true);
  const auto& h = spec.hyper();
  engine_->setCurrentText(q(engineName(spec.engine())));
  backend_->setCurrentText(q(backendName(spec.backend())));
  model_->setCurrentText(q(modelName(spec.model())));
  dataset_->setCurrentText(q(datasetName(spec.dataset())));
  dataDir_->setText(QString::fromStdString(spec.data_dir()));
  batch_->setValue(static_cast<int>(h.batch_size()));
  optimizer_->setCurrentText(q(optimizerName(h.optimizer())));
  lr_->setValue(h.lr());
  momentum_->setValue(h.momentum());
  epochs_->setValue(static_cast<int>(h.epochs()));
  steps_->setValue(static_cast<int>(h.steps()));
  bucketCap_->setValue(h.bucket_cap_mb());
  fusion_->setValue(h.fusion_threshold_mb());
  cycle_->setValue(h.cycle_time_ms());
  responseCache_->setChecked(!h.no_response_cache());
  compression_->setCurrentText(q(compressionName(h.compression())));
  reduceOp_->setCurrentText(q(reduceOpName(h.reduce_op())));
  accumulation_->setValue(static_cast<int>(h.accumulation_steps()));
  checkpointDir_->setText(QString::fromStdString(spec.checkpoint_dir()));
  checkpointEvery_->setValue(static_cast<int>(spec.checkpoint_every()));
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
  revalidate();
}

v1::JobSpec LaunchPage::build(QList<Problem>* problems) const {
  // Fields the form does not show keep their defaults.
  v1::JobSpec spec = defaultJobSpec();
  auto note = [problems](const QString& field, const QString& text) {
    if (problems) problems->append({field, text});
  };
  spec.set_name(name_->text().trimmed().toStdString());
  spec.set_world_size(static_cast<uint32_t>(ranks_->value()));
  spec.set_timeline(timeline_->isChecked());
  spec.set_stall_timeout_s(stallTimeout_->value());
  spec.set_max_restarts(static_cast<uint32_t>(maxRestarts_->value()));
  spec.set_min_ranks(static_cast<uint32_t>(minRanks_->value()));
  // Slurm places the ranks on the nodes it allocates.
  const QString hostText = submitsToSlurm() ? QString() : hosts_->text().trimmed();
  if (!hostText.isEmpty()) {
    try {
      for (const HostSlots& hs : parseHostList(hostText.toStdString())) {
        auto* host = spec.add_hosts();
        host->set_host(hs.host);
        host->set_slots(static_cast<uint32_t>(hs.slots));
      }
    } catch (const InputError& e) {
      note(QStringLiteral("hosts"), tr("Hosts: %1").arg(QString::fromStdString(e.what())));
    }
  }

  if (runsProgram()) {
    auto* program = spec.mutable_program();
    // No executable, no argv: programErrors() says the program is missing.
    if (const QString executable = program_->text().trimmed(); !executable.isEmpty()) {
      program->add_argv(executable.toStdString());
      for (const QString& word : QProcess::splitCommand(arguments_->text()))
        program->add_argv(word.toStdString());
    }
    if (const QString folder = workingDir_->text().trimmed(); !folder.isEmpty()) {
      program->set_working_dir(absoluteFolder(folder).toStdString());
    }
    for (const auto& entry : environmentEntries(environment_->toPlainText())) {
      program->add_environment(entry.second.toStdString());
    }
    program->set_uninstrumented(!instrumented_->isChecked());
    return spec;
  }

  if (const QString why = unusableBecause(v1::BACKEND_NCCL);
      !why.isEmpty() && backend_->currentText() == QLatin1String("nccl")) {
    note(QStringLiteral("backend"), tr("Backend: %1").arg(why));
  }
  spec.set_engine(parseEngine(engine_->currentText().toStdString()).value_or(v1::ENGINE_UNSPECIFIED));
  spec.set_backend(parseBackend(backend_->currentText().toStdString()).value_or(v1::BACKEND_UNSPECIFIED));
  spec.set_model(parseModel(model_->currentText().toStdString()).value_or(v1::MODEL_UNSPECIFIED));
  spec.set_dataset(parseDataset(dataset_->currentText().toStdString()).value_or(v1::DATASET_UNSPECIFIED));
  spec.set_data_dir(dataDir_->text().trimmed().toStdString());
  auto* h = spec.mutable_hyper();
  h->set_batch_size(static_cast<uint32_t>(batch_->value()));
  h->set_optimizer(
      parseOptimizer(optimizer_->currentText().toStdString()).value_or(v1::OPTIMIZER_UNSPECIFIED));
  h->set_lr(lr_->value());
  h->set_momentum(momentum_->value());
  h->set_epochs(static_cast<uint32_t>(epochs_->value()));
  h->set_steps(static_cast<uint64_t>(steps_->value()));
  h->set_bucket_cap_mb(bucketCap_->value());
  h->set_fusion_threshold_mb(fusion_->value());
  h->set_cycle_time_ms(cycle_->value());
  h->set_no_response_cache(!responseCache_->isChecked());
  h->set_compression(
      parseCompression(compression_->currentText().toStdString()).value_or(v1::COMPRESSION_NONE));
  h->set_reduce_op(parseReduceOp(reduceOp_->currentText().toStdString()).value_or(v1::REDUCE_OP_UNSPECIFIED));
  h->set_accumulation_steps(static_cast<uint32_t>(accumulation_->value()));
  spec.set_checkpoint_dir(checkpointDir_->text().trimmed().toStdString());
  spec.set_checkpoint_every(static_cast<uint64_t>(checkpointEvery_->value()));

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
  return spec;
}

v1::JobSpec LaunchPage::spec() const {
  return build(nullptr);
}

QList<LaunchPage::Problem> LaunchPage::findProblems() const {
  QList<Problem> found;
  const v1::JobSpec spec = build(&found);
  if (submitsToSlurm()) {
    if (const std::string problem = console::slurmFlagsProblem(runFlags()); !problem.empty())
      found.append({QStringLiteral("slurm.nodes"), tr("Slurm: %1").arg(QString::fromStdString(problem))});
  }
  std::vector<FieldError> errors = validateJobSpec(spec);
  if (runsProgram() && !isUserProgram(spec)) {
    for (FieldError& e : programErrors(spec.program())) errors.push_back(std::move(e));
  }
  // A program's fields by their names on the form; an argv index past 0 is in the arguments line, an
  // environment index is a line of the box.
  static const QRegularExpression programField(QStringLiteral("^program\\.(\\w+)(?:\\[(\\d+)\\])?$"));
  const auto environment = environmentEntries(environment_->toPlainText());
  for (const FieldError& e : errors) {
    const QString field = QString::fromStdString(e.field);
    const QString message =
        *e.phrase.pattern ? console::translated(e.phrase) : QString::fromStdString(e.message);
    const QRegularExpressionMatch m = programField.match(field);
    if (!m.hasMatch()) {
      found.append({field, QStringLiteral("%1: %2").arg(labelOf(field), message)});
      continue;
    }
    const QString name = m.captured(1);
    const int index = m.captured(2).isEmpty() ? -1 : m.captured(2).toInt();
    if (name == QLatin1String("argv") && index > 0) {
      found.append({QStringLiteral("program.arguments"), tr("Arguments: %1").arg(message)});
    } else if (name == QLatin1String("argv")) {
      found.append({QStringLiteral("program.argv"), tr("Program: %1").arg(message)});
    } else if (name == QLatin1String("working_dir")) {
      found.append({field, tr("Working folder: %1").arg(message)});
    } else if (name == QLatin1String("environment") && index >= 0 && index < environment.size()) {
      found.append({field, tr("Environment, line %1: %2").arg(environment[index].first).arg(message)});
    } else {
      found.append({field, QStringLiteral("%1: %2").arg(field, message)});
    }
  }
  return found;
}

QString LaunchPage::labelOf(const QString& field) const {
  // "faults.stragglers[0].rank" is the Straggler field's: indexes go, then trailing parts until a field has
  // the name.
  static const QRegularExpression index(QStringLiteral("\\[\\d+\\]"));
  QString name = field;
  name.remove(index);
  const QWidget* widget = nullptr;
  for (;;) {
    if (auto it = fields_.find(name); it != fields_.end()) {
      widget = *it;
      break;
    }
    const qsizetype dot = name.lastIndexOf(QLatin1Char('.'));
    if (dot < 0) return field;
    name.truncate(dot);
  }
  // The label of the form row holding it, alone or beside its button.
  for (const QFormLayout* form : findChildren<QFormLayout*>()) {
    for (int row = 0; row < form->rowCount(); ++row) {
      QLayoutItem* item = form->itemAt(row, QFormLayout::FieldRole);
      const QLayoutItem* label = form->itemAt(row, QFormLayout::LabelRole);
      if (!item || !label) continue;
      const bool holds = item->widget() == widget || (item->layout() && item->layout()->indexOf(widget) >= 0);
      if (!holds) continue;
      if (const auto* text = qobject_cast<const QLabel*>(label->widget()); text && !text->text().isEmpty())
        return text->text();
    }
  }
  return field;
}

bool LaunchPage::submitsToSlurm() const {
  return slurm_->isChecked();
}

QString LaunchPage::unusableBecause(v1::Backend backend) const {
  // The hosts the job would run on that the Hosts page has checked; Slurm's nodes are not known before they
  // are allocated.
  if (submitsToSlurm()) return {};
  QStringList hosts;
  const QString hostText = hosts_->text().trimmed();
  if (hostText.isEmpty()) {
    hosts << QString();
  } else {
    try {
      for (const HostSlots& hs : parseHostList(hostText.toStdString()))
        hosts << QString::fromStdString(hs.host);
    } catch (const InputError&) {
      return {};  // the Hosts field's own problem says what is wrong
    }
  }
  const QString name = QString::fromUtf8(backendName(backend).data());
  QStringList why;
  for (const QString& host : hosts) {
    const auto known = knownHosts_.find(host);
    if (known == knownHosts_.end()) continue;
    const BackendProblem problem = backendProblem(*known, backend);
    if (problem == BackendProblem::kNone) continue;
    const QString reason =
        problem == BackendProblem::kNoGpu ? tr("no GPU") : tr("its worker was built without %1").arg(name);
    why << (host.isEmpty() ? tr("this machine: %1").arg(reason) : tr("%1: %2").arg(host, reason));
  }
  if (why.isEmpty()) return {};
  return tr("%1 cannot run on %2").arg(name, why.join(QStringLiteral("; ")));
}

void LaunchPage::setKnownHosts(const QMap<QString, v1::HostInfo>& hosts) {
  knownHosts_ = hosts;
  revalidate();
}

QStringList LaunchPage::problems() const {
  QStringList texts;
  for (const Problem& p : findProblems()) texts << p.text;
  return texts;
}

console::RunFlags LaunchPage::runFlags() const {
  const v1::JobSpec spec = this->spec();
  console::RunFlags flags;
  flags.ranks = static_cast<int>(spec.world_size());
  flags.spec = spec;
  flags.spec.clear_hosts();  // -H carries them
  if (submitsToSlurm()) {
    console::SlurmOptions& o = flags.slurm;
    o.submit = true;
    o.nodes = slurmNodes_->value();
    o.partition = partition_->text().trimmed().toStdString();
    o.time = time_->text().trimmed().toStdString();
    o.account = account_->text().trimmed().toStdString();
    o.qos = qos_->text().trimmed().toStdString();
    o.constraint = constraint_->text().trimmed().toStdString();
    o.gres = gres_->text().trimmed().toStdString();
    for (const QString& word : QProcess::splitCommand(slurmExtra_->text()))
      o.extra.push_back(word.toStdString());
    if (const QString folder = slurmFolder_->text().trimmed(); !folder.isEmpty())
      o.folder = absoluteFolder(folder).toStdString();
    return flags;
  }
  if (spec.hosts_size() > 0) {
    flags.hostList = hosts_->text().trimmed().toStdString();
    // How the Hosts page reaches them, when they share it (`ringmaster run` has one port, token and CA for
    // all).
    std::set<int> ports;
    std::set<QString> tokens, cas;
    for (const auto& h : spec.hosts()) {
      const QString name = QString::fromStdString(h.host());
      for (const RemoteAgent& a : connectedHosts_) {
        if (a.host != name) continue;
        ports.insert(a.port);
        tokens.insert(a.tokenFile);
        cas.insert(a.tlsCa);
        break;
      }
    }
    if (ports.size() == 1 && *ports.begin() > 0) flags.agentPort = *ports.begin();
    if (tokens.size() == 1) flags.tokenFile = tokens.begin()->toStdString();
    if (cas.size() == 1) flags.tlsCa = cas.begin()->toStdString();
  }
  return flags;
}

QString LaunchPage::commandLine() const {
  std::vector<std::string> words = {"ringmaster", "run"};
  for (std::string& arg : console::runArguments(runFlags())) words.push_back(std::move(arg));
  return QString::fromStdString(shellLine(words));
}

QString LaunchPage::sbatchLine() const {
  if (!submitsToSlurm()) return {};
  const console::RunFlags flags = runFlags();
  return QString::fromStdString(
      shellLine(console::sbatchCommand(flags, console::slurmJobFolder(flags, kJobIdPlaceholder))));
}

void LaunchPage::revalidate() {
  // nccl is offered where it can run.
  const QString ncclWhy = unusableBecause(v1::BACKEND_NCCL);
  if (auto* choices = qobject_cast<QStandardItemModel*>(backend_->model())) {
    if (QStandardItem* nccl = choices->item(backend_->findText(QStringLiteral("nccl")))) {
      nccl->setEnabled(ncclWhy.isEmpty());
      nccl->setToolTip(ncclWhy);
    }
  }
  hosts_->setEnabled(!submitsToSlurm());
  useConnected_->setVisible(!submitsToSlurm());
  const QList<Problem> problems = findProblems();
  QStringList found;
  for (const Problem& p : problems) found << p.text;
  // Mark the fields a problem belongs to; their tooltip says what is wrong, else what they are for.
  for (auto it = fields_.begin(); it != fields_.end(); ++it) {
    QStringList own;
    for (const Problem& p : problems) {
      if (p.field == it.key() || p.field.startsWith(it.key() + QLatin1Char('['))) own << p.text;
    }
    it.value()->setStyleSheet(own.isEmpty() ? QString() : QStringLiteral("border: 1px solid #d62828;"));
    it.value()->setToolTip(own.isEmpty() ? it.value()->property("hint").toString()
                                         : own.join(QLatin1Char('\n')));
  }
  workingDir_->setPlaceholderText(hosts_->text().trimmed().isEmpty()
                                      ? tr("this folder: %1").arg(QDir::currentPath())
                                      : tr("each host's agent's own folder"));
  if (found.isEmpty()) {
    problemsLabel_->setText(tr("Ready to launch."));
    problemsLabel_->setStyleSheet(QString());
  } else {
    problemsLabel_->setText(QStringLiteral("• ") + found.join(QStringLiteral("\n• ")));
    problemsLabel_->setStyleSheet(QStringLiteral("color: #d62828;"));
  }
  command_->setPlainText(commandLine());
  sbatch_->setVisible(submitsToSlurm());
  sbatch_->setText(submitsToSlurm() ? tr("Slurm runs: %1 (%2: the job's id, chosen at launch)")
                                          .arg(sbatchLine(), QLatin1String(kJobIdPlaceholder))
                                    : QString());
  launch_->setText(submitsToSlurm() ? tr("Submit") : tr("Launch"));
  launch_->setEnabled(found.isEmpty() && launchEnabled_);
  tune_->setEnabled(found.isEmpty());
  launch_->setToolTip(launchEnabled_ ? QString() : launchBlockedWhy_);
}

void LaunchPage::setLaunchEnabled(bool enabled, const QString& why) {
  launchEnabled_ = enabled;
  launchBlockedWhy_ = why;
  revalidate();
}

void LaunchPage::setConnectedHosts(const QList<RemoteAgent>& agents) {
  connectedHosts_ = agents;
  QStringList names;
  for (const RemoteAgent& a : agents) names << QStringLiteral("%1:%2").arg(a.host).arg(a.slots);
  useConnected_->setEnabled(!agents.isEmpty());
  useConnected_->setToolTip(agents.isEmpty() ? tr("Connect to remote agents on the Hosts page first")
                                             : names.join(QStringLiteral(", ")));
  revalidate();
}

void LaunchPage::useConnectedHosts() {
  QStringList names;
  for (const RemoteAgent& a : connectedHosts_) names << QStringLiteral("%1:%2").arg(a.host).arg(a.slots);
  if (!names.isEmpty()) hosts_->setText(names.join(QLatin1Char(',')));
}

void LaunchPage::savePreset(const QString& name) {
  QSettings settings;
  // Saved to disk: secret-looking environment values are kept as *** (withSecretsMasked), to type again.
  settings.setValue(QStringLiteral("presets/") + name,
                    QString::fromStdString(messageToJson(withSecretsMasked(spec()))));
  QVariantMap slurm{{QStringLiteral("submit"), slurm_->isChecked()},
                    {QStringLiteral("nodes"), slurmNodes_->value()}};
  for (QLineEdit* edit : slurmTexts()) slurm.insert(fields_.key(edit), edit->text());
  settings.setValue(slurmPresetKey(name), slurm);
  presets_->clear();
  presets_->addItems(presetNames());
  presets_->setCurrentText(name);
}

bool LaunchPage::loadPreset(const QString& name) {
  QSettings settings;
  const QString json = settings.value(QStringLiteral("presets/") + name).toString();
  v1::JobSpec spec;
  if (json.isEmpty() || !messageFromJson(json.toStdString(), spec)) return false;
  setSpec(spec);
  // A preset saved without Slurm options (or before presets kept them) runs without Slurm.
  const QVariantMap slurm = settings.value(slurmPresetKey(name)).toMap();
  slurmNodes_->setValue(slurm.value(QStringLiteral("nodes"), 0).toInt());
  for (QLineEdit* edit : slurmTexts()) edit->setText(slurm.value(fields_.key(edit)).toString());
  slurm_->setChecked(slurm.value(QStringLiteral("submit"), false).toBool());
  return true;
}

QList<QLineEdit*> LaunchPage::slurmTexts() const {
  return {partition_, time_, account_, qos_, constraint_, gres_, slurmExtra_, slurmFolder_};
}

QStringList LaunchPage::presetNames() const {
  QSettings settings;
  settings.beginGroup(QStringLiteral("presets"));
  return settings.childKeys();
}

}  // namespace ringmaster::gui
