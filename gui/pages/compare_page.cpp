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
#include <QSignalBlocker>
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
  list_->setToolTip(tr("Tick two or more runs; the first you tick is the baseline"));
  compareButton_ = new QPushButton(tr("Compare"), this);
  status_ = new QLabel(tr("Tick two or more runs, then Compare."), this);
  status_->setWordWrap(true);
  // The verdict heads the comparison, in the reader's eye line.
  verdict_ = new QLabel(this);
  verdict_->setObjectName(QStringLiteral("compareVerdict"));
  verdict_->setWordWrap(true);
  verdict_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  QFont verdictFont = verdict_->font();
  verdictFont.setBold(true);
  verdictFont.setPointSizeF(verdictFont.pointSizeF() * 1.2);
  verdict_->setFont(verdictFont);
  verdict_->hide();
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
  leftLayout->addWidget(compareButton_);
  leftLayout->addWidget(status_);

  auto* charts = new QWidget(this);
  auto* chartRow = new QHBoxLayout;
  chartRow->addWidget(throughput_);
  chartRow->addWidget(stepTime_);
  auto* chartLayout = new QVBoxLayout(charts);
  chartLayout->setContentsMargins(0, 0, 0, 0);
  chartLayout->addWidget(verdict_);
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
  connect(list_, &QListWidget::itemChanged, this, &ComparePage::tickChanged);
  connect(compareButton_, &QPushButton::clicked, this, [this] {
    if (ticked_.size() < 2) {
      status_->setText(tr("Tick at least two runs."));
      return;
    }
    compare(ticked_);
  });
  const bool dark = isDark(palette());
  throughput_->setDarkTheme(dark);
  stepTime_->setDarkTheme(dark);
  phaseChart->setTheme(dark ? QChart::ChartThemeDark : QChart::ChartThemeLight);
}

void ComparePage::rebuildList() {
  // The ticks survive a refresh, in their order; runs that left the history leave the list of ticks.
  const QSignalBlocker quiet(list_);
  list_->clear();
  std::vector<int64_t> listed;
  for (int row = 0; row < runs_->rowCount(); ++row) {
    const RunInfo* run = runs_->run(row);
    listed.push_back(run->id);
    auto* item = new QListWidgetItem(list_);
    item->setData(Qt::UserRole, QVariant::fromValue<qlonglong>(run->id));
    item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
    const bool wasTicked = std::find(ticked_.begin(), ticked_.end(), run->id) != ticked_.end();
    item->setCheckState(wasTicked ? Qt::Checked : Qt::Unchecked);
  }
  ticked_.erase(
      std::remove_if(ticked_.begin(), ticked_.end(),
                     [&](int64_t id) { return std::find(listed.begin(), listed.end(), id) == listed.end(); }),
      ticked_.end());
  markBaseline();
}

void ComparePage::tickChanged(QListWidgetItem* item) {
  const int64_t id = item->data(Qt::UserRole).toLongLong();
  const auto at = std::find(ticked_.begin(), ticked_.end(), id);
  if (item->checkState() == Qt::Checked && at == ticked_.end()) ticked_.push_back(id);
  if (item->checkState() != Qt::Checked && at != ticked_.end()) ticked_.erase(at);
  markBaseline();
}

// Each run's line, the baseline named as such: "3 · baseline (ddp, 4 ranks) · baseline".
void ComparePage::markBaseline() {
  const QSignalBlocker quiet(list_);
  // The list holds the runs model's rows in its order (rebuildList).
  for (int i = 0; i < list_->count() && i < runs_->rowCount(); ++i) {
    QListWidgetItem* item = list_->item(i);
    const RunInfo* run = runs_->run(i);
    // An imported run has no engine to name.
    const QString ranks = run->worldSize == 1 ? tr("1 rank") : tr("%1 ranks").arg(run->worldSize);
    const QString detail =
        run->engine.empty() ? ranks : tr("%1, %2").arg(QString::fromStdString(run->engine), ranks);
    QString text = tr("%1 · %2 (%3)").arg(run->id).arg(QString::fromStdString(run->name), detail);
    const bool baseline = !ticked_.empty() && ticked_.front() == run->id;
    if (baseline) text = tr("%1 · baseline").arg(text);
    item->setText(text);
    QFont font = item->font();
    font.setBold(baseline);
    item->setFont(font);
  }
}

QString ComparePage::verdictText() const {
  return verdict_->isVisibleTo(this) ? verdict_->text() : QString();
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
  verdict_->setText(verdicts.join(QStringLiteral("\n")));
  verdict_->setVisible(!verdicts.isEmpty());
  status_->setText(tr("Baseline: %1").arg(names.value(0)));
  Q_EMIT compared();
}

}  // namespace ringmaster::gui
