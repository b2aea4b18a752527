// SPDX-License-Identifier: GPL-3.0-or-later
// Every item model, checked by QAbstractItemModelTester while it is filled, updated and emptied; the
// comparison table with real metrics of synthetic runs.
#include <gtest/gtest.h>

#include <QAbstractItemModelTester>
#include <QCoreApplication>

#include "console/hosts/host_facts.h"
#include "console/models/comparison_model.h"
#include "console/models/findings_model.h"
#include "console/models/hosts_model.h"
#include "console/models/log_model.h"
#include "console/models/ranks_model.h"
#include "console/models/runs_model.h"
#include "tests/support/diagnosis_synthetic.h"

namespace ringmaster::console {
namespace {

using Tester = QAbstractItemModelTester;
constexpr auto kFatal = QAbstractItemModelTester::FailureReportingMode::Fatal;

RunInfo runInfo(int64_t id, const std::string& name, int64_t startedS, int64_t endedS) {
  RunInfo r;
  r.id = id;
  r.name = name;
  r.status = "finished";
  r.engine = "ddp";
  r.backend = "gloo";
  r.worldSize = 4;
  r.startedUnixNs = startedS * 1'000'000'000;
  r.endedUnixNs = endedS * 1'000'000'000;
  r.tags = {"baseline", "gloo"};
  return r;
}

v1::LogLine line(int rank, const std::string& text) {
  v1::LogLine l;
  l.set_rank(rank);
  l.set_text(text);
  l.set_stream(rank % 2 ? v1::LogLine::STREAM_STDERR : v1::LogLine::STREAM_STDOUT);
  return l;
}

TEST(RunsModel, ShowsTheHistory) {
  RunsModel model;
  Tester tester(&model, kFatal);
  model.setRuns({runInfo(2, "second", 1000, 1095), runInfo(1, "first", 100, 4000)});
  ASSERT_EQ(model.rowCount(), 2);
  EXPECT_EQ(model.index(0, RunsModel::Name).data().toString(), "second");
  EXPECT_EQ(model.index(0, RunsModel::Duration).data().toString(), "1 min 35 s");
  EXPECT_EQ(model.index(1, RunsModel::Duration).data().toString(), "1 h 5 min");
  EXPECT_EQ(model.index(1, RunsModel::Tags).data().toString(), "baseline, gloo");
  EXPECT_EQ(model.index(1, 0).data(RunsModel::RunIdRole).toLongLong(), 1);
  EXPECT_EQ(model.index(0, RunsModel::Duration).data(RunsModel::SortRole).toLongLong(), 95'000'000'000);
  EXPECT_EQ(model.rowOf(1), 1);
  EXPECT_EQ(model.rowOf(9), -1);
  model.setRuns({});
  EXPECT_EQ(model.rowCount(), 0);
}

TEST(RanksModel, UpdatesInPlaceWhileTheRanksStayTheSame) {
  RanksModel model;
  Tester tester(&model, kFatal);
  RankRow a{0, "node-a", v1::RankState::STATE_RUNNING, 0, 0, 10, 512.5, 12.25, 300, 0, 0, false, false, {}};
  RankRow b{1, "node-a", v1::RankState::STATE_SIGNALED, 0, 9, 8, 400, 14, 310, 0, 0, false, false, {}};
  model.setRows({a, b});
  EXPECT_EQ(model.index(1, RanksModel::State).data().toString(), "killed by signal 9");
  EXPECT_EQ(model.index(0, RanksModel::Throughput).data().toString(), "512.5");
  int resets = 0;
  QObject::connect(&model, &QAbstractItemModel::modelReset, [&] { ++resets; });
  a.steps = 11;
  model.setRows({a, b});
  EXPECT_EQ(resets, 0);
  EXPECT_EQ(model.index(0, RanksModel::Steps).data().toULongLong(), 11u);
  model.setRows({a});
  EXPECT_EQ(resets, 1);
  EXPECT_EQ(model.rowCount(), 1);
}

TEST(LogModel, AppendsDropsTheOldestAndFilters) {
  LogModel model(5);
  Tester tester(&model, kFatal);
  model.append({line(0, "epoch 1 loss 0.9"), line(1, "epoch 1 loss 0.8"), line(0, "Epoch 2 loss 0.5")});
  EXPECT_EQ(model.rowCount(), 3);
  model.append({line(1, "a"), line(1, "b"), line(0, "c")});
  ASSERT_EQ(model.rowCount(), 5);
  EXPECT_EQ(model.index(0, LogModel::Text).data().toString(), "epoch 1 loss 0.8");
  EXPECT_EQ(model.index(0, LogModel::Stream).data().toString(), "stderr");

  LogFilter filter;
  filter.setSourceModel(&model);
  Tester filterTester(&filter, kFatal);
  filter.setRank(0);
  EXPECT_EQ(filter.rowCount(), 2);
  filter.setText("EPOCH");
  ASSERT_EQ(filter.rowCount(), 1);
  EXPECT_EQ(filter.index(0, LogModel::Text).data().toString(), "Epoch 2 loss 0.5");
  filter.setRank(-1);
  EXPECT_EQ(filter.rowCount(), 2);
  model.clear();
  EXPECT_EQ(filter.rowCount(), 0);
}

TEST(FindingsModel, PutsTheMostSevereFirst) {
  FindingsModel model;
  Tester tester(&model, kFatal);
  v1::Finding leak;
  leak.set_kind(v1::Finding::KIND_MEMORY_LEAK);
  leak.set_severity(v1::Finding::SEVERITY_WARNING);
  leak.set_rank(1);
  leak.set_summary("rank 1 grows 2.0 MB/step");
  v1::Finding straggler;
  straggler.set_kind(v1::Finding::KIND_STRAGGLER);
  straggler.set_severity(v1::Finding::SEVERITY_CRITICAL);
  straggler.set_rank(2);
  straggler.set_since_step(12);
  straggler.set_host("node-b");
  straggler.set_summary("rank 2 computes 48% slower");
  model.setFindings({leak, straggler});
  ASSERT_EQ(model.rowCount(), 2);
  EXPECT_EQ(model.index(0, FindingsModel::Kind).data().toString(), "Straggler");
  EXPECT_EQ(model.index(0, FindingsModel::Since).data().toString(), "step 12");
  EXPECT_EQ(model.index(0, 0).data(FindingsModel::RankRole).toInt(), 2);
  EXPECT_EQ(model.finding(1)->kind(), v1::Finding::KIND_MEMORY_LEAK);
  EXPECT_EQ(model.finding(2), nullptr);
}

TEST(HostsModel, KeepsThisMachineFirst) {
  HostsModel model;
  Tester tester(&model, kFatal);
  ASSERT_EQ(model.rowCount(), 1);
  EXPECT_EQ(model.index(0, HostsModel::Host).data().toString(), "This machine");
  HostEntry remote;
  remote.address = "node-b:50151";
  EXPECT_EQ(model.addHost(remote), 1);
  EXPECT_EQ(model.addHost(remote), 1) << "the same address twice is one host";
  model.setState(1, HostEntry::State::Unreachable, "connection refused");
  EXPECT_EQ(model.index(1, HostsModel::State).data().toString(), "unreachable: connection refused");
  v1::HostInfo info;
  info.set_hostname("box");
  info.set_cores(16);
  info.set_memory_bytes(32ull << 30);
  info.add_backends(v1::BACKEND_GLOO);
  info.add_problems("dataset cifar10 is missing");
  model.setInfo(0, info);
  EXPECT_EQ(model.index(0, HostsModel::Host).data().toString(), "This machine (box)");
  EXPECT_EQ(model.index(0, HostsModel::Memory).data().toString(), "32.0 GiB");
  EXPECT_EQ(model.index(0, HostsModel::Backends).data().toString(), "gloo");
  info.add_backends(v1::BACKEND_NCCL);
  model.setInfo(0, info);
  EXPECT_EQ(model.index(0, HostsModel::Backends).data().toString(), "gloo")
      << "nccl without a GPU is no choice";
  EXPECT_EQ(console::hostFacts(info).at("backends"), "gloo") << "nor in the facts a run keeps";
  info.add_gpus()->set_name("NVIDIA H200");
  model.setInfo(0, info);
  EXPECT_EQ(model.index(0, HostsModel::Backends).data().toString(), "gloo, nccl");
  EXPECT_EQ(console::hostFacts(info).at("backends"), "gloo, nccl");
  EXPECT_EQ(model.index(0, HostsModel::Preflight).data().toString(), "dataset cifar10 is missing");
  model.removeHost(0);
  EXPECT_EQ(model.rowCount(), 2) << "this machine cannot be removed";
  model.removeHost(1);
  EXPECT_EQ(model.rowCount(), 1);
}

TEST(ComparisonModel, ShowsEachRunAgainstTheBaselineWithItsInterval) {
  ComparisonModel model;
  Tester tester(&model, kFatal);
  EXPECT_EQ(model.rowCount(), 0);
  EXPECT_EQ(model.columnCount(), 0);

  // The baseline, a run 15% slower in compute, and the same job again with other noise.
  test::SyntheticRun baseline;
  baseline.steps = 200;
  test::SyntheticRun slower = baseline;
  slower.seed = 2;
  slower.forwardMs *= 1.15;
  slower.backwardMs *= 1.15;
  test::SyntheticRun again = baseline;
  again.seed = 99;
  const RunMetrics base = test::metricsOf(baseline, 1, "ddp");
  model.setComparisons({compareRuns(base, test::metricsOf(slower, 2, "horovod")),
                        compareRuns(base, test::metricsOf(again, 3, "ddp again"))});
  const RunComparison& slow = model.comparisons()[0];
  const RunComparison& same = model.comparisons()[1];
  ASSERT_EQ(model.rowCount(), static_cast<int>(slow.deltas.size()));
  ASSERT_EQ(model.columnCount(), 6);  // metric, baseline, then each run's value and its difference

  EXPECT_EQ(model.headerData(0, Qt::Horizontal, Qt::DisplayRole).toString(), "Metric");
  EXPECT_EQ(model.headerData(1, Qt::Horizontal, Qt::DisplayRole).toString(),
            QString::fromStdString(toText(slow.baseName)));
  EXPECT_EQ(model.headerData(2, Qt::Horizontal, Qt::DisplayRole).toString(),
            QString::fromStdString(toText(slow.otherName)));
  EXPECT_EQ(model.headerData(5, Qt::Horizontal, Qt::DisplayRole).toString(),
            QStringLiteral("%1 vs %2 (95% CI)")
                .arg(QString::fromStdString(toText(same.otherName)),
                     QString::fromStdString(toText(same.baseName))));

  // Row 1 is the mean step time: the baseline's, the slower run's, and its rise with a bootstrap interval.
  const MetricDelta& step = slow.deltas.at(1);
  ASSERT_EQ(step.metric, "step time mean");
  ASSERT_TRUE(step.interval);
  EXPECT_EQ(model.index(1, 0).data().toString(), "step time mean (ms)");
  EXPECT_EQ(model.index(1, 1).data().toString(), QString::number(base.stepMeanMs, 'g', 4));
  EXPECT_EQ(model.index(1, 2).data().toString(), QString::number(step.other, 'g', 4));
  const QString rise = model.index(1, 3).data().toString();
  EXPECT_EQ(rise, ComparisonModel::formatDelta(step));
  EXPECT_TRUE(rise.startsWith('+') && rise.contains('[')) << rise.toStdString();
  EXPECT_EQ(model.index(1, 3).data(Qt::ToolTipRole).toString(), QString::fromStdString(toText(slow.verdict)));
  // Slower steps and lower throughput are worse; the same job again is no different.
  EXPECT_EQ(model.index(1, 3).data(ComparisonModel::VerdictRole).toInt(), -1);
  EXPECT_EQ(model.index(0, 3).data(ComparisonModel::VerdictRole).toInt(), -1);
  EXPECT_EQ(model.index(1, 5).data(ComparisonModel::VerdictRole).toInt(), 0);
  // Values are right-aligned; the metric names are not.
  EXPECT_EQ(model.index(1, 2).data(Qt::TextAlignmentRole).value<Qt::Alignment>(),
            Qt::AlignRight | Qt::AlignVCenter);
  EXPECT_FALSE(model.index(1, 0).data(Qt::TextAlignmentRole).isValid());

  model.setComparisons({compareRuns(base, test::metricsOf(again, 3, "ddp again"))});
  EXPECT_EQ(model.columnCount(), 4);
  model.setComparisons({});
  EXPECT_EQ(model.rowCount(), 0);
  EXPECT_EQ(model.columnCount(), 0);
}

}  // namespace
}  // namespace ringmaster::console
