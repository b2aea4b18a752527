// SPDX-License-Identifier: GPL-3.0-or-later
// Collectives out of step, replicas that drift and ranks that never report, through RunDiagnosis as records
// arrive.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "diagnosis/run_diagnosis.h"

using namespace ringmaster;
using namespace ringmaster::diagnosis;

namespace {

v1::Collective call(uint32_t index, uint64_t elements, const std::string& site,
                    const std::string& op = "all_reduce", const std::string& group = "world") {
  v1::Collective c;
  c.set_index(index);
  c.set_op(op);
  c.set_dtype("float32");
  c.set_elements(elements);
  c.set_group(group);
  c.set_site(site);
  return c;
}

// DDP's two buckets of a step.
std::vector<v1::Collective> buckets() {
  return {call(0, 262'144, "DDP bucket 0"), call(1, 536'330, "DDP bucket 1")};
}

constexpr uint32_t kBucketsCrc = 0x1234abcd;

v1::Record stepRecord(int rank, uint64_t step, uint32_t count = 2, uint32_t crc = kBucketsCrc) {
  v1::Record r;
  auto* s = r.mutable_step();
  s->set_rank(rank);
  s->set_step(step);
  s->set_total_ns(100'000'000);
  s->set_collectives(count);
  s->set_collectives_crc(crc);
  return r;
}

v1::Record callsRecord(int rank, uint64_t step, const std::vector<v1::Collective>& calls, uint32_t crc) {
  v1::Record r;
  auto* c = r.mutable_collective_calls();
  c->set_rank(rank);
  c->set_step(step);
  c->set_count(static_cast<uint32_t>(calls.size()));
  c->set_crc(crc);
  for (const auto& x : calls) *c->add_calls() = x;
  return r;
}

v1::Record heartbeat(int rank, uint64_t step, const std::vector<v1::Collective>& calls) {
  v1::Record r;
  auto* h = r.mutable_heartbeat();
  h->set_rank(rank);
  h->set_last_step(static_cast<int64_t>(step) - 1);
  h->set_collectives_step(step);
  h->set_step_collectives(static_cast<uint32_t>(calls.size()));
  for (const auto& x : calls) *h->add_collectives() = x;
  return r;
}

std::vector<v1::Finding> ofKind(const RunDiagnosis& d, v1::Finding::Kind kind) {
  std::vector<v1::Finding> out;
  for (const auto& f : d.findings()) {
    if (f.kind() == kind) out.push_back(f);
  }
  return out;
}

// Two ranks that train `steps` identical steps, each step's calls sent with the first.
void trainAlike(RunDiagnosis& d, uint64_t steps) {
  for (int rank = 0; rank < 2; ++rank) d.observe(callsRecord(rank, 0, buckets(), kBucketsCrc));
  for (uint64_t s = 0; s < steps; ++s) {
    for (int rank = 0; rank < 2; ++rank) d.observe(stepRecord(rank, s));
  }
}

TEST(CollectivesOutOfStep, RanksThatCallTheSameCollectivesHaveNoFinding) {
  RunDiagnosis d(2);
  trainAlike(d, 30);
  // In step 30 rank 0 is ahead (both buckets launched), rank 1 still in its first: a prefix, not a
  // difference.
  d.observe(heartbeat(0, 30, buckets()));
  d.observe(heartbeat(1, 30, {buckets()[0]}));
  EXPECT_TRUE(ofKind(d, v1::Finding::KIND_COLLECTIVES).empty());
}

TEST(CollectivesOutOfStep, AnExtraAllReduceOnRankZeroIsNamedWithWhatRankOneIsIn) {
  RunDiagnosis d(2);
  d.setHost(0, "node-a");
  trainAlike(d, 30);
  // Step 30: rank 0 calls a 1-element all_reduce first; rank 1 is in DDP's first bucket; they stopped there.
  d.observe(heartbeat(0, 30, {call(0, 1, "train.py:28")}));
  d.observe(heartbeat(1, 30, {buckets()[0]}));
  auto found = ofKind(d, v1::Finding::KIND_COLLECTIVES);
  ASSERT_EQ(found.size(), 1u);
  const auto& f = found.front();
  EXPECT_EQ(f.rank(), 0);
  EXPECT_EQ(f.host(), "node-a");
  EXPECT_EQ(f.since_step(), 30u);
  EXPECT_EQ(f.severity(), v1::Finding::SEVERITY_CRITICAL);
  EXPECT_EQ(
      f.summary(),
      "From step 30 rank 0 (node-a) calls all_reduce of 1 float32 (train.py:28), which rank 1 does not call "
      "there; rank 1 is in all_reduce of 262144 float32 (DDP bucket 0). The ranks' collectives are out of "
      "step.");
  EXPECT_EQ(f.evidence().at("elements"), 1);
  EXPECT_EQ(f.evidence().at("other_elements"), 262'144);
  EXPECT_NE(f.advice().find("same collectives in the same order"), std::string::npos) << f.advice();
}

TEST(CollectivesOutOfStep, TheOddRankIsTheOneThatDepartsFromItsOwnStepsWhicheverReportsFirst) {
  RunDiagnosis d(2);
  trainAlike(d, 30);
  d.observe(heartbeat(0, 30, {buckets()[0]}));
  d.observe(heartbeat(1, 30, {call(0, 1, "eval.py:7", "broadcast")}));
  auto found = ofKind(d, v1::Finding::KIND_COLLECTIVES);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found.front().rank(), 1);
  EXPECT_NE(found.front().summary().find("rank 1 calls broadcast of 1 float32 (eval.py:7)"),
            std::string::npos)
      << found.front().summary();
}

TEST(CollectivesOutOfStep, ACompletedStepWithOtherCollectivesIsNamedFromTheCallsItSent) {
  RunDiagnosis d(2);
  trainAlike(d, 12);
  // Step 12: rank 1 logs with an extra all_reduce after its buckets and goes on; rank 0 does not.
  auto extra = buckets();
  extra.push_back(call(2, 1, "train.py:40"));
  d.observe(callsRecord(1, 12, extra, 0x99));
  d.observe(stepRecord(1, 12, 3, 0x99));
  d.observe(stepRecord(0, 12));
  auto found = ofKind(d, v1::Finding::KIND_COLLECTIVES);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found.front().since_step(), 12u);
  EXPECT_EQ(found.front().summary(),
            "From step 12 rank 1 calls all_reduce of 1 float32 (train.py:40), which rank 0 never calls. The "
            "ranks' collectives are out of step.");
}

v1::Record ended(int rank, int exitCode) {
  v1::Record r;
  r.mutable_rank_state()->set_rank(rank);
  r.mutable_rank_state()->set_state(v1::RankState::STATE_EXITED);
  r.mutable_rank_state()->set_exit_code(exitCode);
  return r;
}

TEST(CollectivesOutOfStep, ARankThatEndedWhileAnotherStaysInACollectiveNeverCallsIt) {
  RunDiagnosis d(2);
  trainAlike(d, 5);
  d.observe(heartbeat(0, 5, {call(0, 1, "train.py:50")}));
  d.observe(ended(1, 0));
  EXPECT_TRUE(ofKind(d, v1::Finding::KIND_COLLECTIVES).empty()) << "rank 0 may be leaving that call now";
  d.observe(heartbeat(0, 5, {call(0, 1, "train.py:50")}));
  auto found = ofKind(d, v1::Finding::KIND_COLLECTIVES);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(
      found.front().summary(),
      "From step 5 rank 0 calls all_reduce of 1 float32 (train.py:50), which rank 1 never calls. The ranks' "
      "collectives are out of step.");
}

TEST(CollectivesOutOfStep, ACallOnlyOneRankWasSeenInIsNamedOnceTheRunFailsInThatStep) {
  // Gloo aborts rank 0 in its extra all_reduce before rank 1 says where it is: rank 1's steps say what it
  // calls there.
  RunDiagnosis d(2);
  trainAlike(d, 30);
  d.observe(heartbeat(1, 30, {}));
  d.observe(heartbeat(0, 30, {call(0, 1, "train.py:28")}));
  EXPECT_TRUE(ofKind(d, v1::Finding::KIND_COLLECTIVES).empty()) << "rank 1 may call it too";
  d.observe(ended(0, 1));
  auto found = ofKind(d, v1::Finding::KIND_COLLECTIVES);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found.front().rank(), 0);
  EXPECT_EQ(
      found.front().summary(),
      "From step 30 rank 0 calls all_reduce of 1 float32 (train.py:28) where rank 1 calls all_reduce of "
      "262144 float32 (DDP bucket 0). The ranks' collectives are out of step.");
}

TEST(CollectivesOutOfStep, ACallEveryRankMakesInAStepOfItsOwnIsNoFinding) {
  RunDiagnosis d(2);
  trainAlike(d, 30);
  d.observe(heartbeat(0, 30, {call(0, 1, "metrics.py:3")}));
  d.observe(heartbeat(1, 30, {call(0, 1, "metrics.py:3")}));
  auto extra = buckets();
  extra.insert(extra.begin(), call(0, 1, "metrics.py:3"));
  for (int rank = 0; rank < 2; ++rank) {
    d.observe(callsRecord(rank, 30, extra, 0x77));
    d.observe(stepRecord(rank, 30, 3, 0x77));
  }
  d.observe(ended(0, 0));
  d.observe(ended(1, 0));
  EXPECT_TRUE(ofKind(d, v1::Finding::KIND_COLLECTIVES).empty());
}

TEST(CollectivesOutOfStep, ARankThatFailedIsTheCrashNotCollectivesOutOfStep) {
  RunDiagnosis d(2);
  trainAlike(d, 5);
  d.observe(heartbeat(0, 5, {buckets()[0]}));
  d.observe(ended(1, 1));
  d.observe(heartbeat(0, 5, {buckets()[0]}));
  EXPECT_TRUE(ofKind(d, v1::Finding::KIND_COLLECTIVES).empty());
  EXPECT_FALSE(ofKind(d, v1::Finding::KIND_CRASH).empty());
}

TEST(CollectivesOutOfStep, ASubgroupsCallsAreComparedOnlyBetweenItsMembers) {
  RunDiagnosis d(3);
  for (int rank = 0; rank < 3; ++rank) d.observe(callsRecord(rank, 0, buckets(), kBucketsCrc));
  for (int rank = 0; rank < 3; ++rank) d.observe(stepRecord(rank, 0));
  // Ranks 0 and 1 reduce on their pair's group; rank 2 is not in it and goes straight to the buckets.
  d.observe(heartbeat(0, 1, {call(0, 4, "pair.py:3", "all_reduce", "ranks 0,1"), buckets()[0]}));
  d.observe(heartbeat(1, 1, {call(0, 4, "pair.py:3", "all_reduce", "ranks 0,1")}));
  d.observe(heartbeat(2, 1, {buckets()[0]}));
  EXPECT_TRUE(ofKind(d, v1::Finding::KIND_COLLECTIVES).empty());
}

v1::Record hashes(int rank, uint64_t step, const std::vector<std::string>& names,
                  const std::vector<uint64_t>& values) {
  v1::Record r;
  auto* h = r.mutable_replicas();
  h->set_rank(rank);
  h->set_step(step);
  for (const auto& n : names) h->add_names(n);
  for (uint64_t v : values) h->add_hashes(v);
  return r;
}

const std::vector<std::string> kNames = {"0.weight", "0.bias", "2.weight", "2.bias", "4.weight", "4.bias"};

TEST(ReplicaDrift, EqualReplicasHaveNoFinding) {
  RunDiagnosis d(2);
  for (uint64_t step : {0, 100, 200}) {
    for (int rank = 0; rank < 2; ++rank) d.observe(hashes(rank, step, kNames, {1, 2, 3, 4, 5, 6 + step}));
  }
  EXPECT_TRUE(ofKind(d, v1::Finding::KIND_REPLICA_DRIFT).empty());
}

TEST(ReplicaDrift, TensorsThatDifferOnARankAreNamedWithTheStepTheyWereLastEqual) {
  RunDiagnosis d(3);
  d.setHost(2, "node-c");
  for (int rank = 0; rank < 3; ++rank) d.observe(hashes(rank, 0, kNames, {1, 2, 3, 4, 5, 6}));
  d.observe(hashes(0, 100, kNames, {1, 2, 3, 4, 15, 16}));
  d.observe(hashes(1, 100, kNames, {1, 2, 3, 4, 15, 16}));
  d.observe(hashes(2, 100, kNames, {1, 2, 3, 4, 25, 26}));
  auto found = ofKind(d, v1::Finding::KIND_REPLICA_DRIFT);
  ASSERT_EQ(found.size(), 1u);
  const auto& f = found.front();
  EXPECT_EQ(f.rank(), 2);
  EXPECT_EQ(f.host(), "node-c");
  EXPECT_EQ(f.since_step(), 100u);
  EXPECT_EQ(
      f.summary(),
      "From step 100 the replicas differ: 2 of 6 tensors (4.weight, 4.bias) hold other values on rank 2 than "
      "on rank 0; at step 0 they were equal.");
  EXPECT_EQ(f.evidence().at("drifting_tensors"), 2);
  EXPECT_EQ(f.evidence().at("last_equal_step"), 0);
  EXPECT_EQ(f.evidence().at("check_every_steps"), 100);
  EXPECT_NE(f.advice().find("added after DistributedDataParallel wrapped the model"), std::string::npos);
}

TEST(ReplicaDrift, ModelsWithOtherTensorsAreNamed) {
  RunDiagnosis d(2);
  d.observe(hashes(0, 0, kNames, {1, 2, 3, 4, 5, 6}));
  auto more = kNames;
  more.push_back("head.weight");
  d.observe(hashes(1, 0, more, {1, 2, 3, 4, 5, 6, 7}));
  auto found = ofKind(d, v1::Finding::KIND_REPLICA_DRIFT);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(
      found.front().summary(),
      "From step 0 the replicas differ: the model on rank 1 has other tensors than on rank 0 (head.weight).");
  EXPECT_NE(found.front().advice().find("train different models"), std::string::npos);
}

TEST(ReplicaDrift, ACheckARankNeverSendsIsComparedAmongThoseThatDid) {
  RunDiagnosis d(3);
  d.observe(hashes(0, 0, kNames, {1, 2, 3, 4, 5, 6}));
  d.observe(hashes(1, 0, kNames, {1, 2, 3, 4, 5, 7}));
  EXPECT_TRUE(ofKind(d, v1::Finding::KIND_REPLICA_DRIFT).empty()) << "waiting for rank 2";
  d.observe(hashes(0, 100, kNames, {1, 2, 3, 4, 5, 6}));
  auto found = ofKind(d, v1::Finding::KIND_REPLICA_DRIFT);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found.front().since_step(), 0u);
  EXPECT_EQ(found.front().rank(), 1);
}

}  // namespace

namespace {

v1::Record line(int rank, const std::string& text) {
  v1::Record r;
  r.mutable_log()->set_rank(rank);
  r.mutable_log()->set_stream(v1::LogLine::STREAM_STDERR);
  r.mutable_log()->set_text(text);
  return r;
}

TEST(MissingTelemetry, RanksTheOthersTrainedWithoutAreNamedWithWhatTheProgramSaid) {
  RunDiagnosis d(4);
  d.observe(line(0, "ringmaster: telemetry is off: the agent refused this rank: wrong secret"));
  for (uint64_t s = 0; s < 4; ++s) {
    for (int rank = 0; rank < 2; ++rank) d.observe(stepRecord(rank, s));
  }
  EXPECT_TRUE(ofKind(d, v1::Finding::KIND_MISSING_TELEMETRY).empty()) << "too early to tell";
  for (int rank = 0; rank < 2; ++rank) d.observe(stepRecord(rank, 4));
  auto found = ofKind(d, v1::Finding::KIND_MISSING_TELEMETRY);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(
      found.front().summary(),
      "Ranks 2, 3 sent no telemetry while the others finished 5 steps: their figures and findings are "
      "missing. The program's output says: \"ringmaster: telemetry is off: the agent refused this rank: "
      "wrong secret\".");
}

TEST(MissingTelemetry, ARankThatFailedOrAProgramWithNoTelemetryAtAllIsNoSuchFinding) {
  RunDiagnosis quiet(2);
  v1::Record log = line(0, "step 10");
  quiet.observe(log);
  EXPECT_TRUE(ofKind(quiet, v1::Finding::KIND_MISSING_TELEMETRY).empty());
  RunDiagnosis d(2);
  v1::Record failed;
  failed.mutable_rank_state()->set_rank(1);
  failed.mutable_rank_state()->set_state(v1::RankState::STATE_FAILED_TO_START);
  d.observe(failed);
  for (uint64_t s = 0; s < 10; ++s) d.observe(stepRecord(0, s));
  EXPECT_TRUE(ofKind(d, v1::Finding::KIND_MISSING_TELEMETRY).empty());
  EXPECT_FALSE(ofKind(d, v1::Finding::KIND_CRASH).empty());
}

}  // namespace
