// SPDX-License-Identifier: GPL-3.0-or-later
// The dashboard and the Runs and Compare pages in daily use, offscreen, against real runs through the
// embedded agent: step axes that span the job's known step count (live and reopened) with round ticks and SI
// labels, the title and the stop button saying whether the run is live or how it ended, progress and ETA, the
// loss chart, the ranks table with compute and wait (a failed rank coloured), the "other" share of a step,
// legends that are not cut, and runs started from the CLI appearing on their own. Screenshots go to
// build/screenshots/dashboard_*.png, in English and Chinese.
#include <gtest/gtest.h>

#include <QAbstractItemModel>
#include <QBarSet>
#include <QCategoryAxis>
#include <QChart>
#include <QChartView>
#include <QDir>
#include <QFile>
#include <QGraphicsScene>
#include <QGraphicsTextItem>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QListWidget>
#include <QProgressBar>
#include <QPushButton>
#include <QStackedBarSeries>
#include <QTableView>
#include <QTranslator>
#include <algorithm>
#include <cmath>
#include <map>
#include <memory>

#include "common/quantiles.h"
#include "console/models/axis_scale.h"
#include "console/reports/report.h"
#include "gui/main_window.h"
#include "gui/pages/compare_page.h"
#include "gui/pages/dashboard_page.h"
#include "gui/pages/runs_page.h"
#include "gui/palette.h"
#include "gui/translations.h"
#include "gui/views/heatmap_view.h"
#include "gui/views/series_chart.h"
#include "history/run_store.h"
#include "tests/gui/open_run.h"
#include "tests/support/agent_test_support.h"
#include "tests/support/console_test.h"
#include "tests/support/files.h"
#include "tests/support/process.h"

namespace ringmaster::gui {
namespace {

constexpr int kRunTimeoutMs = 240'000;

QString screenshotDir() {
  return QStringLiteral(RM_BUILD_DIR "/screenshots");
}

// The labels of an axis with where each stands.
std::vector<std::pair<QString, double>> ticksOf(QCategoryAxis* axis) {
  std::vector<std::pair<QString, double>> ticks;
  for (const QString& label : axis->categoriesLabels()) ticks.emplace_back(label, axis->endValue(label));
  return ticks;
}

// Ticks a reader can count in: evenly spaced by 1, 2 or 5 x 10^k, each label the tick's value with an SI
// prefix and no exponent.
void expectRoundTicks(QCategoryAxis* axis, const std::string& what) {
  const auto ticks = ticksOf(axis);
  ASSERT_GE(ticks.size(), 2u) << what;
  const double step = ticks[1].second - ticks[0].second;
  const double mantissa = step / std::pow(10.0, std::floor(std::log10(step)));
  EXPECT_TRUE(std::abs(mantissa - 1) < 1e-6 || std::abs(mantissa - 2) < 1e-6 || std::abs(mantissa - 5) < 1e-6)
      << what << ": tick step " << step;
  for (size_t i = 0; i < ticks.size(); ++i) {
    EXPECT_NEAR(ticks[i].second, ticks[0].second + step * static_cast<double>(i), step * 1e-6) << what;
    EXPECT_EQ(ticks[i].first.toStdString(), console::siNumber(ticks[i].second, step)) << what;
    EXPECT_FALSE(ticks[i].first.contains(QLatin1Char('e'))) << what << ": " << ticks[i].first.toStdString();
    EXPECT_GE(ticks[i].second, axis->min() - step * 1e-6) << what;
    EXPECT_LE(ticks[i].second, axis->max() + step * 1e-6) << what;
  }
}

// Every piece of text a chart draws (titles, axis labels, legend entries) that was cut short.
QStringList elidedTexts(QChartView* view) {
  QStringList elided;
  for (QGraphicsItem* item : view->scene()->items()) {
    auto* text = dynamic_cast<QGraphicsTextItem*>(item);
    // Qt Charts cuts what does not fit with "..."; a text of our own would end in "…".
    if (text && text->isVisible() &&
        (text->toPlainText().endsWith(QStringLiteral("...")) || text->toPlainText().contains(QChar(0x2026))))
      elided << text->toPlainText();
  }
  return elided;
}

QStringList legendNames(QChartView* view) {
  QStringList names;
  for (QLegendMarker* marker : view->chart()->legend()->markers()) {
    if (marker->isVisible()) names << marker->label();
  }
  return names;
}

class DashboardTest : public test::ConsoleWindowTest {
 protected:
  static uint64_t stepsOfAll(MainWindow& window, int ranks) {
    if (!window.shownRun() || window.shownRun()->series.rankCount() < ranks) return 0;
    uint64_t fewest = UINT64_MAX;
    for (int r = 0; r < ranks; ++r)
      fewest = std::min<uint64_t>(fewest,
                                  window.shownRun()->series.rank(r, console::RankMetric::Throughput).count());
    return fewest;
  }

  static void screenshot(QWidget* widget, const QString& name) {
    QDir().mkpath(screenshotDir());
    EXPECT_TRUE(widget->grab().save(QDir(screenshotDir()).filePath(name))) << name.toStdString();
  }

  // The step axes of every step chart show [0, steps] with ticks 0, 50, ... for a 200-step run.
  static void expectStepAxes(DashboardPage* page, double steps, const std::vector<QString>& labels) {
    const auto [x0, x1] = page->stepRange();
    EXPECT_EQ(x0, 0);
    EXPECT_EQ(x1, steps);
    for (SeriesChart* chart :
         {page->throughputChart(), page->lossChart(), page->latencyChart(), page->memoryChart()}) {
      const std::string what = chart->chart()->title().toStdString();
      EXPECT_EQ(chart->xAxis()->min(), 0) << what;
      EXPECT_EQ(chart->xAxis()->max(), steps) << what;
      std::vector<QString> shown;
      for (const auto& [label, value] : ticksOf(chart->xAxis())) shown.push_back(label);
      EXPECT_EQ(shown, labels) << what;
      expectRoundTicks(chart->xAxis(), what + " x");
    }
  }
};

TEST_F(DashboardTest, ALiveRunShowsItsStepsProgressStateAndEveryPhase) {
  MainWindow& window = openWindow();
  DashboardPage* page = window.dashboardPage();

  constexpr uint64_t kSteps = 200;
  v1::JobSpec spec = test::smallJob(2, kSteps);
  spec.set_name("two hundred steps");
  window.launch(spec);

  // Live: the title says so, the run can be stopped, progress counts towards 200 with an ETA, and the step
  // axes already span the whole run.
  ASSERT_TRUE(
      test::waitUntil([&] { return stepsOfAll(window, 2) >= 20 || !status.isEmpty(); }, kRunTimeoutMs))
      << window.bannerText().toStdString();
  ASSERT_TRUE(status.isEmpty()) << "the run ended before it could be seen live";
  const int64_t runId = window.liveRun()->runId();
  EXPECT_EQ(page->titleText(), QStringLiteral("Run %1 · two hundred steps · live").arg(runId));
  EXPECT_TRUE(page->stopButton()->isEnabled());
  ASSERT_TRUE(
      test::waitUntil([&] { return page->progressText().contains(QStringLiteral(" · ETA ")); }, 10'000))
      << page->progressText().toStdString();
  EXPECT_TRUE(page->progressText().startsWith(QStringLiteral("Step "))) << page->progressText().toStdString();
  EXPECT_TRUE(page->progressText().contains(QStringLiteral(" of 200"))) << page->progressText().toStdString();
  EXPECT_TRUE(page->progressBar()->isVisible());
  EXPECT_GT(page->progressBar()->value(), 0);
  EXPECT_LT(page->progressBar()->value(), page->progressBar()->maximum());
  {
    // At the last step, with the ranks still running, nothing is left to estimate.
    console::ProgressSnapshot last;
    last.step = kSteps;
    last.totalSteps = kSteps;
    last.etaS = 0;
    page->setProgress(last);
    EXPECT_EQ(page->progressText(), QStringLiteral("Step 200 of 200 · finishing"));
  }
  page->redraw();
  const std::vector<QString> stepLabels = {QStringLiteral("0"), QStringLiteral("50"), QStringLiteral("100"),
                                           QStringLiteral("150"), QStringLiteral("200")};
  expectStepAxes(page, kSteps, stepLabels);
  screenshot(page, QStringLiteral("dashboard_live.png"));

  // Ended on its own while shown: the title says how, nothing is left to stop, progress is complete.
  ASSERT_TRUE(test::waitUntil([&] { return !status.isEmpty(); }, kRunTimeoutMs));
  ASSERT_EQ(status, QStringLiteral("finished")) << window.bannerText().toStdString();
  EXPECT_EQ(page->titleText(), QStringLiteral("Run %1 · two hundred steps · finished").arg(runId));
  EXPECT_FALSE(page->stopButton()->isEnabled());
  EXPECT_FALSE(window.timelineButton()->isEnabled());
  EXPECT_EQ(page->progressText(), QStringLiteral("Step 200 of 200"));
  EXPECT_EQ(page->progressBar()->value(), page->progressBar()->maximum());
  page->redraw();
  expectStepAxes(page, kSteps, stepLabels);

  // Values read with round ticks and SI prefixes ("5 k", not "5000" or "1e+04").
  for (SeriesChart* chart : {page->throughputChart(), page->lossChart(), page->latencyChart(),
                             page->busbwChart(), page->memoryChart()}) {
    expectRoundTicks(chart->yAxis(), chart->chart()->title().toStdString() + " y");
  }
  const double peak = window.shownRun()->series.totalThroughput().extent(0, kSteps).max;
  ASSERT_GT(peak, 0);
  EXPECT_GE(page->throughputChart()->yAxis()->max(), peak);
  if (page->throughputChart()->yAxis()->max() >= 2000) {
    EXPECT_TRUE(page->throughputChart()->yAxis()->categoriesLabels().back().endsWith(QStringLiteral(" k")))
        << page->throughputChart()->yAxis()->categoriesLabels().join(' ').toStdString();
  }

  // Every chart measured something: its y axis is labelled and no "not measured" covers it.
  for (SeriesChart* chart : {page->throughputChart(), page->lossChart(), page->latencyChart(),
                             page->busbwChart(), page->memoryChart()}) {
    EXPECT_FALSE(chart->showsNothing()) << chart->chart()->title().toStdString();
    EXPECT_TRUE(chart->yAxis()->labelsVisible()) << chart->chart()->title().toStdString();
  }

  // The loss chart: built-in models report their loss every step.
  ASSERT_EQ(page->lossChart()->lineCount(), 1);
  EXPECT_GT(page->lossChart()->pointCount(0), 0);

  // The phase chart stacks the measured phases and "other", so each bar is the rank's whole step.
  QStackedBarSeries* phases = page->phaseSeries();
  ASSERT_EQ(phases->count(), 6);
  EXPECT_EQ(phases->barSets().back()->label(), QStringLiteral("other"));
  for (int r = 0; r < 2; ++r) {
    double stacked = 0;
    for (QBarSet* set : phases->barSets()) {
      EXPECT_GE(set->at(r), 0) << set->label().toStdString();
      stacked += set->at(r);
    }
    const double stepMs = window.shownRun()->series.rank(r, console::RankMetric::StepMs).mean(0, kSteps);
    EXPECT_NEAR(stacked, stepMs, stepMs * 1e-3) << "rank " << r;
  }

  // The ranks table: compute and wait beside the state.
  QAbstractItemModel* ranks = page->ranksView()->model();
  ASSERT_EQ(ranks->rowCount(), 2);
  EXPECT_EQ(ranks->headerData(console::RanksModel::Compute, Qt::Horizontal).toString(),
            QStringLiteral("Compute (ms)"));
  EXPECT_EQ(ranks->headerData(console::RanksModel::Wait, Qt::Horizontal).toString(),
            QStringLiteral("Wait (ms)"));
  for (int row = 0; row < 2; ++row) {
    EXPECT_GT(ranks->index(row, console::RanksModel::Compute).data().toString().toDouble(), 0);
    EXPECT_GE(ranks->index(row, console::RanksModel::Wait).data().toString().toDouble(), 0);
    EXPECT_EQ(ranks->index(row, console::RanksModel::State).data().toString(), QStringLiteral("finished"));
    EXPECT_FALSE(ranks->index(row, console::RanksModel::Rank).data(Qt::BackgroundRole).isValid());
  }

  // Legends and labels whole at the default window size.
  for (QChartView* chart : {static_cast<QChartView*>(page->throughputChart()), page->phaseChart(),
                            static_cast<QChartView*>(page->memoryChart())}) {
    EXPECT_TRUE(elidedTexts(chart).isEmpty()) << elidedTexts(chart).join(" | ").toStdString();
  }
  EXPECT_EQ(
      legendNames(page->phaseChart()),
      (QStringList{QStringLiteral("data"), QStringLiteral("forward"), QStringLiteral("backward"),
                   QStringLiteral("exposed comm"), QStringLiteral("optimizer"), QStringLiteral("other")}));
  HeatmapView* heatmap = page->findChild<HeatmapView*>();
  ASSERT_NE(heatmap, nullptr);
  EXPECT_TRUE(heatmap->rect().contains(heatmap->scaleLabelsRect()))
      << "the colour scale's labels are cut: " << heatmap->scaleLabelsRect().right() << " > "
      << heatmap->rect().right();
  screenshot(page, QStringLiteral("dashboard_finished.png"));

  // Reopened from the store: the same axes, title and progress; nothing to stop.
  ASSERT_TRUE(test::openAndWait(window, runId));
  page->redraw();
  EXPECT_EQ(page->titleText(), QStringLiteral("Run %1 · two hundred steps · finished").arg(runId));
  EXPECT_FALSE(page->stopButton()->isEnabled());
  EXPECT_EQ(page->progressText(), QStringLiteral("Step 200 of 200"));
  expectStepAxes(page, kSteps, stepLabels);
  EXPECT_EQ(page->phaseSeries()->count(), 6);
  EXPECT_GT(page->lossChart()->pointCount(0), 0);
  screenshot(page, QStringLiteral("dashboard_reopened.png"));

  // The ranks table of the ended run and its report agree, from one computation: samples over step time,
  // over the whole run. The report charts the loss as the Dashboard does.
  const console::Report report = console::buildReport(RunStore(options.storePath.toStdString()), runId);
  ASSERT_EQ(report.metrics.perRank.size(), 2u);
  page->redraw();
  for (int row = 0; row < 2; ++row) {
    const int rank = ranks->index(row, console::RanksModel::Rank).data().toInt();
    const auto& r = report.metrics.perRank.at(static_cast<size_t>(rank));
    ASSERT_EQ(r.rank, rank);
    EXPECT_EQ(ranks->index(row, console::RanksModel::Throughput).data().toString().toStdString(),
              console::siNumber(r.samplesPerS, r.samplesPerS < 1000 ? 0.1 : 0))
        << "rank " << rank;
  }
  const auto loss = std::find_if(report.charts.begin(), report.charts.end(),
                                 [](const console::Chart& c) { return c.title == "Loss (mean over ranks)"; });
  ASSERT_NE(loss, report.charts.end());
  ASSERT_EQ(loss->series.size(), 1u);
  EXPECT_EQ(loss->series[0].points.size(), kSteps);
}

// A Horovod timeline holds no steps: the Dashboard's step charts say "not measured" over an unlabelled axis,
// never a range of zeros ("0.000000") it never measured; the ranks table says the same of its figures.
TEST_F(DashboardTest, AnImportedTimelineWithoutStepsSaysNotMeasuredInsteadOfZeros) {
  const QString trace = dir.filePath(QStringLiteral("horovod.json"));
  test::writeFile(trace.toStdString(), test::kTinyHorovodTimeline);
  MainWindow& window = openWindow();
  int64_t shown = -1;
  QObject::connect(&window, &MainWindow::runShown, [&](int64_t id) { shown = id; });
  window.importTimeline(trace);
  ASSERT_TRUE(test::waitUntil([&] { return shown > 0; }, 60'000)) << window.bannerText().toStdString();
  window.showPage(MainWindow::Dashboard);
  DashboardPage* page = window.dashboardPage();
  page->redraw();
  for (SeriesChart* chart : {page->throughputChart(), page->lossChart(), page->latencyChart(),
                             page->busbwChart(), page->memoryChart()}) {
    const std::string what = chart->chart()->title().toStdString();
    EXPECT_TRUE(chart->showsNothing()) << what;
    EXPECT_FALSE(chart->yAxis()->labelsVisible()) << what << ": an axis for values it never had";
  }
  screenshot(page, QStringLiteral("dashboard_imported_timeline.png"));
}

TEST_F(DashboardTest, AFailedRankIsColouredAndTheRunSaysItFailed) {
  MainWindow& window = openWindow();
  DashboardPage* page = window.dashboardPage();
  v1::JobSpec spec = test::smallJob(2, 200);
  spec.set_name("crash");
  auto* crash = spec.mutable_faults()->add_crashes();
  crash->set_rank(1);
  crash->set_step(30);
  window.launch(spec);
  ASSERT_TRUE(test::waitUntil([&] { return !status.isEmpty(); }, kRunTimeoutMs));
  ASSERT_EQ(status, QStringLiteral("failed")) << window.bannerText().toStdString();
  const int64_t runId = window.liveRun()->runId();
  page->redraw();

  const auto check = [&](const char* when) {
    EXPECT_EQ(page->titleText(), QStringLiteral("Run %1 · crash · failed").arg(runId)) << when;
    EXPECT_FALSE(page->stopButton()->isEnabled()) << when;
    // The axis keeps the job's 200 steps: the run stopped short of them.
    EXPECT_EQ(page->stepRange().second, 200) << when;
    QAbstractItemModel* ranks = page->ranksView()->model();
    ASSERT_EQ(ranks->rowCount(), 2) << when;
    // Rank 1 aborted; rank 0 either failed by itself after it (a broken all-reduce) or was stopped by the
    // agent, and only then is it not coloured.
    const QString rank0 = ranks->index(0, console::RanksModel::State).data().toString();
    const bool rank0Stopped = rank0 == QStringLiteral("stopped: rank 1 ended first");
    EXPECT_EQ(rank0Stopped, !console::RanksModel::failed(page->ranksModel()->rows().at(0)))
        << rank0.toStdString();
    for (int column = 0; column < ranks->columnCount(); ++column) {
      EXPECT_EQ(ranks->index(1, column).data(Qt::BackgroundRole).value<QColor>(), failureColor(false))
          << when << " column " << column;
      EXPECT_EQ(ranks->index(0, column).data(Qt::BackgroundRole).isValid(), !rank0Stopped)
          << when << " column " << column << ": " << rank0.toStdString();
    }
    EXPECT_TRUE(
        ranks->index(1, console::RanksModel::State).data().toString().startsWith(QStringLiteral("killed")))
        << when << ": " << ranks->index(1, console::RanksModel::State).data().toString().toStdString();
  };
  check("live run that ended");
  screenshot(page, QStringLiteral("dashboard_failed.png"));
  ASSERT_TRUE(test::openAndWait(window, runId));
  page->redraw();
  check("reopened");
}

// A rank that crashes with a restart left: the run finishes as one run, and every step chart marks the step
// the restart resumed from with a vertical line, live and reopened.
TEST_F(DashboardTest, ARestartIsMarkedOnTheStepAxis) {
  MainWindow& window = openWindow();
  DashboardPage* page = window.dashboardPage();
  v1::JobSpec spec = test::smallJob(2, 80);
  spec.set_name("restarted");
  spec.set_max_restarts(1);
  spec.set_checkpoint_every(10);
  auto* crash = spec.mutable_faults()->add_crashes();
  crash->set_rank(1);
  crash->set_step(30);
  window.launch(spec);
  ASSERT_TRUE(test::waitUntil([&] { return !status.isEmpty(); }, kRunTimeoutMs));
  ASSERT_EQ(status, QStringLiteral("finished")) << window.bannerText().toStdString();
  const int64_t runId = window.liveRun()->runId();

  const auto check = [&](const char* when) {
    page->redraw();
    for (SeriesChart* chart : {page->throughputChart(), page->lossChart(), page->memoryChart()}) {
      const std::string what = std::string(when) + ": " + chart->chart()->title().toStdString();
      ASSERT_EQ(chart->markers().size(), 1u) << what;
      const double step = chart->markers()[0];
      EXPECT_TRUE(step == 20 || step == 30) << what << ": the last checkpoint before step 30, not " << step;
      const QList<QPointF> line = chart->markerPoints(0);
      ASSERT_EQ(line.size(), 2) << what;
      EXPECT_EQ(line[0].x(), step) << what;
      EXPECT_EQ(line[1].x(), step) << what;
      EXPECT_EQ(line[0].y(), chart->yAxis()->min()) << what << ": from the bottom of the plot";
      EXPECT_EQ(line[1].y(), chart->yAxis()->max()) << what << ": to its top";
    }
  };
  check("live run that ended");
  screenshot(page, QStringLiteral("dashboard_restart.png"));
  ASSERT_TRUE(test::openAndWait(window, runId));
  check("reopened");
}

// A thousand ranks on the dashboard: a real 8-rank run, rank 3 slowed, stands for 1024 ranks (rank r's
// records for ranks 128 r to 128 r + 127). The charts draw the ranks' spread instead of a line per rank, and
// it is the 8 real ranks' spread step by step; the ranks the findings name and the highlighted rank keep
// their own lines over it; each heatmap row shows the slowest of the ranks it stands for.
TEST_F(DashboardTest, AThousandRanksShowTheRealRanksSpreadTheirNamedRanksAndHeatmap) {
  constexpr int kReal = 8;
  constexpr int kCopies = 128;
  const auto result = test::runProcess(
      {test::binPath("ringmaster"), "run", "-np", std::to_string(kReal), "--model", "mlp", "--data",
       "synthetic", "--steps", "30", "--inject-straggler", "3:40", "--store", options.storePath.toStdString(),
       "--state-dir", dir.filePath(QStringLiteral("cli")).toStdString(), "--worker",
       options.workerPath.toStdString()},
      {}, std::chrono::milliseconds(kRunTimeoutMs));
  ASSERT_EQ(result.exitCode, 0) << result.err;
  RunStore store(options.storePath.toStdString());
  const int64_t runId = store.resolveRun("last");
  const std::vector<RankSeries> real = store.rankSeries(runId);
  ASSERT_EQ(real.size(), size_t(kReal));
  console::RunData eight, many;
  for (const RankSeries& r : real) {
    for (int copy = 0; copy < kCopies; ++copy) {
      const int rank = r.rank * kCopies + copy;
      for (v1::StepSample s : r.steps) {
        if (copy == 0) eight.series.ingest(s);
        s.set_rank(rank);
        many.series.ingest(s);
      }
      for (v1::MemorySample m : r.memory) {
        if (copy == 0) eight.series.ingest(m);
        m.set_rank(rank);
        many.series.ingest(m);
      }
    }
  }
  ASSERT_EQ(many.series.rankCount(), kReal * kCopies);

  DashboardPage page;
  page.resize(1440, 900);
  RunHeading heading;
  heading.name = QStringLiteral("1024 ranks");
  heading.status = QStringLiteral("finished");
  heading.totalSteps = 30;
  page.setRun(&many, heading);
  page.show();
  QApplication::processEvents();
  v1::Finding straggler;
  straggler.set_kind(v1::Finding::KIND_STRAGGLER);
  straggler.set_severity(v1::Finding::SEVERITY_WARNING);
  straggler.set_rank(3 * kCopies + 5);
  page.setFindings({straggler});
  page.highlightRank(1000);
  page.redraw();
  QApplication::processEvents();
  page.redraw();

  SeriesChart* chart = page.throughputChart();
  ASSERT_TRUE(chart->drawsBand());
  int lines = 0;
  for (QAbstractSeries* s : chart->chart()->series())
    lines += s->isVisible() && s->type() == QAbstractSeries::SeriesTypeLine;
  EXPECT_LT(lines, 8) << "a line for the total, the median and a few ranks, not one per rank";
  const std::vector<int>& own = chart->ranksOverBand();
  EXPECT_TRUE(std::count(own.begin(), own.end(), 3 * kCopies + 5)) << "the rank the finding names";
  EXPECT_TRUE(std::count(own.begin(), own.end(), 1000)) << "the highlighted rank";
  EXPECT_LE(own.size(), 3u);

  // The band, column by column, against the real ranks' throughput over the same columns.
  const auto [x0, x1] = page.stepRange();
  const console::PixelGrid grid{x0, x1, static_cast<int>(chart->chart()->plotArea().width())};
  std::map<int64_t, std::pair<double, double>> extremes;  // column -> lowest, highest of any rank
  std::map<uint64_t, std::vector<double>> values;         // step -> every one of the 1024 ranks' values
  for (int r = 0; r < kReal; ++r) {
    const console::StepSeries& throughput = eight.series.rank(r, console::RankMetric::Throughput);
    for (uint64_t step = 0; step < throughput.endStep(); ++step) {
      const float v = throughput.at(step);
      if (std::isnan(v)) continue;
      auto [it, fresh] = extremes.try_emplace(grid.columnOf(double(step)), v, v);
      it->second = {std::min<double>(it->second.first, v), std::max<double>(it->second.second, v)};
      values[step].insert(values[step].end(), kCopies, v);
    }
  }
  for (auto q : {console::RankSpread::Lowest, console::RankSpread::Highest}) {
    const QList<QPointF> edge = chart->bandLine(q)->points();
    ASSERT_EQ(size_t(edge.size()), extremes.size());
    for (const QPointF& p : edge) {
      const auto& [lowest, highest] = extremes.at(grid.columnOf(p.x()));
      EXPECT_FLOAT_EQ(float(p.y()), float(q == console::RankSpread::Lowest ? lowest : highest)) << p.x();
    }
  }
  const QList<QPointF> median = chart->bandLine(console::RankSpread::Median)->points();
  ASSERT_FALSE(median.isEmpty());
  for (const QPointF& p : median) {
    EXPECT_NEAR(p.y(), stats::quantile(values.at(uint64_t(p.x())), 0.5), 1e-3 * p.y()) << "step " << p.x();
  }

  // The heatmap: fewer rows than ranks, each the slowest of its ranks' compute time in each column.
  HeatmapView* heatmap = page.heatmapView();
  const int rows = heatmap->image().height();
  ASSERT_GT(rows, 10);
  ASSERT_LT(rows, kReal * kCopies);
  std::vector<float> cells;
  eight.series.updateHeatmap(heatmap->grid(), cells, true);
  const int columns = heatmap->grid().columns;
  // Mean compute shown by the rows that stand for real rank 3's copies alone, and by those of the others.
  double slowSum = 0, otherSum = 0;
  int slowCells = 0, otherCells = 0;
  for (int row = 0; row < rows; ++row) {
    const int first = row * kReal * kCopies / rows, last = (row + 1) * kReal * kCopies / rows;
    for (int c = 0; c < columns; ++c) {
      float expected = NAN;
      for (int real = first / kCopies; real <= (last - 1) / kCopies; ++real) {
        const float v = cells[size_t(real * columns + c)];
        if (!std::isnan(v) && !(v <= expected)) expected = v;
      }
      if (std::isnan(expected)) {
        EXPECT_TRUE(std::isnan(heatmap->rowValue(row, c))) << "row " << row << " column " << c;
      } else {
        EXPECT_FLOAT_EQ(heatmap->rowValue(row, c), expected) << "row " << row << " column " << c;
      }
    }
    if (first / kCopies != (last - 1) / kCopies) continue;
    for (int c = 0; c < columns; ++c) {
      const float v = heatmap->rowValue(row, c);
      if (std::isnan(v)) continue;
      (first / kCopies == 3 ? slowSum : otherSum) += v;
      ++(first / kCopies == 3 ? slowCells : otherCells);
    }
  }
  ASSERT_GT(slowCells, 0);
  ASSERT_GT(otherCells, 0);
  EXPECT_GT(slowSum / slowCells, 1.2 * otherSum / otherCells) << "rank 3's rows are a bright stripe";
  screenshot(&page, QStringLiteral("dashboard_1024_ranks.png"));

  // The same on a 1024 x 768 screen, in English and in Chinese (each page makes its texts when it is built).
  for (const QString& language : {QStringLiteral("en"), QStringLiteral("zh_CN")}) {
    if (language != QStringLiteral("en")) {
      ASSERT_EQ(installTranslation(*QCoreApplication::instance(), language), language);
    }
    DashboardPage small;
    small.resize(1024, 768);
    small.setRun(&many, heading);
    small.show();
    QApplication::processEvents();
    small.setFindings({straggler});
    small.highlightRank(1000);
    small.redraw();
    QApplication::processEvents();
    small.redraw();
    EXPECT_TRUE(small.throughputChart()->drawsBand()) << language.toStdString();
    screenshot(&small, QStringLiteral("dashboard_1024_ranks_1024x768_%1.png").arg(language));
  }
  for (QTranslator* translator : QCoreApplication::instance()->findChildren<QTranslator*>()) {
    QCoreApplication::removeTranslator(translator);
    delete translator;
  }
}

TEST_F(DashboardTest, RunsStartedFromTheCliAppearWithoutARefresh) {
  MainWindow window(options);
  window.setStoreWatchInterval(std::chrono::milliseconds(200));
  window.show();
  window.showPage(MainWindow::Runs);
  int refreshes = 0;
  QObject::connect(&window, &MainWindow::runsRefreshed, [&] { ++refreshes; });
  ASSERT_TRUE(test::waitUntil([&] { return refreshes == 1; }, 10'000)) << "the window's own first look";
  EXPECT_EQ(window.runsModel()->rowCount(), 0);
  // Nothing changes: the list is not read again.
  test::waitUntil([] { return false; }, 1000);
  EXPECT_EQ(refreshes, 1);

  // `ringmaster run` in another process writes the same history.
  const auto result =
      test::runProcess({test::binPath("ringmaster"), "run", "-np", "1", "--model", "mlp", "--data",
                        "synthetic", "--steps", "5", "--store", options.storePath.toStdString(),
                        "--state-dir", dir.filePath(QStringLiteral("cli")).toStdString(), "--worker",
                        options.workerPath.toStdString(), "--name", "from the terminal"},
                       {}, std::chrono::milliseconds(kRunTimeoutMs));
  ASSERT_EQ(result.exitCode, 0) << result.err;
  ASSERT_TRUE(test::waitUntil(
      [&] { return window.runsModel()->rowCount() == 1 && window.runsModel()->run(0)->status == "finished"; },
      20'000))
      << "the Runs page did not pick up the CLI's run";
  EXPECT_EQ(window.runsModel()->run(0)->name, "from the terminal");
  // Compare lists it too, ready to tick.
  auto* list = window.comparePage()->findChild<QListWidget*>();
  ASSERT_NE(list, nullptr);
  ASSERT_EQ(list->count(), 1);
  EXPECT_TRUE(list->item(0)->text().endsWith(QStringLiteral(" · from the terminal (ddp, 1 rank)")))
      << list->item(0)->text().toStdString();
  screenshot(window.runsPage(), QStringLiteral("dashboard_runs_refreshed.png"));
}

TEST_F(DashboardTest, ChineseDashboardKeepsItsLabelsWhole) {
  ASSERT_EQ(installTranslation(*QCoreApplication::instance(), QStringLiteral("zh_CN")),
            QStringLiteral("zh_CN"));
  MainWindow& window = openWindow();
  DashboardPage* page = window.dashboardPage();
  window.launch(test::smallJob(2, 100));
  ASSERT_TRUE(test::waitUntil([&] { return !status.isEmpty(); }, kRunTimeoutMs));
  ASSERT_EQ(status, QStringLiteral("finished"));
  page->redraw();
  EXPECT_TRUE(page->titleText().endsWith(DashboardPage::statusText(QStringLiteral("finished"))));
  EXPECT_NE(DashboardPage::statusText(QStringLiteral("finished")), QStringLiteral("finished"));
  for (QChartView* chart : {static_cast<QChartView*>(page->throughputChart()), page->phaseChart(),
                            static_cast<QChartView*>(page->lossChart())}) {
    EXPECT_TRUE(elidedTexts(chart).isEmpty()) << elidedTexts(chart).join(" | ").toStdString();
  }
  HeatmapView* heatmap = page->findChild<HeatmapView*>();
  EXPECT_TRUE(heatmap->rect().contains(heatmap->scaleLabelsRect()));
  screenshot(page, QStringLiteral("dashboard_finished_zh_CN.png"));
  // English again for whatever runs next in this process.
  for (QTranslator* translator : QCoreApplication::instance()->findChildren<QTranslator*>()) {
    QCoreApplication::removeTranslator(translator);
    delete translator;
  }
}

}  // namespace
}  // namespace ringmaster::gui
