// SPDX-License-Identifier: GPL-3.0-or-later
// The timeline page driven as a user would: wheel, drag, shift-drag, click, export.
#include "gui/timeline_view.h"

#include <gtest/gtest.h>

#include <QApplication>
#include <QFile>
#include <QLabel>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QToolTip>
#include <QTreeWidget>
#include <QWheelEvent>

#include "common/json.h"
#include "gui/timeline_page.h"
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
  EXPECT_EQ(stats->topLevelItem(0)->childCount(), 5);  // ALLREDUCE BACKWARD DATA FORWARD OPTIMIZER

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

}  // namespace ringmaster::gui
