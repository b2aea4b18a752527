// SPDX-License-Identifier: GPL-3.0-or-later
// The Chinese catalogue, resources/translations/ringmaster_zh_CN.ts, is the one place the translations live
// (translators edit it in Qt Linguist; nothing rewrites it): every message in it is finished; it is exactly
// what `ninja ringmaster_lupdate` makes of today's sources, so it holds no context or string the code has
// dropped and lacks none the code has; and the console, running in Chinese, finds every string it looks up
// under the context tr() uses, and looks up every context the catalogue holds.
#include <gtest/gtest.h>

#include <QCoreApplication>
#include <QProcess>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTranslator>
#include <QXmlStreamReader>
#include <algorithm>
#include <map>
#include <mutex>
#include <set>

#include "common/chrome_trace.h"
#include "console/hosts/host_facts.h"
#include "console/models/comparison_model.h"
#include "console/models/findings_model.h"
#include "console/models/hosts_model.h"
#include "console/models/translated.h"
#include "console/reports/report.h"
#include "console/session/outcome_text.h"
#include "console/slurm/slurm_options.h"
#include "console/tune/tune_search.h"
#include "diagnosis/comparison.h"
#include "diagnosis/duration_text.h"
#include "diagnosis/run_diagnosis.h"
#include "diagnosis/summary_text.h"
#include "gui/dialogs/report_dialog.h"
#include "gui/dialogs/tune_dialog.h"
#include "gui/live_run.h"
#include "gui/main_window.h"
#include "gui/pages/dashboard_page.h"
#include "gui/pages/findings_page.h"
#include "gui/pages/launch_page.h"
#include "gui/pages/timeline_page.h"
#include "tests/support/console_test.h"
#include "tests/support/files.h"
#include "tests/support/gui_app.h"

namespace ringmaster::gui {
namespace {

constexpr char kCatalogue[] = RM_SOURCE_DIR "/resources/translations/ringmaster_zh_CN.ts";
constexpr char kCompiledCatalogue[] = ":/i18n/ringmaster_zh_CN.qm";

// The source texts of a .ts file, by context.
std::map<QString, std::set<QString>> messagesOf(const std::string& ts) {
  std::map<QString, std::set<QString>> messages;
  QXmlStreamReader xml(QByteArray::fromStdString(ts));
  QString context;
  while (!xml.atEnd()) {
    if (xml.readNext() != QXmlStreamReader::StartElement) continue;
    if (xml.name() == QLatin1String("name")) {
      context = xml.readElementText();
      messages[context];
    } else if (xml.name() == QLatin1String("source")) {
      messages[context].insert(xml.readElementText());
    }
  }
  EXPECT_FALSE(xml.hasError()) << xml.errorString().toStdString();
  return messages;
}

// The Chinese catalogue as the build compiles it: every message of the .ts finished, and the strings added
// with the remote hosts, the live controls and chart export come out in Chinese with their placeholders kept.
TEST(Translations, ChineseCoversEveryMessage) {
  test::guiApp();
  const std::string source = test::readFile(kCatalogue);
  ASSERT_FALSE(source.empty()) << kCatalogue;
  EXPECT_EQ(source.find("type=\"unfinished\""), std::string::npos)
      << "translate the new strings of " << kCatalogue << " in Qt Linguist";
  EXPECT_TRUE(source.find("type=\"vanished\"") == std::string::npos &&
              source.find("type=\"obsolete\"") == std::string::npos);

  QTranslator zh;
  ASSERT_TRUE(zh.load(QString::fromLatin1(kCompiledCatalogue)));
  const char* hosts = console::HostsModel::staticMetaObject.className();
  const char* window = MainWindow::staticMetaObject.className();
  struct Message {
    const char* context;
    const char* text;
    QStringList placeholders;
  };
  const Message messages[] = {
      {hosts, "connected", {}},
      {hosts, "unreachable", {}},
      {"ringmaster::gui::ChartExport", "Save as PNG…", {}},
      {"ringmaster::gui::ChartExport", "Save as SVG…", {}},
      {TimelinePage::staticMetaObject.className(), "Save image", {}},
      {DashboardPage::staticMetaObject.className(), "Record timeline", {}},
      {LaunchPage::staticMetaObject.className(), "Use connected hosts", {}},
      {LiveRun::staticMetaObject.className(), "the run is not running", {}},
      {window, "Connection to %1 lost — reconnecting…", {QStringLiteral("%1")}},
      {window,
       "Run %1 (%2) is running on %3.",
       {QStringLiteral("%1"), QStringLiteral("%2"), QStringLiteral("%3")}},
      {window, "Could not turn the timeline %1: %2", {QStringLiteral("%1"), QStringLiteral("%2")}},
  };
  for (const Message& m : messages) {
    const QString zhText = zh.translate(m.context, m.text);
    EXPECT_FALSE(zhText.isEmpty()) << m.context << ": " << m.text;
    EXPECT_NE(zhText, QString::fromUtf8(m.text)) << m.context << ": " << m.text;
    for (const QString& p : m.placeholders) {
      EXPECT_TRUE(zhText.contains(p)) << m.text << " -> " << zhText.toStdString();
    }
  }
  const QString backfilled = zh.translate(window, "Reconnected to %1; backfilled %n record(s).", nullptr, 3);
  EXPECT_TRUE(backfilled.contains(QStringLiteral("%1")) && backfilled.contains(QStringLiteral("%n")))
      << backfilled.toStdString();
  EXPECT_NE(backfilled, QStringLiteral("Reconnected to %1; backfilled %n record(s)."));
}

// lupdate run on a copy of the catalogue, as `ninja ringmaster_lupdate` runs it, changes nothing: no context
// or string is missing (it would come in unfinished) and none is left over (-no-obsolete would drop it).
TEST(Translations, TheCatalogueIsWhatLupdateMakesOfTheSources) {
  const QStringList command = QString::fromStdString(test::readFile(RM_LUPDATE_COMMAND_FILE))
                                  .split(QLatin1Char('\n'), Qt::SkipEmptyParts);
  ASSERT_GE(command.size(), 2) << "no lupdate command in " RM_LUPDATE_COMMAND_FILE;
  QTemporaryDir dir;
  ASSERT_TRUE(dir.isValid());
  const std::string catalogue = test::readFile(kCatalogue);
  ASSERT_FALSE(catalogue.empty()) << kCatalogue;
  const QString copy = dir.filePath(QStringLiteral("ringmaster_zh_CN.ts"));
  test::writeFile(copy.toStdString(), catalogue);

  QProcess lupdate;
  lupdate.start(command.front(), command.mid(1) << QStringLiteral("-ts") << copy);
  ASSERT_TRUE(lupdate.waitForFinished(120'000)) << lupdate.errorString().toStdString();
  ASSERT_EQ(lupdate.exitCode(), 0) << lupdate.readAllStandardError().toStdString();
  const std::string updated = test::readFile(copy.toStdString());

  const auto was = messagesOf(catalogue);
  const auto now = messagesOf(updated);
  for (const auto& [context, texts] : was) {
    if (!now.count(context)) {
      ADD_FAILURE() << "context " << context.toStdString() << " is in the .ts but no code uses it";
      continue;
    }
    for (const QString& text : texts) {
      EXPECT_TRUE(now.at(context).count(text))
          << context.toStdString() << ": \"" << text.toStdString() << "\" is in the .ts but not in the code";
    }
  }
  for (const auto& [context, texts] : now) {
    for (const QString& text : texts) {
      EXPECT_TRUE(was.count(context) && was.at(context).count(text))
          << context.toStdString() << ": \"" << text.toStdString()
          << "\" is missing from the .ts: run `ninja ringmaster_lupdate` and translate it in Qt Linguist";
    }
  }
  EXPECT_TRUE(updated == catalogue) << "lupdate changed " << kCatalogue
                                    << " (run `ninja ringmaster_lupdate`)";
}

// Hands every lookup on to the compiled Chinese catalogue, noting the console's own (contexts
// "ringmaster::...") and those the catalogue could not answer.
class RecordingTranslator : public QTranslator {
 public:
  QString translate(const char* context, const char* sourceText, const char* disambiguation,
                    int n) const override {
    const QString text = QTranslator::translate(context, sourceText, disambiguation, n);
    const QString name = QString::fromUtf8(context);
    if (name.startsWith(QLatin1String("ringmaster::")) && sourceText && *sourceText) {
      std::lock_guard lock(mutex_);
      contexts_.insert(name);
      if (text.isEmpty()) unanswered_.insert(name + QStringLiteral(": ") + QString::fromUtf8(sourceText));
    }
    return text;
  }

  std::set<QString> contexts() const {
    std::lock_guard lock(mutex_);
    return contexts_;
  }
  std::set<QString> unanswered() const {
    std::lock_guard lock(mutex_);
    return unanswered_;
  }

 private:
  mutable std::mutex mutex_;  // pages may be filled from the store's thread
  mutable std::set<QString> contexts_;
  mutable std::set<QString> unanswered_;
};

class ChineseConsole : public test::ConsoleTest {
 protected:
  void SetUp() override {
    ConsoleTest::SetUp();
    ASSERT_TRUE(translator.load(QString::fromLatin1(kCompiledCatalogue)));
    ASSERT_TRUE(QCoreApplication::installTranslator(&translator));
  }
  void TearDown() override { QCoreApplication::removeTranslator(&translator); }

  RecordingTranslator translator;
};

// The console in Chinese with a run shown on every page, the report dialog, a live run's controls and a
// comparison's table: every string it looks up is in the catalogue under the context tr() used, and every
// context of the catalogue is one of those looked up.
TEST_F(ChineseConsole, FindsEveryStringUnderItsContextAndUsesEveryContextOfTheCatalogue) {
  // A run to show: two ranks' compute phases over three steps, imported as a Chrome trace.
  const std::string trace = dir.filePath(QStringLiteral("trace.json")).toStdString();
  {
    ChromeTraceWriter writer(trace);
    int64_t start = 0;
    for (uint64_t step = 0; step < 3; ++step) {
      for (const char* phase : {"DATA", "FORWARD", "BACKWARD", "OPTIMIZER"}) {
        for (int rank = 0; rank < 2; ++rank) {
          v1::TimelineEvent event;
          event.set_rank(rank);
          event.set_lane("compute");
          event.set_name(phase);
          event.set_step(step);
          event.set_start_ns(start);
          event.set_end_ns(start + 900'000);
          writer.add(event);
        }
        start += 1'000'000;
      }
    }
  }
  MainWindow window(options);
  window.resize(1440, 900);
  window.show();
  int64_t runId = -1;
  QObject::connect(&window, &MainWindow::runShown, [&](int64_t id) { runId = id; });
  window.importTimeline(QString::fromStdString(trace));
  ASSERT_TRUE(test::waitUntil([&] { return runId >= 0; }, 60'000)) << "the imported run was not shown";
  for (int page = 0; page < window.pages()->count(); ++page) {
    window.pages()->setCurrentIndex(page);
    QCoreApplication::processEvents();
    EXPECT_FALSE(window.grab().isNull()) << "page " << page;
  }

  ReportDialog report(window.store(), runId, &window);
  EXPECT_FALSE(report.grab().isNull());
  {
    // The run's report as the console exports it: its headings, charts and the PDF's footers in Chinese.
    RunStore::Options readOnly;
    readOnly.readOnly = true;
    RunStore store(options.storePath.toStdString(), readOnly);
    const console::Report built = console::buildReport(store, runId);
    EXPECT_NE(console::renderHtml(built, console::PaperSize::A4).find("<html lang=\"zh-CN\">"),
              std::string::npos);
    console::writePdfReport(built, dir.filePath(QStringLiteral("report.pdf")).toStdString(),
                            console::PaperSize::A4);
  }
  TuneDialog tune(console::RunFlags{}, &window);
  EXPECT_FALSE(tune.grab().isNull());
  EXPECT_FALSE(console::recommendation({}).empty()) << "a tuning without trials says so";
  LiveRun live(console::LaunchPlan{}, options.storePath, {});
  QString problem;
  QObject::connect(&live, &LiveRun::timelineRecording, [&](bool, const QString& why) { problem = why; });
  live.setTimelineRecording(true);
  EXPECT_FALSE(problem.isEmpty()) << "a run that never started cannot record a timeline";
  console::ComparisonModel comparison;
  RunMetrics base, other;
  base.info.name = "base";
  other.info.name = "other";
  comparison.setComparisons({compareRuns(base, other)});
  EXPECT_FALSE(console::translated(comparison.comparisons().front().verdict).isEmpty());
  EXPECT_FALSE(console::translated(console::outcomeSentence(console::text::kEveryRankFinished)).isEmpty());
  EXPECT_EQ(console::translated(elapsedSentence(185)), QStringLiteral("3 分 5 秒"))
      << "a run's length, an ETA";
  EXPECT_EQ(
      console::translated(console::hostSentence(
          "node1", {{"cores", "16"}, {"memory", "62.8 GiB"}, {"gpus", "none"}, {"libtorch", "1.13.1"}})),
      QStringLiteral("node1：16 核，62.8 GiB，无 GPU，libtorch 1.13.1"))
      << "the Dashboard's line of a run's hosts";
  for (int column = 0; column < comparison.columnCount(); ++column) {
    EXPECT_FALSE(comparison.headerData(column, Qt::Horizontal, Qt::DisplayRole).toString().isEmpty());
  }
  // A finding with advice and evidence on the Findings page: diagnosis' patterns and evidence labels are
  // looked up under their own contexts.
  diagnosis::RunDiagnosis crashed(2);
  v1::Record killed;
  killed.mutable_rank_state()->set_rank(1);
  killed.mutable_rank_state()->set_state(v1::RankState::STATE_SIGNALED);
  killed.mutable_rank_state()->set_signal(9);
  crashed.observe(killed);
  console::FindingsModel findingsModel;
  FindingsPage findingsPage(&findingsModel);
  findingsModel.setFindings(crashed.findings());
  ASSERT_EQ(findingsModel.rowCount(), 1);
  EXPECT_NE(console::FindingsModel::adviceText(*findingsModel.finding(0)).toStdString(),
            findingsModel.finding(0)->advice());

  for (const QString& missing : translator.unanswered()) {
    ADD_FAILURE() << "the console looked up " << missing.toStdString()
                  << ", which the catalogue does not hold";
  }
  const std::set<QString> used = translator.contexts();
  for (const auto& [context, texts] : messagesOf(test::readFile(kCatalogue))) {
    EXPECT_TRUE(used.count(context)) << context.toStdString()
                                     << " is a context of the .ts that the console never looked up";
  }
}

// Whether `text` holds a Chinese character (and so is not the English left as it was).
bool hasChinese(const QString& text) {
  return std::any_of(text.begin(), text.end(),
                     [](QChar c) { return c.unicode() >= 0x4e00 && c.unicode() <= 0x9fff; });
}

// Sentences the console makes of its own (not tr() strings), in Chinese with their figures kept: how a run
// ended, as the window's banner says it; a comparison's verdict; and the finding of a job Slurm ended.
TEST_F(ChineseConsole, RunEndingsVerdictsAndSlurmFindingsComeOutInChinese) {
  using console::outcomeSentence;
  namespace text = console::text;
  const QString killed = console::translated(
      outcomeSentence(text::kRankOnHostEnded, {1, "vm", outcomeSentence(text::kWasKilledBy, {"SIGABRT"})}));
  EXPECT_TRUE(hasChinese(killed) && killed.contains(QStringLiteral("SIGABRT")) &&
              killed.contains(QStringLiteral("vm")) && !killed.contains(QStringLiteral("killed")))
      << killed.toStdString();
  const QString exited = console::translated(
      outcomeSentence(text::kRankOnHostEnded, {2, "node2", outcomeSentence(text::kExitedWithCode, {3})}));
  EXPECT_TRUE(hasChinese(exited) && exited.contains(QStringLiteral("node2")) &&
              exited.contains(QLatin1Char('3')) && !exited.contains(QStringLiteral("exited")))
      << exited.toStdString();
  // A stall's stop carries the stall finding's own sentence, which is translated in its own context.
  const Sentence silent = diagnosis::say(
      diagnosis::text::kWentSilentOneWaits,
      {diagnosis::rankOnHost(1, "node2"), diagnosis::say(diagnosis::text::kAfterStep, {5}),
       diagnosis::say(diagnosis::text::kSentNothingFor, {Decimal{61, 1}}), "0", Decimal{61, 1}});
  const QString stalled = console::translated(outcomeSentence(text::kStoppedAfterStall, {"60", silent}));
  EXPECT_TRUE(hasChinese(stalled) && stalled.contains(QStringLiteral("--stall-timeout-s 60")) &&
              !stalled.contains(QStringLiteral("went silent")) &&
              !stalled.contains(QStringLiteral("stopped after")))
      << stalled.toStdString();
  for (const Sentence& said :
       {outcomeSentence(text::kEveryRankFinished), outcomeSentence(text::kStoppedOnRequest),
        outcomeSentence(text::kLeftRunning), outcomeSentence(text::kNeverReportedExit, {3}),
        outcomeSentence(text::kLostHostSilent, {"node2", 30}),
        outcomeSentence(text::kSlurmEndedJob, {"77", "TIMEOUT"}),
        outcomeSentence(text::kNoStepsAfterWarmUp)}) {
    const QString shown = console::translated(said);
    EXPECT_TRUE(hasChinese(shown)) << toText(said) << " -> " << shown.toStdString();
  }

  // Verdicts: faster on step time; of different rank counts by throughput; and what a run lacks.
  RunMetrics base, faster, wider, empty;
  base.info.id = 1;
  base.info.name = "base";
  base.ranks = 2;
  base.steps = 50;
  base.throughput = 100;
  faster = wider = empty = base;
  faster.info.id = 2;
  faster.info.name = "quick";
  wider.info.id = 3;
  wider.info.name = "wider";
  wider.ranks = 4;
  empty.info.id = 4;
  empty.info.name = "empty";
  empty.steps = 0;
  for (int i = 0; i < 50; ++i) {
    base.stepTimesMs.push_back(100 + i % 5);
    faster.stepTimesMs.push_back(80 + i % 5);
    base.stepThroughput.push_back(100 + i % 5);
    faster.stepThroughput.push_back(125 + i % 5);
    wider.stepTimesMs.push_back(100 + i % 5);
    wider.stepThroughput.push_back(150 + i % 5);
  }
  const std::vector<std::pair<RunComparison, const char*>> verdicts = {
      {compareRuns(base, faster), "faster"},
      {compareRuns(base, wider), "higher throughput"},
      {compareRuns(base, empty), "has no"}};
  for (const auto& [comparison, english] : verdicts) {
    ASSERT_NE(toText(comparison.verdict).find(english), std::string::npos) << toText(comparison.verdict);
    const QString shown = console::translated(comparison.verdict);
    EXPECT_TRUE(hasChinese(shown) && !shown.contains(QString::fromLatin1(english)))
        << toText(comparison.verdict) << " -> " << shown.toStdString();
  }

  // Slurm ended the job: the finding the run session makes, on the Findings page.
  v1::Finding slurm;
  slurm.set_kind(v1::Finding::KIND_CRASH);
  slurm.set_cause("slurm");
  diagnosis::setSummary(slurm, diagnosis::say(diagnosis::text::kSlurmEndedJob,
                                              {console::slurmEndCause("TIMEOUT"), "77", "TIMEOUT"}));
  EXPECT_EQ(slurm.summary(), "Slurm ended the job at its time limit (Slurm job 77: TIMEOUT)");
  const QString shown = console::FindingsModel::summaryText(slurm);
  EXPECT_TRUE(hasChinese(shown) && shown.contains(QStringLiteral("77")) &&
              shown.contains(QStringLiteral("TIMEOUT")) && !shown.contains(QStringLiteral("time limit")))
      << shown.toStdString();
  for (const char* state : {"NODE_FAIL", "PREEMPTED", "OUT_OF_MEMORY", "BOOT_FAIL", "DEADLINE"}) {
    diagnosis::setSummary(
        slurm, diagnosis::say(diagnosis::text::kSlurmEndedJob, {console::slurmEndCause(state), "77", state}));
    EXPECT_TRUE(hasChinese(console::FindingsModel::summaryText(slurm))) << slurm.summary();
  }
  for (const QString& missing : translator.unanswered()) {
    ADD_FAILURE() << "the console looked up " << missing.toStdString()
                  << ", which the catalogue does not hold";
  }
}

// A restart's finding tells how the attempt before it ended and where the next resumed: in Chinese with its
// figures, its cause word and its advice; and a job out of restarts says so in Chinese.
TEST_F(ChineseConsole, RestartsComeOutInChinese) {
  v1::Finding restart;
  restart.set_kind(v1::Finding::KIND_RESTART);
  restart.set_rank(1);
  restart.set_host("vm");
  restart.set_cause("signal");
  (*restart.mutable_evidence())["signal"] = 6;
  using console::outcomeSentence;
  namespace text = console::text;
  const Sentence killed =
      outcomeSentence(text::kRankOnHostEnded, {1, "vm", outcomeSentence(text::kWasKilledBy, {"SIGABRT"})});
  diagnosis::setSummary(restart, outcomeSentence(text::kRestartAfterResumed, {1, 2, killed, 30}));
  const QString summary = console::FindingsModel::summaryText(restart);
  EXPECT_TRUE(hasChinese(summary) && summary.contains(QStringLiteral("SIGABRT")) &&
              summary.contains(QStringLiteral("30")) && !summary.contains(QStringLiteral("restart")) &&
              !summary.contains(QStringLiteral("killed")))
      << summary.toStdString();
  EXPECT_TRUE(hasChinese(console::FindingsModel::causeText(restart)));
  EXPECT_TRUE(hasChinese(console::FindingsModel::adviceText(restart)));
  (*restart.mutable_evidence())["restart"] = 1;
  (*restart.mutable_evidence())["resumed_from_step"] = 30;
  const QString evidence = console::FindingsModel::evidenceTexts(restart).join(QStringLiteral(" · "));
  EXPECT_TRUE(hasChinese(evidence) && !evidence.contains(QStringLiteral("resumed")) &&
              !evidence.contains(QStringLiteral("restart")))
      << evidence.toStdString();

  diagnosis::setSummary(
      restart, outcomeSentence(text::kRestartAfterOnRanks,
                               {1, 1, outcomeSentence(text::kLostHostSilent, {"node2", 30}), 2, "node2"}));
  const QString shrunk = console::FindingsModel::summaryText(restart);
  EXPECT_TRUE(hasChinese(shrunk) && shrunk.contains(QStringLiteral("node2")) &&
              !shrunk.contains(QStringLiteral("gone")) && !shrunk.contains(QStringLiteral("answered")))
      << shrunk.toStdString();

  const QString exhausted = console::translated(outcomeSentence(
      text::kAfterRestarts,
      {outcomeSentence(text::kRankOnHostEnded, {1, "vm", outcomeSentence(text::kExitedWithCode, {1})}), 2,
       2}));
  EXPECT_TRUE(hasChinese(exhausted) && exhausted.contains(QStringLiteral("--max-restarts 2")) &&
              !exhausted.contains(QStringLiteral("restarts,")) &&
              !exhausted.contains(QStringLiteral("exited")))
      << exhausted.toStdString();
}

}  // namespace
}  // namespace ringmaster::gui
