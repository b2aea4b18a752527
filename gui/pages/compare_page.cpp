// SPDX-License-Identifier: GPL-3.0-or-later
#include "gui/pages/compare_page.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QCategoryAxis>
#include <QChartView>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QSplitter>
#include <QStackedBarSeries>
#include <QStyledItemDelegate>
#include <QTableView>
#include <QVBoxLayout>
#include <cmath>

#include "console/models/translated.h"
#include "console/session/store_access.h"
#include "gui/palette.h"
#include "gui/views/chart_export.h"
#include "gui/views/series_chart.h"

namespace ringmaster::gui {
namespace {

const char* const kPhaseNames[] = {"DATA", "FORWARD", "BACKWARD", "COMM_WAIT", "OPTIMIZER"};

// Greens a difference that is better, reds one that is worse, when its interval excludes zero.
class DeltaDelegate : public QStyledItemDelegate {
 public:
  using QStyledItemDelegate::QStyledItemDelegate;
  void initStyleOption(QStyleOptionViewItem* option, const QModelIndex& index) const override {
    QStyledItemDelegate::initStyleOption(option, index);
    const QVariant verdict = index.data(console::ComparisonModel::VerdictRole);
    if (!verdict.isValid() || verdict.toInt() == 0) return;
    option->palette.setColor(QPalette::Text,
                             verdict.toInt() > 0 ? QColor(0x1b, 0x8a, 0x3c) : QColor(0xc0, 0x20, 0x20));
  }
};

}  // namespace

ComparePage::ComparePage(console::RunsModel* runs, console::StoreAccess* store, QWidget* parent)
    : QWidget(parent), runs_(runs), store_(store) {
  list_ = new QListWidget(this);
  list_->setToolTip(tr("Tick two or more runs; the first ticked is the baseline"));
  auto* compareButton = new QPushButton(tr("Compare"), this);
  status_ = new QLabel(tr("Tick two or more runs, then Compare."), this);
  status_->setWordWrap(true);
  throughput_ = new SeriesChart(tr("Throughput (whole job)"), tr("samples/s"), this);
  stepTime_ = new SeriesChart(tr("Step time (mean over ranks)"), tr("ms"), this);
  auto* phaseChart = new QChart();
  phaseChart->setTitle(tr("Step phases per rank, run by run (mean ms)"));
  phaseChart->setMargins(QMargins(4, 4, 4, 4));
  phases_ = new QChartView(phaseChart, this);
  phases_->setRenderHint(QPainter::Antialiasing);
  phases_->setMinimumSize(320, 220);
  addChartExport(phases_, phaseChart->title());
  model_ = new console::ComparisonModel(this);
  table_ = new QTableView(this);
  table_->setModel(model_);
  table_->setItemDelegate(new DeltaDelegate(table_));
  table_->verticalHeader()->hide();
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table_->setAlternatingRowColors(true);

  auto* left = new QWidget(this);
  auto* leftLayout = new QVBoxLayout(left);
  leftLayout->setContentsMargins(0, 0, 0, 0);
  leftLayout->addWidget(list_, 1);
  leftLayout->addWidget(compareButton);
  leftLayout->addWidget(status_);

  auto* charts = new QWidget(this);
  auto* chartRow = new QHBoxLayout;
  chartRow->addWidget(throughput_);
  chartRow->addWidget(stepTime_);
  auto* chartLayout = new QVBoxLayout(charts);
  chartLayout->setContentsMargins(0, 0, 0, 0);
  chartLayout->addLayout(chartRow, 1);
  chartLayout->addWidget(phases_, 1);
  chartLayout->addWidget(table_, 1);

  auto* split = new QSplitter(Qt::Horizontal, this);
  split->setObjectName(QStringLiteral("compareSplit"));
  split->addWidget(left);
  split->addWidget(charts);
  split->setStretchFactor(1, 4);
  split->setSizes({280, 1100});
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(split);

  connect(runs_, &QAbstractItemModel::modelReset, this, &ComparePage::rebuildList);
  connect(compareButton, &QPushButton::clicked, this, [this] {
    std::vector<int64_t> ids;
    for (int i = 0; i < list_->count(); ++i) {
      if (list_->item(i)->checkState() == Qt::Checked)
        ids.push_back(list_->item(i)->data(Qt::UserRole).toLongLong());
    }
    if (ids.size() < 2) {
      status_->setText(tr("Tick at least two runs."));
      return;
    }
    compare(ids);
  });
  const bool dark = isDark(palette());
  throughput_->setDarkTheme(dark);
  stepTime_->setDarkTheme(dark);
  phaseChart->setTheme(dark ? QChart::ChartThemeDark : QChart::ChartThemeLight);
}

void ComparePage::rebuildList() {
  std::vector<int64_t> checked;
  for (int i = 0; i < list_->count(); ++i) {
    if (list_->item(i)->checkState() == Qt::Checked)
      checked.push_back(list_->item(i)->data(Qt::UserRole).toLongLong());
  }
  list_->clear();
  for (int row = 0; row < runs_->rowCount(); ++row) {
    const RunInfo* run = runs_->run(row);
    // "3 · baseline (ddp, 4 ranks)"; an imported run has no engine to name.
    const QString ranks = run->worldSize == 1 ? tr("1 rank") : tr("%1 ranks").arg(run->worldSize);
    const QString detail =
        run->engine.empty() ? ranks : tr("%1, %2").arg(QString::fromStdString(run->engine), ranks);
    auto* item = new QListWidgetItem(
        tr("%1 · %2 (%3)").arg(run->id).arg(QString::fromStdString(run->name), detail), list_);
    item->setData(Qt::UserRole, QVariant::fromValue<qlonglong>(run->id));
    item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
    const bool wasChecked = std::find(checked.begin(), checked.end(), run->id) != checked.end();
    item->setCheckState(wasChecked ? Qt::Checked : Qt::Unchecked);
  }
}

void ComparePage::compare(const std::vector<int64_t>& runIds) {
  status_->setText(tr("Loading %n run(s)…", nullptr, static_cast<int>(runIds.size())));
  store_->post<std::vector<RunMetrics>>(
      this,
      [runIds](RunStore& store) {
        std::vector<RunMetrics> runs;
        for (int64_t id : runIds) runs.push_back(loadMetrics(store, id));
        return runs;
      },
      [this](std::vector<RunMetrics> runs) { showComparison(std::move(runs)); });
}

void ComparePage::showComparison(std::vector<RunMetrics> runs) {
  lines_.clear();
  const bool dark = isDark(palette());
  std::vector<SeriesChart::Line> throughputLines, stepLines;
  double xMax = 10;
  QStringList names;
  for (size_t i = 0; i < runs.size(); ++i) {
    const RunMetrics& run = runs[i];
    const QString name = QStringLiteral("#%1 %2").arg(run.info.id).arg(QString::fromStdString(run.info.name));
    names << name;
    const QColor color = rankColor(static_cast<int>(i), static_cast<int>(runs.size()), dark);
    auto throughput = std::make_unique<console::StepSeries>();
    auto stepTime = std::make_unique<console::StepSeries>();
    for (size_t s = 0; s < run.stepThroughput.size(); ++s)
      throughput->set(s, static_cast<float>(run.stepThroughput[s]));
    for (size_t s = 0; s < run.stepTimesMs.size(); ++s)
      stepTime->set(s, static_cast<float>(run.stepTimesMs[s]));
    throughputLines.push_back({name, throughput.get(), color, -1});
    stepLines.push_back({name, stepTime.get(), color, -1});
    xMax = std::max(
        {xMax, static_cast<double>(run.stepTimesMs.size()), static_cast<double>(run.stepThroughput.size())});
    lines_.push_back(std::move(throughput));
    lines_.push_back(std::move(stepTime));
  }
  for (SeriesChart* chart : {throughput_, stepTime_}) chart->resetAxes();
  throughput_->setLines(std::move(throughputLines));
  stepTime_->setLines(std::move(stepLines));
  throughput_->refresh(0, niceCeil(xMax));
  stepTime_->refresh(0, niceCeil(xMax));

  // Phases: one stacked bar per (run, rank), runs one after another.
  QChart* chart = phases_->chart();
  chart->removeAllSeries();
  for (QAbstractAxis* axis : chart->axes()) {
    chart->removeAxis(axis);
    delete axis;
  }
  auto* bars = new QStackedBarSeries(chart);
  const QString labels[] = {tr("data"), tr("forward"), tr("backward"), tr("exposed comm"), tr("optimizer")};
  QStringList categories;
  std::vector<QBarSet*> sets;
  for (int p = 0; p < 5; ++p) {
    auto* set = new QBarSet(labels[p], bars);
    set->setColor(phaseColor(QString::fromLatin1(kPhaseNames[p])));
    set->setBorderColor(Qt::transparent);
    sets.push_back(set);
  }
  double tallest = 0;
  for (const RunMetrics& run : runs) {
    for (const RankMetrics& rank : run.perRank) {
      categories << tr("#%1 r%2").arg(run.info.id).arg(rank.rank);
      const PhaseTimes& p = rank.phases;
      const double values[] = {p.dataMs, p.forwardMs, p.backwardMs, p.commWaitMs, p.optimizerMs};
      double total = 0;
      for (size_t i = 0; i < 5; ++i) {
        sets[i]->append(values[i]);
        total += values[i];
      }
      tallest = std::max(tallest, total);
    }
  }
  for (QBarSet* set : sets) bars->append(set);
  chart->addSeries(bars);
  auto* x = new QBarCategoryAxis(chart);
  x->append(categories);
  auto* y = new QCategoryAxis(chart);
  y->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
  setRoundTicks(y, 0, niceCeil(std::max(tallest, 1e-3) * 1.05), 5);
  chart->addAxis(x, Qt::AlignBottom);
  chart->addAxis(y, Qt::AlignLeft);
  bars->attachAxis(x);
  bars->attachAxis(y);
  chart->legend()->setAlignment(Qt::AlignRight);

  std::vector<RunComparison> comparisons;
  for (size_t i = 1; i < runs.size(); ++i) comparisons.push_back(compareRuns(runs.front(), runs[i]));
  QStringList verdicts;
  for (const auto& c : comparisons) verdicts << console::translated(c.verdict);
  model_->setComparisons(std::move(comparisons));
  status_->setText(verdicts.join(QStringLiteral("\n")));
  Q_EMIT compared();
}

}  // namespace ringmaster::gui
