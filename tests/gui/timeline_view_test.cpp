// SPDX-License-Identifier: GPL-3.0-or-later
// The timeline page driven as a user would: wheel, drag, shift-drag, click, export, W/A/S/D, zoom to
// selection, find by name; what it draws (boxes and the gaps between them, axis labels, the legend) and what
// it says (shares, times, arguments); a selection that stays with its run. Screenshots go to
// build/screenshots/timeline_*.png, in English and Chinese.
#include "gui/views/timeline_view.h"

#include <gtest/gtest.h>

#include <QApplication>
#include <QDir>
#include <QFile>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QToolTip>
#include <QTranslator>
#include <QTreeWidget>
#include <QWheelEvent>

#include "common/chrome_trace.h"
#include "common/json.h"
#include "console/models/run_data.h"
#include "gui/main_window.h"
#include "gui/pages/timeline_page.h"
#include "gui/translations.h"
#include "history/run_store.h"
#include "tests/support/console_test.h"
#include "tests/support/gui_app.h"

namespace ringmaster::gui {
namespace {

v1::TimelineEvent event(int rank, const std::string& lane, const std::string& name, int64_t start,
                        int64_t end, uint64_t step) {
  v1::TimelineEvent e;
  e.set_rank(rank);
  e.set_lane(lane);
  e.set_name(name);
  e.set_start_ns(start);
  e.set_end_ns(end);
  e.set_step(step);
  return e;
}

// Two ranks, ten steps of 1 ms: DATA 0.1, FORWARD 0.3, BACKWARD 0.4, OPTIMIZER 0.2 (ms), an ALLREDUCE per
// step.
console::TimelineModel twoRanks() {
  console::TimelineModel model;
  for (int rank = 0; rank < 2; ++rank) {
    for (int step = 0; step < 10; ++step) {
      const int64_t t = step * 1'000'000;
      model.add(event(rank, "compute", "DATA", t, t + 100'000, step));
      model.add(event(rank, "compute", "FORWARD", t + 100'000, t + 400'000, step));
      model.add(event(rank, "compute", "BACKWARD", t + 400'000, t + 800'000, step));
      model.add(event(rank, "compute", "OPTIMIZER", t + 800'000, t + 1'000'000, step));
      model.add(event(rank, "comm", "ALLREDUCE", t + 500'000, t + 900'000, step));
    }
  }
  return model;
}

void screenshot(QWidget* widget, const QString& name) {
  const QString dir = QStringLiteral(RM_BUILD_DIR "/screenshots");
  QDir().mkpath(dir);
  QCoreApplication::processEvents();  // layouts follow the texts just set
  EXPECT_TRUE(widget->grab().save(QDir(dir).filePath(name))) << name.toStdString();
}

// The number in a share cell ("37.5 %").
double shareOf(const QString& text) {
  return text.section(QLatin1Char(' '), 0, 0).toDouble();
}

// Two ranks of a Horovod run, one row per tensor: NEGOTIATE (each rank's ready tick, rank 1 last), QUEUE,
// MEMCPY_IN_FUSION_BUFFER, GLOO_ALLREDUCE, MEMCPY_OUT_FUSION_BUFFER, every 10 ms.
console::TimelineModel horovodRun() {
  console::TimelineModel model;
  for (int step = 0; step < 10; ++step) {
    const int64_t t = step * 10'000'000LL;
    for (const char* tensor : {"grad.fc1.weight", "grad.fc2.weight"}) {
      for (int rank = 0; rank < 2; ++rank) {
        auto negotiate =
            event(rank, tensor, "NEGOTIATE_ALLREDUCE", t + rank * 1'000'000, t + 2'000'000, step);
        if (rank == 0) {
          (*negotiate.mutable_args())["ready_ns rank 0"] = std::to_string(t);
          (*negotiate.mutable_args())["ready_ns rank 1"] = std::to_string(t + 1'500'000);
          (*negotiate.mutable_args())["bytes"] = "4194304";
        }
        model.add(negotiate);
        model.add(event(rank, tensor, "QUEUE", t + 2'000'000, t + 2'500'000, step));
        model.add(event(rank, tensor, "MEMCPY_IN_FUSION_BUFFER", t + 2'500'000, t + 3'000'000, step));
        model.add(event(rank, tensor, "GLOO_ALLREDUCE", t + 3'000'000, t + 6'000'000, step));
        model.add(event(rank, tensor, "MEMCPY_OUT_FUSION_BUFFER", t + 6'000'000, t + 6'500'000, step));
      }
    }
  }
  return model;
}

class TimelinePageTest : public ::testing::Test {
 protected:
  void SetUp() override {
    test::guiApp();
    model = twoRanks();
    pagePtr = std::make_unique<TimelinePage>();
    pagePtr->resize(1200, 500);
    pagePtr->setModel(&model);
    pagePtr->show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(pagePtr.get()));
    view = pagePtr->view();
    view->setVisibleRange(0, 10'000'000);
  }
  console::TimelineModel model;
  std::unique_ptr<TimelinePage> pagePtr;  // after the QApplication exists
  TimelineView* view = nullptr;
};

TEST_F(TimelinePageTest, WheelZoomsAroundThePointerAndDragPans) {
  const int64_t span = view->visibleEnd() - view->visibleBegin();
  const QPointF middle(view->width() / 2.0, view->height() / 2.0);
  QWheelEvent wheel(middle, view->mapToGlobal(middle), {}, QPoint(0, 120), Qt::NoButton, Qt::NoModifier,
                    Qt::NoScrollPhase, false);
  QCoreApplication::sendEvent(view, &wheel);
  const int64_t zoomed = view->visibleEnd() - view->visibleBegin();
  EXPECT_NEAR(static_cast<double>(zoomed), span / 1.25, span * 0.01);

  const int64_t before = view->visibleBegin();
  QTest::mousePress(view, Qt::LeftButton, {}, QPoint(600, 100));
  QTest::mouseMove(view, QPoint(500, 100));
  QTest::mouseRelease(view, Qt::LeftButton, {}, QPoint(500, 100));
  EXPECT_GT(view->visibleBegin(), before) << "dragging left moves later in time into view";
  EXPECT_GT(view->lastBoxCount(), 0u);
}

TEST_F(TimelinePageTest, ShiftDragMeasuresARangePerPhasePerRank) {
  QSignalSpy selected(view, &TimelineView::rangeSelected);
  QTest::mousePress(view, Qt::LeftButton, Qt::ShiftModifier, QPoint(300, 60));
  QTest::mouseMove(view, QPoint(700, 60));
  QTest::mouseRelease(view, Qt::LeftButton, Qt::ShiftModifier, QPoint(700, 60));
  ASSERT_EQ(selected.count(), 1);
  QTreeWidget* stats = pagePtr->statsTable();
  ASSERT_EQ(stats->topLevelItemCount(), 2);  // ranks 0 and 1
  EXPECT_EQ(stats->topLevelItem(0)->text(0), "rank 0");
  EXPECT_EQ(stats->topLevelItem(0)->childCount(), 6);  // ALLREDUCE BACKWARD DATA FORWARD OPTIMIZER idle

  // The table agrees with the model for the same range.
  const auto [t0, t1] = view->selection();
  const auto expected = model.rangeStats(t0, t1);
  EXPECT_EQ(stats->topLevelItem(0)->child(1)->text(0), "BACKWARD");
  EXPECT_EQ(stats->topLevelItem(0)->child(1)->text(3), QString::number(expected.at(0).at("BACKWARD").count));
}

TEST_F(TimelinePageTest, ClickShowsTheEventUnderThePointer) {
  view->setVisibleRange(0, 1'000'000);  // step 0 fills the view; FORWARD runs from 100 to 400 µs
  QSignalSpy clicked(view, &TimelineView::eventClicked);
  const QPoint at = view->pointOf(0, 250'000).toPoint();  // row 0: rank 0's compute lane
  QTest::mouseClick(view, Qt::LeftButton, {}, at);
  ASSERT_EQ(clicked.count(), 1);
  const int lane = clicked.at(0).at(0).toInt();
  const int index = clicked.at(0).at(1).toInt();
  EXPECT_EQ(model.lane(lane).rank, 0);
  EXPECT_EQ(model.name(model.events(lane)[static_cast<size_t>(index)].name), "FORWARD");
  EXPECT_TRUE(pagePtr->detailsText().contains(QStringLiteral("FORWARD")));
  EXPECT_TRUE(pagePtr->detailsText().contains(QStringLiteral("300 µs")));

  // A click on empty space selects nothing.
  QTest::mouseClick(view, Qt::LeftButton, {}, view->pointOf(1, 250'000).toPoint());  // comm lane, idle then
  EXPECT_EQ(clicked.count(), 1);
}

TEST_F(TimelinePageTest, ExportsTheVisibleRangeAsChromeTrace) {
  QTemporaryDir dir;
  const QString path = dir.filePath(QStringLiteral("visible.json"));
  view->setVisibleRange(0, 2'000'000);  // steps 0 and 1
  QSignalSpy exported(pagePtr.get(), &TimelinePage::exported);
  pagePtr->exportVisibleRange(path);
  ASSERT_TRUE(test::waitUntil([&] { return exported.count() > 0; }, 10000));
  EXPECT_TRUE(exported.at(0).at(1).toString().isEmpty()) << exported.at(0).at(1).toString().toStdString();
  QFile file(path);
  ASSERT_TRUE(file.open(QIODevice::ReadOnly));
  const QByteArray text = file.readAll();
  const rapidjson::Document doc = parseJson(std::string_view(text.constData(), size_t(text.size())));
  ASSERT_TRUE(doc.IsArray() || (doc.IsObject() && doc.HasMember("traceEvents")));
  int complete = 0;
  const rapidjson::Value& events =
      doc.IsArray() ? static_cast<const rapidjson::Value&>(doc) : doc["traceEvents"];
  for (const auto& e : events.GetArray()) {
    auto phase = e.FindMember("ph");
    if (phase != e.MemberEnd() && phase->value == "X") ++complete;
  }
  // Steps 0 and 1 (and the edge of step 2) of two ranks, five events a step.
  EXPECT_GE(complete, 2 * 2 * 5);
  EXPECT_LE(complete, 2 * 3 * 5);
}

}  // namespace
}  // namespace ringmaster::gui

namespace ringmaster::gui {

TEST(TimelineLabels, TensorNamesThatElideAlikeShowWhereTheyDiffer) {
  test::guiApp();
  const QFontMetrics fm(QApplication::font());
  QStringList names;
  for (int layer = 0; layer < 12; ++layer) {
    names << QStringLiteral(
                 "DistributedAdam_Allreduce/cond_%1/HorovodAllreduce_gradients_encoder_layer%2_weight_0")
                 .arg(layer % 3)
                 .arg(layer);
  }
  names << QStringLiteral("loss");
  const int width = fm.horizontalAdvance(QStringLiteral("rank 00 · compute "));
  const QStringList shown = distinctElided(names, fm, width);
  ASSERT_EQ(shown.size(), names.size());
  for (int i = 0; i < shown.size(); ++i) {
    EXPECT_LE(fm.horizontalAdvance(shown[i]), width) << shown[i].toStdString();
    for (int j = 0; j < i; ++j) {
      EXPECT_NE(shown[i], shown[j]) << names[i].toStdString() << " and " << names[j].toStdString()
                                    << " look alike";
    }
  }
  EXPECT_EQ(shown.back(), QStringLiteral("loss"));
  EXPECT_TRUE(shown[11].contains(QStringLiteral("layer11"))) << shown[11].toStdString();
}

TEST_F(TimelinePageTest, FitStaysFittedWhenTheViewChangesSize) {
  view->zoomToFit();
  const int64_t span = model.endNs() - model.beginNs();
  pagePtr->resize(1800, 600);
  QApplication::processEvents();
  EXPECT_LE(view->visibleEnd(), model.endNs() + span / 20) << "the data fills the view after a resize";
  EXPECT_GE(view->visibleEnd(), model.endNs());
  view->zoomAt(600, 2.0);  // the user's own zoom is kept
  const int64_t zoomedEnd = view->visibleEnd();
  pagePtr->resize(1200, 500);
  QApplication::processEvents();
  EXPECT_LT(view->visibleEnd(), zoomedEnd);
}

TEST_F(TimelinePageTest, ARowLabelsTooltipIsItsWholeName) {
  QHelpEvent help(QEvent::ToolTip, QPoint(6, static_cast<int>(view->pointOf(0, 0).y())),
                  view->mapToGlobal(QPoint(6, static_cast<int>(view->pointOf(0, 0).y()))));
  QApplication::sendEvent(view, &help);
  const QString text = QToolTip::text();
  EXPECT_TRUE(text == QStringLiteral("rank 0 · compute") || text == QStringLiteral("rank 0 · comm"))
      << text.toStdString();
}

// Zoomed out so that each step's four events are narrower than the merge limit, the 4 ms idle between steps
// (1.6 px) is still drawn as a gap: one box per step, and background between them.
TEST(TimelineGaps, IdleGapsOfAPixelOrMoreStayVisibleZoomedOut) {
  test::guiApp();
  console::TimelineModel model;
  for (int step = 0; step < 400; ++step) {
    const int64_t t = step * 10'000'000LL;
    for (int p = 0; p < 4; ++p) {
      model.add(event(0, "compute", p % 2 ? "FORWARD" : "BACKWARD", t + p * 1'500'000,
                      t + (p + 1) * 1'500'000, step));
    }
  }
  TimelineView view;
  view.resize(1200, 300);
  view.setModel(&model);
  view.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&view));
  const double pixelsPerNs = (view.pointOf(0, 1'000'000'000).x() - view.pointOf(0, 0).x()) / 1e9;
  const double plotWidth = static_cast<double>(view.visibleEnd() - view.visibleBegin()) * pixelsPerNs;
  view.setVisibleRange(0, static_cast<int64_t>(plotWidth * 2.5e6));
  const QImage image = view.grab().toImage();
  // 2.5 ms a pixel: a step's 6 ms of work is 2.4 px, narrower than the merge limit.
  const auto stepsShown = static_cast<size_t>(std::ceil(static_cast<double>(view.visibleEnd()) / 10e6));
  EXPECT_EQ(view.lastBoxCount(), stepsShown) << "one box per step";
  const QColor background = view.palette().color(QPalette::Base);
  int gapsSeen = 0, gapsChecked = 0;
  for (int step = 1; step < 100; step += 7) {
    const int64_t t = step * 10'000'000LL;
    const int y = static_cast<int>(view.pointOf(0, t).y());
    bool drawn = false;
    for (int x = static_cast<int>(view.pointOf(0, t).x());
         x <= static_cast<int>(view.pointOf(0, t + 6'000'000).x()); ++x)
      drawn = drawn || image.pixelColor(x, y) != background;
    EXPECT_TRUE(drawn) << "step " << step;
    // Some pixel column of the idle time between this step's end and the next start is background.
    const int from = static_cast<int>(std::floor(view.pointOf(0, t + 6'000'000).x()));
    const int to = static_cast<int>(std::ceil(view.pointOf(0, t + 10'000'000).x()));
    bool gap = false;
    for (int x = from; x <= to; ++x) gap = gap || image.pixelColor(x, y) == background;
    gapsSeen += gap;
    ++gapsChecked;
  }
  EXPECT_EQ(gapsSeen, gapsChecked);
  screenshot(&view, QStringLiteral("timeline_gaps.png"));
}

TEST_F(TimelinePageTest, AxisLabelsSpeakOneUnit) {
  struct Case {
    int64_t t0, t1;
    const char* unit;
  };
  // The whole run from a little before zero, a step, and 20 ms an hour into a run.
  const Case cases[] = {{-200'000, 10'200'000, "ms"},
                        {0, 800'000, "µs"},
                        {-100'000'000, 5'000'000'000, "s"},
                        {3'600'000'000'000, 3'600'020'000'000, "s"}};
  for (const Case& c : cases) {
    view->setVisibleRange(c.t0, c.t1);
    (void)view->grab();
    const QStringList labels = view->axisLabels();
    ASSERT_GE(labels.size(), 3) << c.t0;
    for (int i = 0; i < labels.size(); ++i) {
      EXPECT_EQ(labels[i].section(QLatin1Char(' '), -1), QString::fromUtf8(c.unit))
          << labels.join(" | ").toStdString();
      EXPECT_FALSE(labels[i].startsWith(QStringLiteral("-0"))) << labels[i].toStdString();
      if (i > 0) {
        EXPECT_NE(labels[i], labels[i - 1]) << labels.join(" | ").toStdString();
      }
    }
    // Labels never run into the next one.
    const QFontMetrics fm = view->fontMetrics();
    const double tickPx =
        (static_cast<double>(view->visibleEnd() - view->visibleBegin()) /
         (view->pointOf(0, view->visibleEnd()).x() - view->pointOf(0, view->visibleBegin()).x()));
    const double first = labels[0].section(QLatin1Char(' '), 0, 0).toDouble();
    const double second = labels[1].section(QLatin1Char(' '), 0, 0).toDouble();
    const double unitNs = QString::fromUtf8(c.unit) == QStringLiteral("s")    ? 1e9
                          : QString::fromUtf8(c.unit) == QStringLiteral("ms") ? 1e6
                                                                              : 1e3;
    const double stepPx = (second - first) * unitNs / tickPx;
    for (const QString& label : labels) EXPECT_LT(fm.horizontalAdvance(label), stepPx) << label.toStdString();
  }
  view->setVisibleRange(3'600'000'000'000, 3'600'020'000'000);
  screenshot(pagePtr.get(), QStringLiteral("timeline_axis_hour.png"));
}

// Each rank's shares of a range add up to 100 %: where communication runs beside compute, the moment counts
// for compute; an idle row holds the rest.
TEST_F(TimelinePageTest, SharesOfARangeAddUp) {
  view->setVisibleRange(0, 10'000'000);
  QTest::mousePress(view, Qt::LeftButton, Qt::ShiftModifier, view->pointOf(0, 250'000).toPoint());
  QTest::mouseMove(view, view->pointOf(0, 9'300'000).toPoint());
  QTest::mouseRelease(view, Qt::LeftButton, Qt::ShiftModifier, view->pointOf(0, 9'300'000).toPoint());
  QTreeWidget* stats = pagePtr->statsTable();
  ASSERT_EQ(stats->topLevelItemCount(), 2);
  for (int r = 0; r < 2; ++r) {
    QTreeWidgetItem* rank = stats->topLevelItem(r);
    double sum = 0;
    for (int c = 0; c < rank->childCount(); ++c) sum += shareOf(rank->child(c)->text(2));
    EXPECT_NEAR(sum, 100.0, 1e-9) << "rank " << r;
    EXPECT_EQ(rank->child(rank->childCount() - 1)->text(0), QStringLiteral("idle"));
    // Compute fills every step here: ALLREDUCE beside BACKWARD and OPTIMIZER is never exposed.
    EXPECT_EQ(rank->child(0)->text(0), QStringLiteral("ALLREDUCE"));
    EXPECT_EQ(shareOf(rank->child(0)->text(2)), 0.0);
    EXPECT_NEAR(shareOf(rank->text(2)), 100.0, 1e-9);
  }
  EXPECT_TRUE(pagePtr->rangeText().contains(QStringLiteral(" ms"))) << pagePtr->rangeText().toStdString();
  screenshot(pagePtr.get(), QStringLiteral("timeline_shares.png"));
}

TEST_F(TimelinePageTest, KeysWSADZoomAndPanLikePerfetto) {
  view->setVisibleRange(0, 10'000'000);
  QEvent leave(QEvent::Leave);  // the pointer elsewhere: keys zoom around the middle
  QApplication::sendEvent(view, &leave);
  const auto span = [&] { return static_cast<double>(view->visibleEnd() - view->visibleBegin()); };
  const auto middle = [&] { return static_cast<double>(view->visibleBegin() + view->visibleEnd()) / 2; };
  const double span0 = span(), middle0 = middle();
  QTest::keyClick(view, Qt::Key_W);
  EXPECT_NEAR(span(), span0 / 1.25, span0 * 0.01);
  EXPECT_NEAR(middle(), middle0, span0 * 0.01) << "W zooms in around the middle";
  QTest::keyClick(view, Qt::Key_S);
  EXPECT_NEAR(span(), span0, span0 * 0.01);
  const int64_t begin = view->visibleBegin();
  QTest::keyClick(view, Qt::Key_D);
  EXPECT_NEAR(static_cast<double>(view->visibleBegin() - begin), span0 * 0.1, span0 * 0.01) << "D: later";
  QTest::keyClick(view, Qt::Key_A);
  QTest::keyClick(view, Qt::Key_A);
  EXPECT_NEAR(static_cast<double>(view->visibleBegin() - begin), -span0 * 0.1, span0 * 0.01) << "A: earlier";
  EXPECT_NEAR(span(), span0, span0 * 0.01) << "panning keeps the zoom";
}

TEST_F(TimelinePageTest, ZoomsToTheSelectedRangeOrEvent) {
  QPushButton* zoom = pagePtr->zoomToSelectionButton();
  EXPECT_FALSE(zoom->isEnabled()) << "nothing selected yet";
  QTest::mousePress(view, Qt::LeftButton, Qt::ShiftModifier, view->pointOf(0, 2'000'000).toPoint());
  QTest::mouseMove(view, view->pointOf(0, 3'000'000).toPoint());
  QTest::mouseRelease(view, Qt::LeftButton, Qt::ShiftModifier, view->pointOf(0, 3'000'000).toPoint());
  const auto [t0, t1] = view->selection();
  ASSERT_LT(t0, t1);
  EXPECT_TRUE(zoom->isEnabled());
  QTest::mouseClick(zoom, Qt::LeftButton);
  const double margin = static_cast<double>(t1 - t0) * 0.05;
  EXPECT_NEAR(static_cast<double>(view->visibleBegin()), static_cast<double>(t0) - margin, margin * 0.2);
  EXPECT_NEAR(static_cast<double>(view->visibleEnd()), static_cast<double>(t1) + margin, margin * 0.2);

  // Escape clears the range; F zooms to a clicked event (step 2's FORWARD, 300 µs).
  view->setFocus();
  QTest::keyClick(view, Qt::Key_Escape);
  EXPECT_EQ(view->selection(), (std::pair<int64_t, int64_t>{0, 0}));
  EXPECT_EQ(pagePtr->statsTable()->topLevelItemCount(), 0);
  QTest::mouseClick(view, Qt::LeftButton, {}, view->pointOf(0, 2'250'000).toPoint());
  ASSERT_GE(view->selectedEvent().second, 0);
  QTest::keyClick(view, Qt::Key_F);
  EXPECT_NEAR(static_cast<double>(view->visibleBegin()), 2'100'000 - 15'000, 3'000);
  EXPECT_NEAR(static_cast<double>(view->visibleEnd()), 2'400'000 + 15'000, 3'000);
}

TEST_F(TimelinePageTest, FindsEventsByName) {
  view->setVisibleRange(3'000'000, 6'000'000);  // steps 3 to 5 shown: the search starts there
  QLineEdit* find = pagePtr->findField();
  QTest::keyClicks(find, QStringLiteral("optimizer"));
  QTest::keyClick(find, Qt::Key_Return);
  auto [lane, index] = view->selectedEvent();
  ASSERT_GE(index, 0);
  EXPECT_EQ(model.name(model.events(lane)[static_cast<size_t>(index)].name), "OPTIMIZER");
  EXPECT_EQ(model.events(lane)[static_cast<size_t>(index)].startNs, 3'800'000);
  EXPECT_EQ(model.lane(lane).rank, 0);
  EXPECT_EQ(pagePtr->findStatus()->text(), QStringLiteral("7 of 20"));
  EXPECT_TRUE(pagePtr->detailsText().contains(QStringLiteral("OPTIMIZER")));
  EXPECT_LE(view->visibleBegin(), 3'800'000);
  EXPECT_GE(view->visibleEnd(), 4'000'000);
  // Enter again: the same moment on rank 1; the left arrow back.
  QTest::keyClick(find, Qt::Key_Return);
  std::tie(lane, index) = view->selectedEvent();
  EXPECT_EQ(model.lane(lane).rank, 1);
  EXPECT_EQ(model.events(lane)[static_cast<size_t>(index)].startNs, 3'800'000);
  EXPECT_EQ(pagePtr->findStatus()->text(), QStringLiteral("8 of 20"));
  pagePtr->findNext(false);
  EXPECT_EQ(pagePtr->findStatus()->text(), QStringLiteral("7 of 20"));
  screenshot(pagePtr.get(), QStringLiteral("timeline_find.png"));

  find->clear();
  QTest::keyClicks(find, QStringLiteral("no such phase"));
  QTest::keyClick(find, Qt::Key_Return);
  EXPECT_EQ(pagePtr->findStatus()->text(), QStringLiteral("No match"));
}

// The Horovod view's legend names each colour drawn and the ready ticks; an event's arguments read as times
// and sizes.
TEST(TimelineLegend, NamesTheColoursAndTicksAndArgumentsReadAsTimes) {
  test::guiApp();
  console::TimelineModel model = horovodRun();
  auto check = [&](const QString& suffix) {
    TimelinePage page;
    page.resize(1400, 520);
    page.setModel(&model);
    page.show();
    EXPECT_TRUE(QTest::qWaitForWindowExposed(&page));
    TimelineView* view = page.view();
    EXPECT_EQ(view->rowMode(), TimelineView::RowMode::ByTensor);
    view->setVisibleRange(0, 20'000'000);
    (void)view->grab();
    const QStringList legend = view->legendEntries();
    const QStringList phases{"NEGOTIATE_ALLREDUCE", "QUEUE", "MEMCPY_IN_FUSION_BUFFER", "GLOO_ALLREDUCE",
                             "MEMCPY_OUT_FUSION_BUFFER"};
    EXPECT_EQ(legend.mid(0, phases.size()), phases) << legend.join(" | ").toStdString();
    EXPECT_EQ(legend.size(), phases.size() + 2) << legend.join(" | ").toStdString();
    EXPECT_EQ(legend.value(phases.size()), TimelineView::tr("rank ready"));
    EXPECT_EQ(legend.value(phases.size() + 1), TimelineView::tr("last rank ready"));
    EXPECT_TRUE(view->rect().contains(view->legendRect()));

    QLineEdit* find = page.findField();
    QTest::keyClicks(find, QStringLiteral("NEGOTIATE"));
    QTest::keyClick(find, Qt::Key_Return);
    const QString details = page.detailsText();
    EXPECT_FALSE(details.contains(QStringLiteral("ready_ns"))) << details.toStdString();
    EXPECT_TRUE(details.contains(QStringLiteral("ready rank 1"))) << details.toStdString();
    EXPECT_TRUE(details.contains(QStringLiteral("1.5 ms"))) << details.toStdString();
    EXPECT_TRUE(details.contains(QStringLiteral("4.00 MiB"))) << details.toStdString();
    EXPECT_FALSE(details.contains(QStringLiteral("4194304"))) << details.toStdString();
    screenshot(&page, QStringLiteral("timeline_tensors%1.png").arg(suffix));

    view->setRowMode(TimelineView::RowMode::ByRank);
    (void)view->grab();
    return legend;
  };
  const QStringList english = check({});
  EXPECT_EQ(english.back(), QStringLiteral("last rank ready"));

  ASSERT_EQ(installTranslation(*QCoreApplication::instance(), QStringLiteral("zh_CN")),
            QStringLiteral("zh_CN"));
  const QStringList chinese = check(QStringLiteral("_zh_CN"));
  EXPECT_NE(chinese.back(), english.back()) << "the tick entries are translated";
  for (QTranslator* translator : QCoreApplication::instance()->findChildren<QTranslator*>()) {
    QCoreApplication::removeTranslator(translator);
    delete translator;
  }
}

// A timeline page's selection belongs to the run it was made on: opening another run (here: importing a
// second trace) leaves no range, statistics, event or match behind.
class TimelineRunsTest : public test::ConsoleTest {};

TEST_F(TimelineRunsTest, ASelectionStaysWithItsRun) {
  auto writeTrace = [&](const QString& name, int steps, int64_t stepNs) {
    const std::string path = dir.filePath(name).toStdString();
    ChromeTraceWriter writer(path);
    for (int step = 0; step < steps; ++step) {
      for (int rank = 0; rank < 2; ++rank) {
        int64_t at = step * stepNs;
        for (const char* phase : {"DATA", "FORWARD", "BACKWARD", "OPTIMIZER"}) {
          writer.add(event(rank, "compute", phase, at, at + stepNs / 5, static_cast<uint64_t>(step)));
          at += stepNs / 4;
        }
      }
    }
    writer.flush();
    return QString::fromStdString(path);
  };
  const QString first = writeTrace(QStringLiteral("first.json"), 20, 4'000'000);
  const QString second = writeTrace(QStringLiteral("second.json"), 50, 1'000'000);

  MainWindow window(options);
  window.resize(1440, 900);
  window.show();
  int64_t shownId = -1;
  QObject::connect(&window, &MainWindow::runShown, [&](int64_t id) { shownId = id; });
  window.importTimeline(first);
  ASSERT_TRUE(test::waitUntil([&] { return shownId >= 0; }, 60'000));
  const int64_t firstId = shownId;
  TimelinePage* page = window.timelinePage();
  TimelineView* view = page->view();
  window.showPage(MainWindow::Timeline);
  QCoreApplication::processEvents();
  QTest::mousePress(view, Qt::LeftButton, Qt::ShiftModifier, view->pointOf(0, 10'000'000).toPoint());
  QTest::mouseMove(view, view->pointOf(0, 30'000'000).toPoint());
  QTest::mouseRelease(view, Qt::LeftButton, Qt::ShiftModifier, view->pointOf(0, 30'000'000).toPoint());
  ASSERT_LT(view->selection().first, view->selection().second);
  ASSERT_GT(page->statsTable()->topLevelItemCount(), 0);
  QTest::keyClicks(page->findField(), QStringLiteral("BACKWARD"));
  QTest::keyClick(page->findField(), Qt::Key_Return);
  ASSERT_GE(view->selectedEvent().second, 0);
  ASSERT_FALSE(page->findStatus()->text().isEmpty());
  screenshot(&window, QStringLiteral("timeline_first_run.png"));

  window.importTimeline(second);
  ASSERT_TRUE(test::waitUntil([&] { return shownId != firstId; }, 60'000));
  QCoreApplication::processEvents();
  EXPECT_EQ(view->selection(), (std::pair<int64_t, int64_t>{0, 0}));
  EXPECT_EQ(view->selectedEvent(), (std::pair<int, int>{-1, -1}));
  EXPECT_EQ(page->statsTable()->topLevelItemCount(), 0);
  EXPECT_EQ(page->rangeText(), TimelinePage::tr("Shift-drag across the timeline to measure a range."));
  EXPECT_TRUE(page->findStatus()->text().isEmpty());
  EXPECT_FALSE(page->zoomToSelectionButton()->isEnabled());
  EXPECT_EQ(page->detailsText(), TimelinePage::tr("Click an event to see its details."));
  // The new run is shown whole.
  EXPECT_LE(view->visibleBegin(), window.shownRun()->timeline.beginNs());
  EXPECT_GE(view->visibleEnd(), window.shownRun()->timeline.endNs());
  window.showPage(MainWindow::Timeline);
  screenshot(&window, QStringLiteral("timeline_second_run.png"));
}

// A long stored run's timeline is read a range at a time. Importing it opens the Timeline page on the
// beginning of the run, holding a part of it; zoomed in anywhere, then zoomed out to the whole run, the view
// holds what it shows and shows there what the whole timeline has: the same rows, the same events, the same
// boxes; a selected event stays selected as other ranges are read.
TEST_F(TimelineRunsTest, ALongRunIsReadARangeAtATimeAndShowsWhatTheWholeTimelineShows) {
  constexpr int kSteps = 1000;
  constexpr int64_t kStepNs = 1'000'000;
  const std::string path = dir.filePath(QStringLiteral("long.json")).toStdString();
  {
    ChromeTraceWriter writer(path);
    for (int step = 0; step < kSteps; ++step) {
      for (int rank = 0; rank < 2; ++rank) {
        int64_t at = step * kStepNs + rank * 10'000;
        for (const char* phase : {"DATA", "FORWARD", "BACKWARD", "OPTIMIZER"}) {
          writer.add(event(rank, "compute", phase, at, at + kStepNs / 5, static_cast<uint64_t>(step)));
          at += kStepNs / 4;
        }
        // Steps of rank 1 with an all-reduce: a lane that has no events in some ranges.
        if (rank == 1 && step % 100 == 50) {
          writer.add(event(rank, "comm", "ALLREDUCE", at - kStepNs / 2, at, static_cast<uint64_t>(step)));
        }
      }
    }
    writer.flush();
  }
  options.timelineEventsAtOnce = 1000;
  MainWindow window(options);
  window.resize(1440, 900);
  window.show();
  int64_t runId = -1;
  int reads = 0;
  QObject::connect(&window, &MainWindow::runShown, [&](int64_t id) { runId = id; });
  QObject::connect(&window, &MainWindow::timelineRead, [&] { ++reads; });
  window.importTimeline(QString::fromStdString(path));
  ASSERT_TRUE(test::waitUntil([&] { return runId >= 0; }, 60'000));
  QCoreApplication::processEvents();
  EXPECT_EQ(window.pages()->currentWidget(), window.timelinePage()) << "an import opens its timeline";
  EXPECT_TRUE(window.bannerText().startsWith(QStringLiteral("Imported long.json")))
      << window.bannerText().toStdString();

  RunStore::Options readOnly;
  readOnly.readOnly = true;
  const console::TimelineModel whole =
      console::loadRun(RunStore(options.storePath.toStdString(), readOnly), runId, INT64_MAX).timeline;
  ASSERT_EQ(whole.eventCount(), size_t(kSteps * 8 + 10));
  ASSERT_FALSE(whole.window());
  const console::TimelineModel& shown = window.shownRun()->timeline;
  TimelineView* view = window.timelinePage()->view();
  ASSERT_TRUE(shown.window()) << "read whole";
  EXPECT_EQ(reads, 0) << "the beginning it opened on is what it shows";
  EXPECT_LT(shown.eventCount(), whole.eventCount() / 4);
  EXPECT_LT(view->visibleEnd(), whole.endNs() / 4) << "it opens on the beginning";

  using Key = std::pair<int, std::string>;
  auto keyOf = [](const console::TimelineModel& m, int lane) {
    return Key{m.lane(lane).rank, m.lane(lane).name};
  };
  auto laneIn = [&](const console::TimelineModel& m, const Key& key) {
    for (int lane = 0; lane < m.laneCount(); ++lane) {
      if (keyOf(m, lane) == key) return lane;
    }
    return -1;
  };
  // The rows, and per row the events and the boxes of the visible range, as the whole timeline has them.
  auto sameAsWhole = [&](const std::string& where) {
    SCOPED_TRACE(where);
    const int64_t t0 = view->visibleBegin(), t1 = view->visibleEnd();
    ASSERT_TRUE(shown.holds(t0, t1));
    std::vector<Key> rows, wholeRows;
    for (int lane : view->rows()) rows.push_back(keyOf(shown, lane));
    for (int lane : whole.rankRows()) wholeRows.push_back(keyOf(whole, lane));
    ASSERT_EQ(rows, wholeRows);
    const double nsPerPixel = double(t1 - t0) / 1200;
    size_t seen = 0;
    for (const Key& key : rows) {
      const int a = laneIn(shown, key), b = laneIn(whole, key);
      auto eventsOf = [&](const console::TimelineModel& m, int lane) {
        std::vector<std::tuple<int64_t, int64_t, std::string, uint32_t>> out;
        for (const auto& e : m.events(lane)) {
          if (e.startNs < t1 && e.endNs >= t0) out.emplace_back(e.startNs, e.endNs, m.name(e.name), e.step);
        }
        return out;
      };
      auto boxesOf = [&](const console::TimelineModel& m, int lane) {
        std::vector<std::tuple<int64_t, int64_t, std::string, uint32_t, int64_t>> out;
        for (const auto& box : m.boxes(lane, t0, t1, nsPerPixel)) {
          out.emplace_back(box.startNs, box.endNs, m.name(box.name), box.count, box.sumNs);
        }
        return out;
      };
      const auto events = eventsOf(shown, a);
      EXPECT_EQ(events, eventsOf(whole, b)) << key.first << " " << key.second;
      EXPECT_EQ(boxesOf(shown, a), boxesOf(whole, b)) << key.first << " " << key.second;
      seen += events.size();
    }
    EXPECT_GT(seen, 0u);
  };
  sameAsWhole("opened");

  auto showAndRead = [&](int64_t t0, int64_t t1) {
    view->setVisibleRange(t0, t1);
    return test::waitUntil([&] { return shown.holds(view->visibleBegin(), view->visibleEnd()); }, 30'000);
  };
  // Zoomed in: ten steps in the middle, the last five, a quarter of the run after the first.
  ASSERT_TRUE(showAndRead(500 * kStepNs, 510 * kStepNs));
  sameAsWhole("ten steps in the middle");
  EXPECT_TRUE(shown.window()) << "ten steps are read, not the run";
  ASSERT_TRUE(showAndRead(995 * kStepNs, 1000 * kStepNs));
  sameAsWhole("the last five steps");
  ASSERT_TRUE(showAndRead(250 * kStepNs, 500 * kStepNs));
  sameAsWhole("the second quarter");

  // An event selected stays selected, where it is, as the view moves on to time it does not hold (while the
  // event is among those read).
  ASSERT_TRUE(showAndRead(900 * kStepNs, 902 * kStepNs));
  const int lane = view->rows().front();
  const auto& events = shown.events(lane);
  const auto chosen =
      std::find_if(events.begin(), events.end(), [](const auto& e) { return e.startNs >= 901 * kStepNs; });
  ASSERT_NE(chosen, events.end());
  const auto chosenEvent = *chosen;
  const std::string chosenName = shown.name(chosen->name);
  view->selectEvent(lane, static_cast<int>(chosen - events.begin()));
  const int before = reads;
  const int64_t panned = 902 * kStepNs + kStepNs / 2;
  ASSERT_FALSE(shown.holds(panned, 905 * kStepNs));
  view->setVisibleRange(panned, 905 * kStepNs);
  ASSERT_TRUE(test::waitUntil([&] { return reads > before; }, 30'000));
  EXPECT_EQ(view->visibleBegin(), panned) << "the view stays where it was taken";
  const auto [selectedLane, selectedIndex] = view->selectedEvent();
  ASSERT_EQ(selectedLane, lane);
  ASSERT_GE(selectedIndex, 0);
  const auto& selected = shown.events(lane)[static_cast<size_t>(selectedIndex)];
  EXPECT_EQ(selected.startNs, chosenEvent.startNs);
  EXPECT_EQ(selected.endNs, chosenEvent.endNs);
  EXPECT_EQ(shown.name(selected.name), chosenName);

  // Zoomed out to the whole run, it is read whole.
  view->zoomToFit();
  ASSERT_TRUE(test::waitUntil([&] { return !shown.window(); }, 60'000));
  EXPECT_EQ(shown.eventCount(), whole.eventCount());
  sameAsWhole("the whole run");
  window.showPage(MainWindow::Timeline);
  screenshot(&window, QStringLiteral("timeline_long_run.png"));
}

}  // namespace ringmaster::gui
