// SPDX-License-Identifier: GPL-3.0-or-later
// Nothing is cut short at the window's default size, in English or in Chinese: every page of the main window
// shows a real stored run (a slow rank, a leaking rank and a crash, so that every page has findings, colours
// and charts to show), and every label, button, combo box, placeholder, tab, table header, short table column
// and chart text is measured against the space it was given; no chart text is turned on its side. Screenshots
// of every page in both languages go to build/screenshots/whole_<language>_<page>.png. And the window fits a
// 1024x768 screen: no page asks for more.
#include <gtest/gtest.h>

#include <QAbstractButton>
#include <QChartView>
#include <QComboBox>
#include <QDir>
#include <QGraphicsScene>
#include <QGraphicsTextItem>
#include <QGroupBox>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QStyleOption>
#include <QTabBar>
#include <QTabWidget>
#include <QTableView>
#include <QTranslator>
#include <QValueAxis>

#include "gui/main_window.h"
#include "gui/pages/dashboard_page.h"
#include "gui/views/heatmap_view.h"
#include "gui/views/series_chart.h"
#include "tests/gui/open_run.h"
#include "tests/support/agent_test_support.h"
#include "tests/support/console_test.h"

namespace ringmaster::gui {
namespace {

constexpr int kRunTimeoutMs = 240'000;

QString describe(QWidget* w, const QString& text) {
  return QStringLiteral("%1 \"%2\"").arg(QString::fromLatin1(w->metaObject()->className()), text);
}

// Every text under `root` that does not fit the space it has, said as "class "text" (needs N, has M)".
QStringList clippedTexts(QWidget* root) {
  QStringList out;
  const auto shown = [root](QWidget* w) { return w->isVisibleTo(root) && w->width() > 0 && w->height() > 0; };
  const auto note = [&out](QWidget* w, const QString& text, int needs, int has) {
    if (needs > has) out << describe(w, text) + QStringLiteral(" (needs %1, has %2)").arg(needs).arg(has);
  };
  for (QLabel* label : root->findChildren<QLabel*>()) {
    if (!shown(label) || label->text().isEmpty()) continue;
    if (label->wordWrap()) {
      note(label, label->text(), label->heightForWidth(label->width()), label->height());
    } else {
      note(label, label->text(), label->sizeHint().width(), label->width());
      note(label, label->text(), label->sizeHint().height(), label->height());
    }
  }
  for (QAbstractButton* button : root->findChildren<QAbstractButton*>()) {
    if (!shown(button) || button->text().isEmpty() || qobject_cast<QTabBar*>(button->parentWidget()))
      continue;
    note(button, button->text(), button->sizeHint().width(), button->width());
  }
  for (QComboBox* combo : root->findChildren<QComboBox*>()) {
    if (!shown(combo) || combo->currentText().isEmpty()) continue;
    QStyleOptionComboBox option;
    option.initFrom(combo);
    option.editable = combo->isEditable();
    option.currentText = combo->currentText();
    const QRect field =
        combo->style()->subControlRect(QStyle::CC_ComboBox, &option, QStyle::SC_ComboBoxEditField, combo);
    note(combo, combo->currentText(), combo->fontMetrics().horizontalAdvance(combo->currentText()),
         field.width());
  }
  for (QLineEdit* edit : root->findChildren<QLineEdit*>()) {
    if (!shown(edit) || !edit->text().isEmpty() || edit->placeholderText().isEmpty()) continue;
    if (qobject_cast<QComboBox*>(edit->parentWidget())) continue;
    QStyleOptionFrame option;
    option.initFrom(edit);
    option.lineWidth =
        edit->hasFrame() ? edit->style()->pixelMetric(QStyle::PM_DefaultFrameWidth, &option, edit) : 0;
    const QRect contents = edit->style()->subElementRect(QStyle::SE_LineEditContents, &option, edit);
    const QMargins margins = edit->textMargins();
    constexpr int kLineEditMargin = 2;  // QLineEdit's own horizontal margin on each side
    note(edit, edit->placeholderText(), edit->fontMetrics().horizontalAdvance(edit->placeholderText()),
         contents.width() - margins.left() - margins.right() - 2 * kLineEditMargin);
  }
  for (QTabBar* tabs : root->findChildren<QTabBar*>()) {
    if (!shown(tabs)) continue;
    const int space = tabs->style()->pixelMetric(QStyle::PM_TabBarTabHSpace, nullptr, tabs);
    for (int i = 0; i < tabs->count(); ++i) {
      note(tabs, tabs->tabText(i), tabs->fontMetrics().horizontalAdvance(tabs->tabText(i)) + space / 2,
           tabs->tabRect(i).width());
    }
  }
  for (QGroupBox* group : root->findChildren<QGroupBox*>()) {
    if (!shown(group) || group->title().isEmpty()) continue;
    note(group, group->title(), group->fontMetrics().horizontalAdvance(group->title()), group->width());
  }
  for (QTableView* table : root->findChildren<QTableView*>()) {
    if (!shown(table) || !table->model()) continue;
    QHeaderView* header = table->horizontalHeader();
    const int columns = table->model()->columnCount();
    for (int c = 0; c < columns; ++c) {
      if (header->isSectionHidden(c) || header->sectionSize(c) == 0) continue;
      const QString title = table->model()->headerData(c, Qt::Horizontal).toString();
      if (header->isVisible()) note(header, title, header->sectionSizeHint(c), header->sectionSize(c));
      // The last column stretches over what is left and may hold long text (a finding's summary, a log
      // line), shown whole beside or under the table; the others are sized to their contents.
      const bool stretched = header->stretchLastSection() && header->visualIndex(c) == columns - 1;
      if (stretched || table->model()->rowCount() == 0) continue;
      note(table, title + QStringLiteral(" (cells)"),
           static_cast<QAbstractItemView*>(table)->sizeHintForColumn(c), table->columnWidth(c));
    }
  }
  for (QChartView* view : root->findChildren<QChartView*>()) {
    if (!shown(view)) continue;
    for (QGraphicsItem* item : view->scene()->items()) {
      auto* text = dynamic_cast<QGraphicsTextItem*>(item);
      if (!text || !text->isVisible() || text->toPlainText().isEmpty()) continue;
      // Qt Charts cuts what does not fit with "..." (or "…").
      if (text->toPlainText().endsWith(QStringLiteral("...")) || text->toPlainText().contains(QChar(0x2026)))
        out << describe(view, text->toPlainText()) + QStringLiteral(" (elided in the chart)");
      // Text turned on its side: Chinese glyphs overlap there (see SeriesChart).
      if (text->rotation() != 0)
        out << describe(view, text->toPlainText()) + QStringLiteral(" (turned on its side)");
    }
  }
  for (HeatmapView* heatmap : root->findChildren<HeatmapView*>()) {
    if (shown(heatmap) && !heatmap->rect().contains(heatmap->scaleLabelsRect()))
      out << describe(heatmap, QStringLiteral("colour scale")) + QStringLiteral(" (labels cut)");
  }
  return out;
}

class WholeTextTest : public test::ConsoleTest {
 protected:
  void SetUp() override {
    ConsoleTest::SetUp();
    ASSERT_TRUE(QFileInfo(options.workerPath).isExecutable()) << "build ringmaster-worker first";
  }
};

TEST_F(WholeTextTest, EveryPageAtTheDefaultSizeShowsItsTextsWholeInEnglishAndChinese) {
  // A real run to show: rank 1 slow, rank 0 leaking, rank 1 crashing before the end; run in Chinese, whose
  // banner then says how it ended in Chinese, the signal and host as they were.
  int64_t runId = -1;
  {
    QTranslator chinese;
    ASSERT_TRUE(chinese.load(QStringLiteral(":/i18n/ringmaster_zh_CN.qm")));
    ASSERT_TRUE(QCoreApplication::installTranslator(&chinese));
    MainWindow window(options);
    window.show();
    QString status;
    QObject::connect(&window, &MainWindow::liveRunEnded, [&](const QString& s) { status = s; });
    v1::JobSpec spec = test::smallJob(2, 200);
    spec.set_name("whole texts");
    auto* slow = spec.mutable_faults()->add_stragglers();
    slow->set_rank(1);
    slow->set_extra_ms(20);
    auto* leak = spec.mutable_faults()->add_leaks();
    leak->set_rank(0);
    leak->set_mb_per_step(4);
    auto* crash = spec.mutable_faults()->add_crashes();
    crash->set_rank(1);
    crash->set_step(120);
    window.launch(spec);
    ASSERT_TRUE(test::waitUntil([&] { return !status.isEmpty(); }, kRunTimeoutMs));
    ASSERT_EQ(status, QStringLiteral("failed")) << window.bannerText().toStdString();
    runId = window.liveRun()->runId();
    const QString banner = window.bannerText();
    // Rank 1 aborts (SIGABRT); rank 0 may fail first on the broken all-reduce (an exit code): either way the
    // sentence is Chinese around the figures.
    EXPECT_TRUE(banner.contains(QStringLiteral("主机")) && !banner.contains(QStringLiteral("on host")) &&
                !banner.contains(QStringLiteral("was killed")) &&
                !banner.contains(QStringLiteral("exited")) && !banner.contains(QStringLiteral("failed")))
        << banner.toStdString();
    EXPECT_TRUE(
        banner.startsWith(MainWindow::tr("The run ended: %1 (%2).").section(QStringLiteral("%1"), 0, 0)))
        << banner.toStdString();
    QCoreApplication::removeTranslator(&chinese);
  }
  const QString screenshots = QStringLiteral(RM_BUILD_DIR "/screenshots");
  QDir().mkpath(screenshots);
  for (const QString& language : {QStringLiteral("en"), QStringLiteral("zh_CN")}) {
    SCOPED_TRACE(language.toStdString());
    QTranslator translator;
    if (language != QLatin1String("en")) {
      ASSERT_TRUE(translator.load(QStringLiteral(":/i18n/ringmaster_%1.qm").arg(language)));
      ASSERT_TRUE(QCoreApplication::installTranslator(&translator));
    }
    {
      MainWindow window(options);
      window.show();
      EXPECT_EQ(window.size(), QSize(1440, 900)) << "the default size";
      ASSERT_TRUE(test::openAndWait(window, runId));
      ASSERT_GE(window.findingsModel()->rowCount(), 2) << "the run's findings are on the Findings page";
      for (int page = 0; page < window.pages()->count(); ++page) {
        window.pages()->setCurrentIndex(page);
        QCoreApplication::processEvents();
        if (window.pages()->currentWidget() == window.dashboardPage()) window.dashboardPage()->redraw();
        test::waitUntil([] { return false; }, 200);  // layouts and charts settle
        const QString name = window.pages()->tabText(page);
        const QStringList clipped = clippedTexts(window.pages()->currentWidget());
        EXPECT_TRUE(clipped.isEmpty())
            << name.toStdString() << ":\n  " << clipped.join(QStringLiteral("\n  ")).toStdString();
        const QString file = QStringLiteral("whole_%1_%2.png").arg(language).arg(page);
        EXPECT_TRUE(window.grab().save(QDir(screenshots).filePath(file))) << file.toStdString();
      }
      const QStringList tabs = clippedTexts(&window);
      EXPECT_TRUE(tabs.isEmpty()) << tabs.join(QStringLiteral("\n  ")).toStdString();
      // No page asks for more room than a 1024x768 screen has.
      const QSize least = window.minimumSizeHint().expandedTo(window.minimumSize());
      EXPECT_LE(least.width(), 1024) << "the window needs " << least.width() << " pixels across";
      EXPECT_LE(least.height(), 768) << "the window needs " << least.height() << " pixels down";
    }
    QCoreApplication::removeTranslator(&translator);
  }
}

}  // namespace
}  // namespace ringmaster::gui
