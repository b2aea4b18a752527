// SPDX-License-Identifier: GPL-3.0-or-later
#include "gui/pages/dashboard_page.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QCategoryAxis>
#include <QChartView>
#include <QComboBox>
#include <QEvent>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QIdentityProxyModel>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSplitter>
#include <QStackedBarSeries>
#include <QTableView>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <map>

#include "console/models/runs_model.h"
#include "console/models/translated.h"
#include "diagnosis/duration_text.h"
#include "diagnosis/evidence_keys.h"
#include "gui/palette.h"
#include "gui/views/chart_export.h"
#include "gui/views/heatmap_view.h"
#include "gui/views/series_chart.h"

namespace ringmaster::gui {
namespace {

constexpr int kRedrawMs = 40;  // ~25 Hz
constexpr int kPhaseRefreshMs = 400;
// The measured phases, then what the step took beyond them.
const char* const kPhaseNames[] = {"DATA", "FORWARD", "BACKWARD", "COMM_WAIT", "OPTIMIZER", "OTHER"};
constexpr int kPhaseCount = 6;
constexpr int kPhaseIntervals = 5;

// The ranks table with a failed rank's row in the failure colour.
class RankStateColours : public QIdentityProxyModel {
 public:
  using QIdentityProxyModel::QIdentityProxyModel;
  QVariant data(const QModelIndex& index, int role) const override {
    if (role == Qt::BackgroundRole || role == Qt::ForegroundRole) {
      if (QIdentityProxyModel::data(index, console::RanksModel::FailedRole).toBool()) {
        const bool dark = isDark(QPalette());
        return role == Qt::BackgroundRole ? failureColor(dark) : failureTextColor(dark);
      }
    }
    return QIdentityProxyModel::data(index, role);
  }
};

}  // namespace

DashboardPage::DashboardPage(QWidget* parent) : QWidget(parent) {
  createRunControls();
  createRanksTable();
  createCharts();
  createPhaseChart();
  layOut();
  connectSignals();
  applyTheme();
}

void DashboardPage::createRunControls() {
  title_ = new QLabel(tr("No run selected. Launch one or open a past run from Runs."), this);
  QFont bold = title_->font();
  bold.setBold(true);
  title_->setFont(bold);
  rankPicker_ = new QComboBox(this);
  rankPicker_->setObjectName(QStringLiteral("rankPicker"));
  rankPicker_->setToolTip(tr("Highlight one rank in every chart"));
  allreduceBy_ = new QComboBox(this);
  // Their items come with each run: as wide as those, whatever the language.
  for (QComboBox* picker : {rankPicker_, allreduceBy_})
    picker->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  allreduceBy_->addItem(tr("All-reduce per rank"));
  allreduceBy_->addItem(tr("All-reduce per bucket"));
  stop_ = new QPushButton(tr("Stop run"), this);
  timeline_ = new QPushButton(tr("Record timeline"), this);
  timeline_->setCheckable(true);
  stop_->setEnabled(false);
  timeline_->setEnabled(false);

  hosts_ = new QLabel(this);
  hosts_->setObjectName(QStringLiteral("runHosts"));
  // On a narrow screen the run's name and hosts wrap rather than widen the window past it.
  for (QLabel* label : {title_, hosts_}) label->setWordWrap(true);
  title_->setObjectName(QStringLiteral("runTitle"));
  stop_->setObjectName(QStringLiteral("stopRun"));
  hosts_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  hosts_->hide();
  progress_ = new QProgressBar(this);
  progress_->setObjectName(QStringLiteral("runProgress"));
  progress_->setTextVisible(false);
  progress_->setMaximumWidth(240);
  progressText_ = new QLabel(this);
  progressText_->setObjectName(QStringLiteral("runProgressText"));
  progress_->hide();
  progressText_->hide();
}

void DashboardPage::createRanksTable() {
  ranksModel_ = new console::RanksModel(this);
  auto* coloured = new RankStateColours(this);
  coloured->setSourceModel(ranksModel_);
  ranksView_ = new QTableView(this);
  ranksView_->setObjectName(QStringLiteral("ranksTable"));
  ranksView_->setModel(coloured);
  ranksView_->setSelectionBehavior(QAbstractItemView::SelectRows);
  ranksView_->setSelectionMode(QAbstractItemView::SingleSelection);
  ranksView_->verticalHeader()->hide();
  ranksView_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  // Columns as wide as the rows in sight need: measuring a thousand ranks' rows on every update would cost
  // more than the charts.
  ranksView_->horizontalHeader()->setResizeContentsPrecision(0);
  ranksView_->setAlternatingRowColors(true);
}

void DashboardPage::createCharts() {
  throughput_ = new SeriesChart(tr("Throughput"), tr("samples/s"), this);
  latency_ = new SeriesChart(tr("All-reduce latency"), tr("ms"), this);
  busbw_ = new SeriesChart(tr("All-reduce bus bandwidth"), tr("GB/s"), this);
  memory_ = new SeriesChart(tr("Memory per rank (RSS)"), tr("MiB"), this);
  loss_ = new SeriesChart(tr("Loss"), {}, this);  // the title says what the axis holds
  heatmap_ = new HeatmapView(this);
}

void DashboardPage::createPhaseChart() {
  auto* phaseChart = new QChart();
  phaseChart->setTitle(tr("Step phases per rank (mean ms)"));
  phaseChart->setMargins(QMargins(4, 4, 4, 4));
  phaseChart->setBackgroundRoundness(0);
  phaseSeries_ = new QStackedBarSeries(phaseChart);
  const QString phaseLabels[] = {tr("data"),         tr("forward"),   tr("backward"),
                                 tr("exposed comm"), tr("optimizer"), tr("other")};
  for (int i = 0; i < kPhaseCount; ++i) {
    auto* set = new QBarSet(phaseLabels[i], phaseSeries_);
    set->setColor(phaseColor(QString::fromLatin1(kPhaseNames[i])));
    set->setBorderColor(Qt::transparent);
    phaseSeries_->append(set);
  }
  phaseSeries_->setBarWidth(0.8);
  phaseChart->addSeries(phaseSeries_);
  phaseRanks_ = new QBarCategoryAxis(phaseChart);
  phaseMs_ = new QCategoryAxis(phaseChart);
  phaseMs_->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
  setRoundTicks(phaseMs_, 0, 1, kPhaseIntervals);
  phaseChart->addAxis(phaseRanks_, Qt::AlignBottom);
  phaseChart->addAxis(phaseMs_, Qt::AlignLeft);
  phaseSeries_->attachAxis(phaseRanks_);
  phaseSeries_->attachAxis(phaseMs_);
  // Six phase names do not fit under a chart a third of the window wide: they stand beside it.
  phaseChart->legend()->setAlignment(Qt::AlignRight);
  phases_ = new QChartView(phaseChart, this);
  phases_->setRenderHint(QPainter::Antialiasing, true);
  phases_->setMinimumSize(SeriesChart::kMinimumSize);
  addChartExport(phases_, phaseChart->title());
}

void DashboardPage::layOut() {
  auto* bar = new QHBoxLayout;
  auto* titles = new QVBoxLayout;
  titles->setSpacing(0);
  titles->addWidget(title_);
  titles->addWidget(hosts_);
  bar->addLayout(titles, 1);
  bar->addWidget(progress_);
  bar->addWidget(progressText_);
  bar->addWidget(rankPicker_);
  bar->addWidget(allreduceBy_);
  bar->addWidget(timeline_);
  bar->addWidget(stop_);

  auto* charts = new QWidget(this);
  auto* grid = new QGridLayout(charts);
  grid->setContentsMargins(0, 0, 0, 0);
  grid->addWidget(throughput_, 0, 0);
  grid->addWidget(loss_, 0, 1);
  grid->addWidget(phases_, 0, 2);
  grid->addWidget(latency_, 1, 0);
  grid->addWidget(busbw_, 1, 1);
  grid->addWidget(memory_, 1, 2);
  grid->addWidget(heatmap_, 2, 0, 1, 3);
  grid->setRowStretch(0, 3);
  grid->setRowStretch(1, 3);
  grid->setRowStretch(2, 2);

  // The ranks table spans the window above the charts, so every column shows.
  split_ = new QSplitter(Qt::Vertical, this);
  split_->setObjectName(QStringLiteral("dashboardRanksSplit"));
  split_->addWidget(ranksView_);
  split_->addWidget(charts);
  split_->setStretchFactor(1, 4);
  split_->setSizes({100, 750});

  auto* layout = new QVBoxLayout(this);
  layout->addLayout(bar);
  layout->addWidget(split_, 1);
}

void DashboardPage::connectSignals() {
  connect(&timer_, &QTimer::timeout, this, [this] {
    if (dirty_ && isVisible()) redraw();
  });
  timer_.start(kRedrawMs);
  connect(rankPicker_, qOverload<int>(&QComboBox::activated), this,
          [this](int index) { Q_EMIT rankSelected(rankPicker_->itemData(index).toInt()); });
  connect(allreduceBy_, qOverload<int>(&QComboBox::activated), this, [this] {
    rankCount_ = -1;  // rebuild the lines
    redraw();
  });
  connect(ranksView_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this](const QModelIndex& current) {
            if (current.isValid()) Q_EMIT rankSelected(current.data(console::RanksModel::RankRole).toInt());
          });
  connect(heatmap_, &HeatmapView::rankClicked, this, &DashboardPage::rankSelected);
  connect(stop_, &QPushButton::clicked, this, &DashboardPage::stopRequested);
  connect(timeline_, &QPushButton::toggled, this, &DashboardPage::timelineRecordingToggled);
}

void DashboardPage::changeEvent(QEvent* event) {
  if (event->type() == QEvent::PaletteChange) applyTheme();
  QWidget::changeEvent(event);
}

void DashboardPage::applyTheme() {
  const bool dark = isDark(palette());
  for (SeriesChart* c : {throughput_, latency_, busbw_, memory_, loss_}) c->setDarkTheme(dark);
  showAccuracy();  // a theme gives every series its own pens
  phases_->chart()->setTheme(dark ? QChart::ChartThemeDark : QChart::ChartThemeLight);
  const auto sets = phaseSeries_->barSets();
  for (int i = 0; i < sets.size(); ++i) {
    sets[i]->setColor(phaseColor(QString::fromLatin1(kPhaseNames[i])));
    sets[i]->setBorderColor(Qt::transparent);
  }
  rankCount_ = -1;
  dirty_ = true;
}

QString DashboardPage::statusText(const QString& status) {
  return console::RunsModel::statusText(status);
}

void DashboardPage::sayWhenEmpty() {
  // A live run's charts wait for its first steps; an ended run's empty chart is a figure it never measured.
  const QString text = heading_.live ? tr("no steps yet") : tr("not measured");
  for (SeriesChart* chart : {throughput_, loss_, latency_, busbw_, memory_}) chart->setEmptyText(text);
}

void DashboardPage::showTitle() {
  if (!run_) {
    title_->setText(tr("No run selected. Launch one or open a past run from Runs."));
    return;
  }
  const QString name = heading_.name.isEmpty() ? tr("unnamed run") : heading_.name;
  title_->setText(heading_.live
                      ? tr("Run %1 · %2 · live").arg(heading_.runId).arg(name)
                      : tr("Run %1 · %2 · %3").arg(heading_.runId).arg(name, statusText(heading_.status)));
}

QString DashboardPage::titleText() const {
  return title_->text();
}

QString DashboardPage::progressText() const {
  return progressText_->isVisibleTo(this) ? progressText_->text() : QString();
}

void DashboardPage::runEnded(const QString& status) {
  heading_.live = false;
  heading_.status = status;
  showTitle();
  sayWhenEmpty();
  stop_->setEnabled(false);
  timeline_->setEnabled(false);
  progressFromRecords();
  // The phase axis only grew while live (first steps are slow): fit it to the whole run now.
  phaseMax_ = 0;
  phasesRefreshed_.invalidate();
  dirty_ = true;
}

void DashboardPage::setProgress(const console::ProgressSnapshot& progress) {
  if (!run_) return;
  const uint64_t total = heading_.totalSteps > 0 ? heading_.totalSteps : progress.totalSteps;
  const uint64_t done = total > 0 ? std::min(progress.step, total) : progress.step;
  progress_->setVisible(total > 0);
  if (total > 0) {
    // QProgressBar counts in int: steps beyond that are shown in thousandths.
    progress_->setRange(0, 1000);
    progress_->setValue(static_cast<int>(1000 * done / total));
  }
  QString text = total > 0 ? tr("Step %1 of %2").arg(done).arg(total) : tr("Step %1").arg(done);
  // At the last step the ranks are still saving and saying goodbye: nothing is left to estimate.
  if (heading_.live && total > 0 && done >= total)
    text += tr(" · finishing");
  else if (heading_.live && total > 0 && progress.etaS >= 0)
    text += tr(" · ETA %1").arg(console::translated(elapsedSentence(progress.etaS)));
  progressText_->setText(text);
  progressText_->setVisible(true);
}

void DashboardPage::progressFromRecords() {
  if (!run_) return;
  console::ProgressSnapshot snap;
  const auto rows = run_->rankRows();
  for (size_t i = 0; i < rows.size(); ++i)
    snap.step = i == 0 ? rows[i].steps : std::min(snap.step, rows[i].steps);
  snap.totalSteps = heading_.totalSteps;
  setProgress(snap);
}

void DashboardPage::setRun(console::RunData* run, const RunHeading& heading) {
  run_ = run;
  heading_ = heading;
  showTitle();
  sayWhenEmpty();
  QStringList hosts;
  if (run) {
    for (const auto& [host, facts] : run->hosts)
      hosts << console::translated(console::hostSentence(host, facts));
  }
  // A line for a few hosts; all of them in the tooltip.
  constexpr int kHostsShown = 2;
  QString line = QStringList(hosts.mid(0, kHostsShown)).join(QStringLiteral(" · "));
  if (hosts.size() > kHostsShown)
    line += tr(" · and %n more host(s)", nullptr, int(hosts.size() - kHostsShown));
  hosts_->setText(line);
  hosts_->setToolTip(hosts.join(QLatin1Char('\n')));
  hosts_->setVisible(!hosts.isEmpty());
  const bool live = run && heading.live;
  stop_->setEnabled(live);
  timeline_->setEnabled(live);
  rankCount_ = -1;
  windowFrom_ = windowTo_ = 0;
  phaseMax_ = 0;
  // Nothing of the previous run is drawn on this one's axes: its leak trends, memory limit, restarts.
  setFindings({});
  for (SeriesChart* c : {throughput_, latency_, busbw_, memory_, loss_}) c->resetAxes();
  showAccuracy();
  if (!run) {
    for (SeriesChart* c : {throughput_, latency_, busbw_, memory_, loss_}) c->setLines({});
    ranksModel_->setRows({});
    heatmap_->clear();
    progress_->hide();
    progressText_->hide();
  } else {
    progressFromRecords();
  }
  dirty_ = true;
  redraw();
}

void DashboardPage::highlightRank(int rank) {
  highlighted_ = rank;
  for (SeriesChart* c : {throughput_, latency_, busbw_, memory_, loss_}) c->highlightRank(rank);
  heatmap_->highlightRank(rank);
  const int pick = rankPicker_->findData(rank);
  if (pick >= 0) rankPicker_->setCurrentIndex(pick);
  const auto& rows = ranksModel_->rows();
  for (size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].rank == rank && ranksView_->currentIndex().row() != static_cast<int>(i)) {
      ranksView_->selectRow(static_cast<int>(i));
    }
  }
  if (rank < 0) ranksView_->clearSelection();
  selectPhaseBar();
  // With many ranks the phase chart shows the highlighted rank among its few.
  if (rankCount_ > console::kRanksDrawnOneByOne) phasesRefreshed_.invalidate();
}

void DashboardPage::setFindings(const std::vector<v1::Finding>& findings) {
  std::vector<SeriesChart::Trend> trends;
  double limit = std::nan("");
  double highest = 0;
  for (const v1::Finding& f : findings) {
    if (f.kind() != v1::Finding::KIND_MEMORY_LEAK) continue;
    const auto& ev = f.evidence();
    const auto slope = ev.find(diagnosis::evidence::kMibPerStep);
    const auto intercept = ev.find(diagnosis::evidence::kInterceptMib);
    if (slope == ev.end() || intercept == ev.end()) continue;
    const int ranks = run_ ? run_->series.rankCount() : f.rank() + 1;
    trends.push_back({tr("rank %1 trend").arg(f.rank()), intercept->second, slope->second,
                      static_cast<double>(f.since_step()),
                      rankColor(f.rank(), ranks, isDark(palette())).darker(130)});
    const auto last = ev.find(diagnosis::evidence::kLastMib);
    if (last != ev.end()) highest = std::max(highest, last->second);
    const auto cap = ev.find(diagnosis::evidence::kLimitMib);
    if (cap != ev.end()) limit = cap->second;
  }
  // Each restart (--max-restarts) as a vertical line at the step its new attempt resumed from.
  std::vector<double> restarts;
  for (const v1::Finding& f : findings) {
    if (f.kind() == v1::Finding::KIND_RESTART && f.evidence().count(diagnosis::evidence::kResumedFromStep))
      restarts.push_back(static_cast<double>(f.since_step()));
  }
  std::sort(restarts.begin(), restarts.end());
  for (SeriesChart* c : {throughput_, latency_, busbw_, memory_, loss_})
    c->setMarkers(restarts, tr("restart"));
  memory_->setTrends(std::move(trends));
  // With many ranks the charts draw their spread: the ranks the findings name keep their own lines over it.
  std::vector<int> named;
  for (const v1::Finding& f : findings) {
    if (f.rank() >= 0 && f.severity() >= v1::Finding::SEVERITY_WARNING) named.push_back(f.rank());
  }
  for (SeriesChart* c : {throughput_, latency_, busbw_, memory_}) c->setNamedRanks(named);
  namedRanks_ = std::move(named);
  // The limit line only when it is within sight: far above, it would flatten every line.
  const bool near = !std::isnan(limit) && highest > 0 && limit < 3 * highest;
  memory_->setLimit(near ? limit : std::nan(""), tr("memory limit"));
  dirty_ = true;
}

void DashboardPage::showSteps(uint64_t from, uint64_t to) {
  windowFrom_ = from;
  windowTo_ = to;
  dirty_ = true;
  redraw();
}

void DashboardPage::rebuildLines() {
  auto& s = run_->series;
  const int ranks = s.rankCount();
  const bool dark = isDark(palette());
  std::vector<SeriesChart::Line> throughput, latency, busbw, memory;
  // The ranks' total beside a few ranks' lines; beside the spread of many ranks, a hundred times higher, it
  // goes on an axis of its own (showTotalThroughput).
  if (ranks <= console::kRanksDrawnOneByOne)
    throughput.push_back(
        {tr("total"), &s.totalThroughput(), dark ? QColor(Qt::white) : QColor(Qt::black), -1});
  totalTop_ = 0;
  throughput_->setSideLine(QString(), {}, 0, 1, QColor());
  for (int r = 0; r < ranks; ++r) {
    const QColor color = rankColor(r, ranks, dark);
    const QString name = tr("rank %1").arg(r);
    throughput.push_back({name, &s.rank(r, console::RankMetric::Throughput), color, r});
    memory.push_back({name, &s.rank(r, console::RankMetric::RssMb), color, r});
  }
  const bool byBucket = allreduceBy_->currentIndex() == 1;
  if (byBucket) {
    const auto buckets = s.buckets();
    for (size_t i = 0; i < buckets.size(); ++i) {
      const QColor color = rankColor(static_cast<int>(i), static_cast<int>(buckets.size()), dark);
      const QString name = tr("bucket %1").arg(buckets[i]);
      latency.push_back({name, &s.bucketLatency(buckets[i]), color, -1});
      busbw.push_back({name, &s.bucketBusbw(buckets[i]), color, -1});
    }
  } else {
    for (int r = 0; r < ranks; ++r) {
      const QColor color = rankColor(r, ranks, dark);
      const QString name = tr("rank %1").arg(r);
      latency.push_back({name, &s.rank(r, console::RankMetric::AllreduceLatencyMs), color, r});
      busbw.push_back({name, &s.rank(r, console::RankMetric::AllreduceBusbwGbps), color, r});
    }
  }
  // Built-in models report their loss every step; a user's program when it logs one.
  std::vector<SeriesChart::Line> loss;
  if (!s.loss().empty())
    loss.push_back(
        {tr("loss, mean over ranks"), &s.loss(), dark ? QColor(Qt::white) : QColor(Qt::black), -1});
  lossLines_ = loss.size();
  loss_->setLines(std::move(loss));
  throughput_->setLines(std::move(throughput));
  latency_->setLines(std::move(latency));
  busbw_->setLines(std::move(busbw));
  memory_->setLines(std::move(memory));
  // The charts draw the ranks' spread only beyond kRanksDrawnOneByOne ranks: with fewer, nothing computes it.
  const bool spreads = ranks > console::kRanksDrawnOneByOne;
  auto spreadOf = [&](console::RankMetric m, bool wanted) {
    return spreads && wanted ? &s.spread(m) : nullptr;
  };
  throughput_->setSpread(spreadOf(console::RankMetric::Throughput, true));
  latency_->setSpread(spreadOf(console::RankMetric::AllreduceLatencyMs, !byBucket));
  busbw_->setSpread(spreadOf(console::RankMetric::AllreduceBusbwGbps, !byBucket));
  memory_->setSpread(spreadOf(console::RankMetric::RssMb, true));

  rankPicker_->clear();
  rankPicker_->addItem(tr("All ranks"), -1);
  for (int r = 0; r < ranks; ++r) rankPicker_->addItem(tr("Rank %1").arg(r), r);
  phaseBars_.clear();  // refreshPhases() picks them
  if (ranks != tableSizedFor_) {
    tableSizedFor_ = ranks;
    // The table as tall as a few ranks need; more scroll, and the charts keep the rest.
    const int rows = std::clamp(ranks, 1, 4);
    const int height = ranksView_->horizontalHeader()->sizeHint().height() +
                       rows * ranksView_->verticalHeader()->defaultSectionSize() +
                       2 * ranksView_->frameWidth() + 2;
    const QList<int> sizes = split_->sizes();
    const int total = sizes.size() == 2 && sizes[0] + sizes[1] > height ? sizes[0] + sizes[1] : 850;
    split_->setSizes({height, total - height});
  }
  rankCount_ = ranks;
  bucketCount_ = s.buckets().size();
  phasesRefreshed_.invalidate();
  highlightRank(highlighted_);
}

// The test accuracy after each epoch (or whenever a program logs one) beside the loss, in percent on an
// axis of its own.
void DashboardPage::showAccuracy() {
  QList<QPointF> points;
  if (run_) {
    for (const auto& [step, percent] : run_->accuracy.percent())
      points.append(QPointF(double(step), percent));
  }
  accuracyValues_ = run_ ? run_->accuracy.values() : 0;
  loss_->setSideLine(tr("test accuracy (%)"), points, 0, 100, accuracyColor(isDark(palette())));
}

void DashboardPage::showTotalThroughput(double x0, double x1) {
  const console::PixelGrid grid{x0, x1,
                                std::max(10, static_cast<int>(throughput_->chart()->plotArea().width()))};
  console::StepSeries& total = run_->series.totalThroughput();
  const QList<QPointF>& points = total.decimated(grid);
  const auto extent = total.extent(static_cast<uint64_t>(std::max(0.0, x0)), static_cast<uint64_t>(x1));
  // Like the other axes, it only widens.
  if (!extent.empty() && extent.max > totalTop_) totalTop_ = niceCeil(extent.max * 1.05);
  throughput_->setSideLine(tr("total"), points, 0, std::max(totalTop_, 1.0),
                           isDark(palette()) ? QColor(Qt::white) : QColor(Qt::black),
                           SeriesChart::SideLine::Series);
}

std::vector<DashboardPage::PhaseBar> DashboardPage::phaseBarsFor(uint64_t from, uint64_t to) const {
  std::vector<PhaseBar> bars;
  if (rankCount_ <= console::kRanksDrawnOneByOne) {
    for (int r = 0; r < rankCount_; ++r) bars.push_back({r, QString::number(r)});
    return bars;
  }
  // Many ranks: the fastest, the median and the slowest by their mean own time over the steps shown, in that
  // order, then the ranks the findings name or the user picked; a bar per rank would be a pixel wide.
  std::vector<std::pair<double, int>> bySteps;
  for (int r = 0; r < rankCount_; ++r) {
    // By its own time (compute and data): the all-reduce makes every rank's step as long as the slowest's.
    const double compute = run_->series.rank(r, console::RankMetric::ComputeMs).mean(from, to);
    const double data = run_->series.rank(r, console::RankMetric::DataMs).mean(from, to);
    if (!std::isnan(compute)) bySteps.emplace_back(compute + (std::isnan(data) ? 0 : data), r);
  }
  std::sort(bySteps.begin(), bySteps.end());
  if (!bySteps.empty()) {
    for (const auto& [ms, rank] : {bySteps.front(), bySteps[bySteps.size() / 2], bySteps.back()}) {
      if (bars.empty() || bars.back().rank != rank) bars.push_back({rank, QString::number(rank)});
    }
  }
  std::vector<int> more = namedRanks_;
  if (highlighted_ >= 0 && highlighted_ < rankCount_) more.push_back(highlighted_);
  std::sort(more.begin(), more.end());
  for (int rank : more) {
    if (std::none_of(bars.begin(), bars.end(), [&](const PhaseBar& b) { return b.rank == rank; }))
      bars.push_back({rank, QString::number(rank)});
  }
  return bars;
}

void DashboardPage::refreshPhases(uint64_t from, uint64_t to) {
  std::vector<PhaseBar> picked = phaseBarsFor(from, to);
  if (picked != phaseBars_) {
    phaseBars_ = std::move(picked);
    QStringList categories;
    for (const PhaseBar& bar : phaseBars_) categories << bar.label;
    phaseRanks_->clear();
    phaseRanks_->append(categories);
    // Four-digit ranks under narrow bars read standing up.
    phaseRanks_->setLabelsAngle(rankCount_ > console::kRanksDrawnOneByOne ? -90 : 0);
    phaseRanks_->setTitleText(
        rankCount_ > console::kRanksDrawnOneByOne ? tr("fastest, median, slowest, named") : QString());
  }
  const auto sets = phaseSeries_->barSets();
  double tallest = 0;
  // Per phase, every bar: a set is replaced whole when any of its bars changed (each change on its own would
  // lay the chart out again, as many times as there are bars).
  std::vector<QList<qreal>> bars(static_cast<size_t>(sets.size()));
  for (const PhaseBar& bar : phaseBars_) {
    std::vector<double> means = run_->series.phaseMeans(bar.rank, from, to);
    double measured = 0;
    for (double& v : means) {
      if (std::isnan(v)) v = 0;
      measured += v;
    }
    // "Other": the step's wall time the phases do not cover (a leaking rank's allocator, the probe, Python).
    const double step = run_->series.rank(bar.rank, console::RankMetric::StepMs).mean(from, to);
    means.push_back(std::isnan(step) ? 0 : std::max(0.0, step - measured));
    double total = 0;
    for (size_t i = 0; i < means.size() && i < bars.size(); ++i) {
      bars[i].append(means[i]);
      total += means[i];
    }
    tallest = std::max(tallest, total);
  }
  bool replaced = false;
  for (qsizetype i = 0; i < sets.size(); ++i) {
    QBarSet* set = sets[i];
    const QList<qreal>& values = bars[static_cast<size_t>(i)];
    bool same = set->count() == values.size();
    for (qsizetype b = 0; same && b < values.size(); ++b) same = set->at(b) == values[b];
    if (same) continue;
    set->remove(0, set->count());
    set->append(values);
    replaced = true;
  }
  if (replaced) selectPhaseBar();
  if (tallest > phaseMax_) {
    phaseMax_ = niceCeil(tallest * 1.05);
    setRoundTicks(phaseMs_, 0, phaseMax_, kPhaseIntervals);
  }
}

void DashboardPage::selectPhaseBar() {
  const auto it = std::find_if(phaseBars_.begin(), phaseBars_.end(),
                               [&](const PhaseBar& bar) { return bar.rank == highlighted_; });
  const int index =
      highlighted_ >= 0 && it != phaseBars_.end() ? static_cast<int>(it - phaseBars_.begin()) : -1;
  for (QBarSet* set : phaseSeries_->barSets()) {
    set->deselectAllBars();
    if (index >= 0 && index < set->count()) set->selectBar(index);
    set->setSelectedColor(set->color().lighter(140));
  }
}

std::pair<double, double> DashboardPage::stepRange() const {
  if (windowTo_ > windowFrom_) return {static_cast<double>(windowFrom_), static_cast<double>(windowTo_)};
  const double end = run_ ? static_cast<double>(run_->series.endStep()) : 0;
  // The job's step count when it is known; a run that ended, its own; otherwise the axis grows in round
  // steps ahead of the data, so it does not move with every step.
  double last = niceCeil(std::max(10.0, end * 1.05));
  if (heading_.totalSteps > 0)
    last = std::max(static_cast<double>(heading_.totalSteps), end);
  else if (!heading_.live && end > 0)
    last = end;
  const double first = static_cast<double>(windowFrom_);
  return {first < last ? first : 0, last};
}

qsizetype DashboardPage::redraw() {
  dirty_ = false;
  if (!run_) return 0;
  auto& s = run_->series;
  if (s.rankCount() != rankCount_ || s.buckets().size() != bucketCount_ ||
      lossLines_ != (s.loss().empty() ? 0u : 1u))
    rebuildLines();
  const auto [x0, x1] = stepRange();
  qsizetype pushed = 0;
  if (run_->accuracy.values() != accuracyValues_) showAccuracy();
  // The spreads the charts draw, brought up to date with the steps that arrived.
  if (rankCount_ > console::kRanksDrawnOneByOne) {
    for (console::RankMetric m : console::kChartedMetrics) s.spread(m);
  }
  for (SeriesChart* c : {throughput_, latency_, busbw_, memory_, loss_}) pushed += c->refresh(x0, x1);
  if (rankCount_ > console::kRanksDrawnOneByOne) showTotalThroughput(x0, x1);
  const std::pair<uint64_t, uint64_t> window{static_cast<uint64_t>(x0), static_cast<uint64_t>(x1)};
  if (window != phasesWindow_ || !phasesRefreshed_.isValid() ||
      phasesRefreshed_.elapsed() >= kPhaseRefreshMs) {
    refreshPhases(window.first, window.second);
    phasesWindow_ = window;
    phasesRefreshed_.start();
  }
  heatmap_->refresh(s, x0, x1);
  ranksModel_->setRows(run_->rankRows(heading_.live ? console::RunData::RankWindow::LastSteps
                                                    : console::RunData::RankWindow::WholeRun));
  return pushed;
}

}  // namespace ringmaster::gui
