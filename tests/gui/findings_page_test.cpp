// SPDX-License-Identifier: GPL-3.0-or-later
// The Findings page says what to do about each finding and shows its evidence in words, in English and in
// Chinese: findings of real detectors (a crash, a data-path straggler, a leak) rendered offscreen, with a
// screenshot of each language kept in the build folder.
#include "gui/pages/findings_page.h"

#include <gtest/gtest.h>

#include <QDir>
#include <QLabel>
#include <QTableView>
#include <QTranslator>
#include <csignal>

#include "console/models/findings_model.h"
#include "diagnosis/run_diagnosis.h"
#include "tests/support/diagnosis_synthetic.h"
#include "tests/support/gui_app.h"

namespace ringmaster::gui {
namespace {

std::vector<v1::Finding> realFindings() {
  test::SyntheticRun run;
  run.ranks = 4;
  run.steps = 150;
  run.slowRank = 2;
  run.slowFrom = 20;
  run.slowData = 15;
  run.leakRank = 1;
  run.leakMiBPerStep = 4;
  diagnosis::RunDiagnosis diagnosis(run.ranks);
  for (int r = 0; r < run.ranks; ++r) diagnosis.setHost(r, "node" + std::to_string(r));
  for (const auto& record : test::generate(run).records) diagnosis.observe(record);
  v1::Record killed;
  killed.mutable_rank_state()->set_rank(3);
  killed.mutable_rank_state()->set_host("node3");
  killed.mutable_rank_state()->set_state(v1::RankState::STATE_SIGNALED);
  killed.mutable_rank_state()->set_signal(SIGKILL);
  diagnosis.observe(killed);
  return diagnosis.findings();
}

// Evidence keys of more than one word ("limit_mib", "last_step") shown as they are stored.
bool hasRawKey(const QString& text, const v1::Finding& f) {
  for (const auto& [key, value] : f.evidence()) {
    if (key.find('_') != std::string::npos && text.contains(QString::fromStdString(key))) return true;
  }
  return false;
}

TEST(FindingsPage, SaysWhatToDoAndShowsTheEvidenceInWordsInEnglishAndChinese) {
  test::guiApp();
  const auto findings = realFindings();
  ASSERT_GE(findings.size(), 3u);
  QDir().mkpath(QStringLiteral(RM_BUILD_DIR "/screenshots"));
  QStringList firstDetails;
  for (const QString& language : {QStringLiteral("en"), QStringLiteral("zh_CN")}) {
    QTranslator translator;
    if (language != QLatin1String("en")) {
      ASSERT_TRUE(translator.load(QStringLiteral(":/i18n/ringmaster_%1.qm").arg(language)));
      ASSERT_TRUE(QCoreApplication::installTranslator(&translator));
    }
    {
      console::FindingsModel model;
      FindingsPage page(&model);
      page.resize(1280, 720);
      page.show();
      model.setFindings(findings);
      QCoreApplication::processEvents();
      auto* details = page.findChild<QLabel*>(QStringLiteral("findingDetails"));
      ASSERT_NE(details, nullptr);

      // Before anything is selected, the first (most severe) finding says what to do.
      const v1::Finding* first = model.finding(0);
      ASSERT_NE(first, nullptr);
      EXPECT_EQ(first->severity(), v1::Finding::SEVERITY_CRITICAL);
      firstDetails << details->text();
      EXPECT_TRUE(details->text().contains(console::FindingsModel::adviceText(*first).toHtmlEscaped()))
          << details->text().toStdString();

      for (int row = 0; row < model.rowCount(); ++row) {
        page.view()->selectRow(row);
        QCoreApplication::processEvents();
        const v1::Finding& f = *model.finding(row);
        const QString advice = console::FindingsModel::adviceText(f);
        const QString text = details->text();
        EXPECT_FALSE(advice.isEmpty()) << f.summary();
        EXPECT_TRUE(text.contains(advice.toHtmlEscaped())) << text.toStdString();
        EXPECT_FALSE(hasRawKey(text, f)) << "raw evidence keys: " << text.toStdString();
        const QString summary = model.index(row, console::FindingsModel::Summary).data().toString();
        EXPECT_TRUE(text.contains(summary.toHtmlEscaped())) << text.toStdString();
        if (language == QLatin1String("en")) {
          EXPECT_EQ(advice.toStdString(), f.advice());
          EXPECT_EQ(summary.toStdString(), f.summary());
          EXPECT_EQ(console::FindingsModel::causeText(f).toStdString(), f.cause());
          EXPECT_TRUE(text.contains(QStringLiteral("What to do:"))) << text.toStdString();
        } else {
          EXPECT_NE(advice.toStdString(), f.advice()) << "the advice is translated";
          EXPECT_TRUE(text.contains(QStringLiteral("建议："))) << text.toStdString();
          // The summary and the cause too, with the detector's figures and names kept.
          EXPECT_NE(summary.toStdString(), f.summary()) << "the summary is translated";
          EXPECT_NE(console::FindingsModel::causeText(f).toStdString(), f.cause()) << f.cause();
          EXPECT_TRUE(summary.contains(QString::fromStdString(f.host()))) << summary.toStdString();
          for (const char* english :
               {" the ", "which ended", "memory grows", "cause:", " was ", " per step"}) {
            EXPECT_FALSE(summary.contains(QLatin1String(english)))
                << english << " in " << summary.toStdString();
          }
        }
        if (f.kind() == v1::Finding::KIND_MEMORY_LEAK) {
          EXPECT_TRUE(text.contains(language == QLatin1String("en") ? QStringLiteral("limit 64.0 GiB")
                                                                    : QStringLiteral("上限 64.0 GiB")))
              << text.toStdString();
          EXPECT_TRUE(advice.contains(QStringLiteral("`loss.item()`"))) << advice.toStdString();
        }
        if (f.kind() == v1::Finding::KIND_STRAGGLER) {
          EXPECT_TRUE(advice.contains(QStringLiteral("node2"))) << advice.toStdString();
        }
      }
      page.view()->selectRow(0);
      QCoreApplication::processEvents();
      const QImage image = page.grab().toImage();
      EXPECT_FALSE(image.isNull());
      image.save(QStringLiteral(RM_BUILD_DIR "/screenshots/findings-%1.png").arg(language));
    }
    QCoreApplication::removeTranslator(&translator);
  }
  ASSERT_EQ(firstDetails.size(), 2);
  EXPECT_NE(firstDetails[0], firstDetails[1]);
}

}  // namespace
}  // namespace ringmaster::gui
