// SPDX-License-Identifier: GPL-3.0-or-later
#include "gui/dialogs/tune_dialog.h"

#include <QChart>
#include <QChartView>
#include <QCloseEvent>
#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLegend>
#include <QLegendMarker>
#include <QLineEdit>
#include <QLineSeries>
#include <QPushButton>
#include <QScatterSeries>
#include <QSpinBox>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>
#include <QValueAxis>
#include <algorithm>

#include "common/error.h"
#include "console/models/comparison_model.h"
#include "console/models/runs_model.h"
#include "console/models/translated.h"
#include "console/session/background.h"
#include "gui/palette.h"

namespace ringmaster::gui {
namespace {

enum Column { Number, Setting, Round, Steps, Throughput, AgainstDefault, RunId, Status, ColumnCount };

QString text(const std::string& s) {
  return QString::fromStdString(s);
}

}  // namespace

TuneDialog::TuneDialog(console::RunFlags flags, QWidget* parent) : QDialog(parent), flags_(std::move(flags)) {
  setWindowTitle(tr("Tune"));
  target_ = new QComboBox(this);
  target_->addItem(tr("DDP bucket cap (--bucket-cap-mb)"), static_cast<int>(console::TuneTarget::BucketCap));
  target_->addItem(tr("Horovod fusion threshold × cycle time (--fusion-threshold-mb, --cycle-time-ms)"),
                   static_cast<int>(console::TuneTarget::Fusion));
  target_->setCurrentIndex(target_->findData(static_cast<int>(console::defaultTuneTarget(flags_.spec))));
  trialCount_ = new QSpinBox(this);
  trialCount_->setRange(2, 100);
  trialCount_->setValue(6);
  trialCount_->setToolTip(
      tr("Runs to make at most, the default's included; from 6 on, successive halving: the better half of "
         "each round runs again twice as long"));
  name_ = new QLineEdit(this);
  name_->setPlaceholderText(flags_.spec.name().empty() ? tr("tune-<date>-<time>") : text(flags_.spec.name()));
  name_->setToolTip(tr("The trials are stored runs tagged tune:<name>"));
  auto* form = new QFormLayout;
  form->addRow(tr("Search"), target_);
  form->addRow(tr("Trials"), trialCount_);
  form->addRow(tr("Name"), name_);

  start_ = new QPushButton(tr("Start"), this);
  start_->setDefault(true);
  stop_ = new QPushButton(tr("Stop"), this);
  plan_ = new QLabel(this);
  plan_->setWordWrap(true);
  status_ = new QLabel(this);
  status_->setWordWrap(true);
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(plan_, 1);
  buttons->addWidget(start_);
  buttons->addWidget(stop_);

  table_ = new QTableWidget(0, ColumnCount, this);
  table_->setHorizontalHeaderLabels({tr("Trial"), tr("Setting"), tr("Round"), tr("Steps"), tr("Samples/s"),
                                     tr("vs default [95 % CI]"), tr("Run"), tr("Status")});
  table_->verticalHeader()->hide();
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table_->horizontalHeader()->setStretchLastSection(true);

  chart_ = new QChart;
  chart_->setTheme(isDark(palette()) ? QChart::ChartThemeDark : QChart::ChartThemeLight);
  chart_->setTitle(tr("Throughput per trial; whiskers: 95 % interval against the default's run"));
  points_ = new QScatterSeries;
  points_->setName(tr("trials"));
  points_->setMarkerSize(10);
  defaults_ = new QScatterSeries;
  defaults_->setName(tr("the default"));
  defaults_->setMarkerShape(QScatterSeries::MarkerShapeRectangle);
  defaults_->setMarkerSize(12);
  chart_->addSeries(points_);
  chart_->addSeries(defaults_);
  xAxis_ = new QValueAxis;
  xAxis_->setTitleText(tr("trial"));
  xAxis_->setLabelFormat(QStringLiteral("%d"));
  xAxis_->setTickType(QValueAxis::TicksDynamic);
  xAxis_->setTickAnchor(1);
  xAxis_->setTickInterval(1);
  yAxis_ = new QValueAxis;
  yAxis_->setTitleText(tr("samples/s"));
  yAxis_->setLabelFormat(QStringLiteral("%.0f"));
  chart_->addAxis(xAxis_, Qt::AlignBottom);
  chart_->addAxis(yAxis_, Qt::AlignLeft);
  for (QScatterSeries* s : {points_, defaults_}) {
    s->attachAxis(xAxis_);
    s->attachAxis(yAxis_);
  }
  rescale();
  auto* view = new QChartView(chart_, this);
  view->setRenderHint(QPainter::Antialiasing);
  view->setMinimumHeight(260);

  auto* split = new QSplitter(Qt::Vertical, this);
  split->addWidget(table_);
  split->addWidget(view);
  split->setSizes({220, 380});  // in proportion: the chart gets the larger part

  recommendationLabel_ = new QLabel(this);
  recommendationLabel_->setWordWrap(true);
  recommendationLabel_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  QFont bold = recommendationLabel_->font();
  bold.setBold(true);
  recommendationLabel_->setFont(bold);
  use_ = new QPushButton(tr("Use in the Launch form"), this);
  auto* end = new QHBoxLayout;
  end->addWidget(recommendationLabel_, 1);
  end->addWidget(use_, 0, Qt::AlignTop);

  auto* layout = new QVBoxLayout(this);
  layout->addLayout(form);
  layout->addLayout(buttons);
  layout->addWidget(status_);
  layout->addWidget(split, 1);
  layout->addLayout(end);
  resize(1000, 760);

  connect(start_, &QPushButton::clicked, this, &TuneDialog::start);
  connect(stop_, &QPushButton::clicked, this, &TuneDialog::stop);
  connect(use_, &QPushButton::clicked, this, [this] {
    if (recommended_) Q_EMIT settingChosen(*recommended_);
  });
  updateControls();
}

TuneDialog::~TuneDialog() {
  stopRequested_ = true;
  if (runner_.joinable()) runner_.join();
}

void TuneDialog::closeEvent(QCloseEvent* event) {
  // The session's ranks run on: stop them first, then close once it has ended.
  if (running_) {
    stop();
    closeWhenEnded_ = true;
    event->ignore();
    return;
  }
  QDialog::closeEvent(event);
}

void TuneDialog::start() {
  if (running_) return;
  if (runner_.joinable()) runner_.join();
  console::TuneOptions options;
  options.flags = flags_;
  options.target = static_cast<console::TuneTarget>(target_->currentData().toInt());
  options.trials = static_cast<size_t>(trialCount_->value());
  options.name = name_->text().trimmed().toStdString();
  try {
    session_ = std::make_unique<console::TuneSession>(std::move(options));
  } catch (const InputError& e) {
    status_->setText(text(e.what()));
    status_->setStyleSheet(QStringLiteral("color: #d62828;"));
    return;
  }
  trials_.clear();
  recommendation_.clear();
  recommended_.reset();
  table_->setRowCount(0);
  points_->clear();
  defaults_->clear();
  for (QAbstractSeries* s : chart_->series()) {
    if (s == points_ || s == defaults_) continue;
    chart_->removeSeries(s);  // a whisker: the chart gives it back
    delete s;
  }
  rescale();
  recommendationLabel_->clear();
  status_->setStyleSheet({});
  QStringList rounds;
  for (size_t r = 0; r < session_->rounds().size(); ++r) {
    rounds << tr("%1 × %2 steps").arg(session_->rounds()[r]).arg(session_->stepsOfRound(r));
  }
  plan_->setText(tr("Session %1: %2 in rounds of %3; each trial is a run tagged %4 in %5")
                     .arg(text(session_->name()), text(console::tuneTargetFlags(session_->target())),
                          rounds.join(QStringLiteral(", ")), text(session_->tag()),
                          text(session_->storePath())));
  status_->setText(tr("Running trial 1…"));
  stopRequested_ = false;
  closeWhenEnded_ = false;
  running_ = true;
  updateControls();

  console::TuneSession* session = session_.get();
  runner_ = std::thread([this, session] {
    QString problem;
    try {
      session->run(
          [this](const console::TrialResult& trial) {
            console::postIfAlive(this, [this, trial] { addTrial(trial); });
          },
          [this] { return stopRequested_.load(); });
    } catch (const std::exception& e) {
      problem = QString::fromStdString(e.what());
    }
    if (problem.isEmpty()) problem = text(session->failure());
    const bool stopped = session->stopped();
    const QString recommendation =
        problem.isEmpty() && !session->trials().empty() ? text(session->recommendation()) : QString();
    std::optional<console::TuneSetting> setting = session->recommendedSetting();
    console::postIfAlive(this, [this, recommendation, setting, problem, stopped] {
      finish(recommendation, setting, problem, stopped);
    });
  });
}

void TuneDialog::stop() {
  if (!running_) return;
  stopRequested_ = true;
  status_->setText(tr("Stopping the running trial…"));
  updateControls();
}

void TuneDialog::addTrial(const console::TrialResult& trial) {
  trials_.push_back(trial);
  const int number = static_cast<int>(trials_.size());
  const int row = table_->rowCount();
  table_->insertRow(row);
  auto cell = [&](int column, const QString& value, bool number = false) {
    auto* item = new QTableWidgetItem(value);
    if (number) item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    table_->setItem(row, column, item);
    return item;
  };
  cell(Number, QString::number(number), true);
  cell(Setting, trial.isDefault ? tr("%1 (the default)").arg(text(trial.setting.flags()))
                                : text(trial.setting.flags()));
  cell(Round, QString::number(trial.round + 1), true);
  cell(Steps, QString::number(trial.steps), true);
  cell(Throughput, trial.measured() ? QString::number(trial.metrics.throughput, 'f', 1) : QStringLiteral("-"),
       true);
  QString against = trial.isDefault ? tr("(the default)") : QStringLiteral("-");
  if (trial.againstDefault) against = console::ComparisonModel::formatDelta(*trial.againstDefault);
  QTableWidgetItem* delta = cell(AgainstDefault, against, true);
  if (trial.againstDefault && trial.againstDefault->verdict() != 0) {
    delta->setForeground(trial.againstDefault->verdict() > 0 ? QColor(0x2a, 0x9d, 0x4f)
                                                             : QColor(0xd6, 0x28, 0x28));
  }
  cell(RunId, QString::number(trial.runId), true);
  QTableWidgetItem* status = cell(Status, console::RunsModel::statusText(text(trial.status)));
  if (!isEmpty(trial.failure)) status->setToolTip(console::translated(trial.failure));

  if (trial.measured()) {
    points_->append(number, trial.metrics.throughput);
    if (trial.isDefault) defaults_->append(number, trial.metrics.throughput);
    if (trial.againstDefault && trial.againstDefault->interval) {
      // The trial's throughput as the difference's interval puts it against the default's run.
      const MetricDelta& d = *trial.againstDefault;
      auto* whisker = new QLineSeries;
      whisker->setPen(QPen(points_->color(), 2));
      whisker->append(number, d.base * (1 + d.interval->lower));
      whisker->append(number, d.base * (1 + d.interval->upper));
      chart_->addSeries(whisker);
      whisker->attachAxis(xAxis_);
      whisker->attachAxis(yAxis_);
      if (QLegendMarker* marker = chart_->legend()->markers(whisker).value(0)) marker->setVisible(false);
    }
  }
  rescale();
  status_->setText(
      running_ && !stopRequested_
          ? tr("Trial %1 ended (%2); running trial %3…")
                .arg(number)
                .arg(console::RunsModel::statusText(text(trial.status)))
                .arg(number + 1)
          : tr("Trial %1 ended (%2).").arg(number).arg(console::RunsModel::statusText(text(trial.status))));
  Q_EMIT trialEnded(number);
}

void TuneDialog::rescale() {
  const int count = std::max<int>(static_cast<int>(trials_.size()), 1);
  xAxis_->setRange(0.5, count + 0.5);
  double top = 0;
  for (QAbstractSeries* s : chart_->series()) {
    if (auto* xy = qobject_cast<QXYSeries*>(s)) {
      for (const QPointF& p : xy->points()) top = std::max(top, p.y());
    }
  }
  yAxis_->setRange(0, top > 0 ? top * 1.1 : 1);
  yAxis_->applyNiceNumbers();
}

void TuneDialog::finish(const QString& recommendation, std::optional<console::TuneSetting> setting,
                        const QString& problem, bool stopped) {
  running_ = false;
  if (runner_.joinable()) runner_.join();
  recommendation_ = recommendation;
  recommended_ = std::move(setting);
  if (!problem.isEmpty()) {
    status_->setText(tr("The session ended early: %1").arg(problem));
    status_->setStyleSheet(QStringLiteral("color: #d62828;"));
  } else if (stopped) {
    status_->setText(tr("Stopped; trials that ended: %1.").arg(trials_.size()));
  } else {
    status_->setText(tr("The session ended; trials: %1.").arg(trials_.size()));
  }
  if (!recommendation_.isEmpty()) {
    recommendationLabel_->setText(stopped ? tr("From the trials that ended: %1").arg(recommendation_)
                                          : recommendation_);
  }
  updateControls();
  Q_EMIT sessionEnded();
  if (closeWhenEnded_) close();
}

void TuneDialog::updateControls() {
  for (QWidget* w : std::initializer_list<QWidget*>{target_, trialCount_, name_}) w->setEnabled(!running_);
  start_->setEnabled(!running_);
  stop_->setEnabled(running_ && !stopRequested_);
  use_->setEnabled(!running_ && recommended_.has_value());
  use_->setToolTip(recommended_ ? tr("Sets %1 in the Launch form").arg(text(recommended_->flags()))
                                : tr("No setting beat the default beyond its interval"));
}

}  // namespace ringmaster::gui
