// SPDX-License-Identifier: GPL-3.0-or-later
// Every item model, checked by QAbstractItemModelTester while it is filled, updated and emptied.
#include <gtest/gtest.h>

#include <QAbstractItemModelTester>
#include <QCoreApplication>

#include "console/findings_model.h"
#include "console/hosts_model.h"
#include "console/log_model.h"
#include "console/ranks_model.h"
#include "console/runs_model.h"

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
  RankRow a{0, "node-a", v1::RankState::STATE_RUNNING, 0, 0, 10, 512.5, 12.25, 300};
  RankRow b{1, "node-a", v1::RankState::STATE_SIGNALED, 0, 9, 8, 400, 14, 310};
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
  EXPECT_EQ(model.index(0, HostsModel::Preflight).data().toString(), "dataset cifar10 is missing");
  model.removeHost(0);
  EXPECT_EQ(model.rowCount(), 2) << "this machine cannot be removed";
  model.removeHost(1);
  EXPECT_EQ(model.rowCount(), 1);
}

}  // namespace
}  // namespace ringmaster::console
