// SPDX-License-Identifier: GPL-3.0-or-later
#include "gui/pages/launch_page.h"

#include <QApplication>
#include <QButtonGroup>
#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QRegularExpression>
#include <QScrollArea>
#include <QSettings>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QStyle>
#include <QVBoxLayout>
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
#include "gui/pages/launch_forms/program_form.h"
#include "gui/pages/launch_forms/slurm_form.h"
#include "gui/pages/launch_forms/training_forms.h"
#include "gui/views/wheel_guard.h"
#include "jobflags/job_flags.h"

namespace ringmaster::gui {
namespace {

using launch_fields::choices;
using launch_fields::integer;
using launch_fields::q;
using launch_fields::withButton;

// Where the sbatch line the form shows has the job's id, which is chosen at launch.
constexpr const char* kJobIdPlaceholder = "JOB_ID";

// Where a preset's Slurm options go, beside its spec under "presets/<name>".
QString slurmPresetKey(const QString& name) {
  return QStringLiteral("presetSlurm/") + name;
}

}  // namespace

LaunchPage::LaunchPage(QWidget* parent) : QWidget(parent) {
  createFields();
  QGroupBox* job = createJobGroup();
  const Buttons buttons = createOutputAndButtons();
  layOut(job, buttons);
  connectFields();
  connectButtons(buttons);

  v1::JobSpec defaults = defaultJobSpec();
  setSpec(defaults);
  showKind();
  presets_->addItems(presetNames());
  guardWheel(this);
}

void LaunchPage::createFields() {
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
  // Created in the order Tab goes through them.
  programGroup_ = new ProgramForm(this);

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
  training_ = new TrainingForm(this);
  comm_ = new CommunicationForm(this);
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
  faults_ = new FaultsForm(this);
  slurm_ = new SlurmForm(this);
  for (const LaunchForm* form :
       std::initializer_list<const LaunchForm*>{programGroup_, training_, comm_, faults_, slurm_})
    fields_.insert(form->fields());
}

QGroupBox* LaunchPage::createJobGroup() {
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

  trainingGroups_ = {training_, comm_, faults_};
  return job;
}

LaunchPage::Buttons LaunchPage::createOutputAndButtons() {
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
  return {copy, loadPresetButton, savePresetButton};
}

void LaunchPage::layOut(QGroupBox* job, const Buttons& buttons) {
  auto* columns = new QHBoxLayout;
  auto* left = new QVBoxLayout;
  left->addWidget(job);
  left->addWidget(slurm_);
  left->addWidget(comm_);
  left->addStretch();
  auto* right = new QVBoxLayout;
  right->addWidget(programGroup_);
  right->addWidget(training_);
  right->addWidget(faults_);
  right->addStretch();
  columns->addLayout(left);
  columns->addLayout(right);

  auto* presetRow = new QHBoxLayout;
  presetRow->addWidget(new QLabel(tr("Presets"), this));
  presetRow->addWidget(presets_);
  presetRow->addWidget(buttons.loadPreset);
  presetRow->addWidget(buttons.savePreset);
  presetRow->addStretch();
  presetRow->addWidget(tune_);
  presetRow->addWidget(launch_);

  auto* commandRow = new QHBoxLayout;
  commandRow->addWidget(command_, 1);
  commandRow->addWidget(buttons.copy, 0, Qt::AlignTop);

  auto* kindRow = new QHBoxLayout;
  kindRow->addWidget(new QLabel(tr("Train with:"), this));
  kindRow->addWidget(builtIn_);
  kindRow->addWidget(ownProgram_);
  kindRow->addStretch();

  auto* inner = new QWidget(this);
  auto* layout = new QVBoxLayout(inner);
  layout->addLayout(kindRow);
  layout->addLayout(columns);
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
  // What stops a launch stays in sight beside the button, however far the form is scrolled.
  problemsLabel_->setContentsMargins(margin, 0, margin, 0);
  outer->addWidget(problemsLabel_);
  outer->addLayout(presetRow);
}

void LaunchPage::connectFields() {
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
  connect(useConnected_, &QPushButton::clicked, this, &LaunchPage::useConnectedHosts);
}

void LaunchPage::connectButtons(const Buttons& buttons) {
  connect(buttons.copy, &QPushButton::clicked, this,
          [this] { QApplication::clipboard()->setText(commandLine()); });
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
  connect(buttons.savePreset, &QPushButton::clicked, this, [this] {
    bool ok = false;
    const QString name = QInputDialog::getText(this, tr("Save preset"), tr("Preset name"), QLineEdit::Normal,
                                               name_->text(), &ok);
    if (ok && !name.trimmed().isEmpty()) savePreset(name.trimmed());
  });
  connect(buttons.loadPreset, &QPushButton::clicked, this, [this] {
    if (!presets_->currentText().isEmpty()) loadPreset(presets_->currentText());
  });
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
    ownProgram_->setChecked(true);
    programGroup_->setProgram(spec.program());
    revalidate();
    return;
  }
  builtIn_->setChecked(true);
  engine_->setCurrentText(q(engineName(spec.engine())));
  backend_->setCurrentText(q(backendName(spec.backend())));
  model_->setCurrentText(q(modelName(spec.model())));
  dataset_->setCurrentText(q(datasetName(spec.dataset())));
  dataDir_->setText(QString::fromStdString(spec.data_dir()));
  training_->setSpec(spec);
  comm_->setSpec(spec);
  faults_->setSpec(spec);
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
    programGroup_->fill(spec.mutable_program());
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
  training_->fill(spec);
  comm_->fill(spec);
  faults_->fill(spec, note);
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
  const auto environment = programGroup_->environmentEntries();
  for (const FieldError& e : errors) {
    const QString field = QString::fromStdString(e.field);
    const QString message =
        !isEmpty(e.phrase) ? console::translated(e.phrase) : QString::fromStdString(e.message);
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
  return slurm_->submits();
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
    slurm_->fill(flags.slurm);
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
  programGroup_->setRunsOnHosts(!hosts_->text().trimmed().isEmpty());
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
  // Tuning searches the bucket cap or fusion threshold of Ringmaster's own engines: a user's program sets
  // its own.
  const bool tunable = !runsProgram();
  tune_->setEnabled(found.isEmpty() && tunable);
  tune_->setToolTip(tunable
                        ? tr("Search this job's bucket cap or fusion threshold × cycle time with short runs")
                        : tr("Tune runs Ringmaster's own models; your program sets its own bucket size"));
  launch_->setToolTip(!launchEnabled_   ? launchBlockedWhy_
                      : found.isEmpty() ? QString()
                                        : found.join(QLatin1Char('\n')));
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
  settings.setValue(slurmPresetKey(name), slurm_->preset());
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
  slurm_->setPreset(settings.value(slurmPresetKey(name)).toMap());
  return true;
}

QStringList LaunchPage::presetNames() const {
  QSettings settings;
  settings.beginGroup(QStringLiteral("presets"));
  return settings.childKeys();
}

}  // namespace ringmaster::gui
