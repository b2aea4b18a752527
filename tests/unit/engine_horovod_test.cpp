// SPDX-License-Identifier: GPL-3.0-or-later
// The Horovod engine: negotiation and fusion as pure functions, then the engine against real Gloo groups
// (ranks as threads, loopback).
#include <ATen/CPUGeneratorImpl.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

#include "tests/unit/engine_test_ranks.h"
#include "worker/fusion_buffer.h"
#include "worker/horovod_engine.h"
#include "worker/negotiation.h"
#include "worker/response_cache.h"

namespace ringmaster::worker {
namespace {

using testing::runRanks;
using testing::TestRank;

at::Generator seeded(uint64_t seed) {
  return at::detail::createCPUGenerator(seed);
}

CycleReport reportOf(std::vector<int64_t> readyNs, bool active = true) {
  CycleReport r;
  r.active = active;
  r.readyNs = std::move(readyNs);
  return r;
}

TEST(Negotiation, ReportsAndResponsesSurviveEncoding) {
  CycleReport report = reportOf({0, 5, 7});
  report.shutdown = true;
  auto encoded = report.encode();
  ASSERT_EQ(encoded.size(), CycleReport::encodedSize(3));
  auto back = CycleReport::decode(encoded.data(), 3);
  EXPECT_TRUE(back.shutdown);
  EXPECT_TRUE(back.active);
  EXPECT_EQ(back.readyNs, report.readyNs);

  CycleResponse response;
  response.idle = true;
  response.order = {2, 0};
  auto bytes = response.encode(3);
  ASSERT_EQ(bytes.size(), CycleResponse::encodedSize(3));
  auto decoded = CycleResponse::decode(bytes.data(), 3);
  EXPECT_TRUE(decoded.idle);
  EXPECT_FALSE(decoded.shutdown);
  EXPECT_EQ(decoded.order, response.order);
}

TEST(Negotiation, ATensorIsReadyWhenEveryRankReportedIt) {
  // Tensor 0 only on rank 0; tensor 1 everywhere (last at 40); tensor 2 everywhere (last at 30); 3 nowhere.
  auto response = coordinate({reportOf({10, 20, 30, 0}), reportOf({0, 40, 25, 0})});
  EXPECT_EQ(response.order, (std::vector<size_t>{2, 1}));
  EXPECT_FALSE(response.idle);
  EXPECT_FALSE(response.shutdown);
}

TEST(Negotiation, IdleOnlyWhenNoRankIsInsideABackward) {
  EXPECT_TRUE(coordinate({reportOf({0, 0}, false), reportOf({0, 0}, false)}).idle);
  EXPECT_FALSE(coordinate({reportOf({0, 0}, false), reportOf({0, 0}, true)}).idle);
  auto closing = reportOf({0, 0}, false);
  closing.shutdown = true;
  EXPECT_TRUE(coordinate({reportOf({0, 0}), closing}).shutdown);
}

TEST(StallInspector, NamesTheMissingRankAndTensorAfterTheThreshold) {
  StallInspector inspector(3, 2.0);
  const int64_t s = 1'000'000'000;
  // Ranks 0 and 2 submitted tensor 1; rank 1 did not.
  std::vector<CycleReport> reports{reportOf({0, 5, 0}), reportOf({0, 0, 0}), reportOf({0, 5, 0})};
  EXPECT_FALSE(inspector.check(reports, 10 * s));
  EXPECT_FALSE(inspector.check(reports, 11 * s));
  auto stall = inspector.check(reports, 12 * s);
  ASSERT_TRUE(stall);
  EXPECT_EQ(stall->missing, (std::map<int, std::vector<size_t>>{{1, {1}}}));
  EXPECT_EQ(stall->readyRanks, (std::vector<int>{0, 2}));
  EXPECT_DOUBLE_EQ(stall->waitedS, 2.0);
  auto text = stall->describe({"fc.weight", "conv1.weight", "fc.bias"}, 2.0);
  EXPECT_NE(text.find("rank 1: [conv1.weight]"), std::string::npos) << text;
  EXPECT_FALSE(inspector.check(reports, 13 * s)) << "warned again before another threshold passed";
  EXPECT_TRUE(inspector.check(reports, 14 * s));
  // Once rank 1 submits, the stall is over.
  reports[1].readyNs[1] = 7;
  EXPECT_FALSE(inspector.check(reports, 20 * s));
}

TEST(StallInspector, CachedCyclesAskForAFullNegotiationThatNamesTheRank) {
  StallInspector inspector(3, 2.0);
  const int64_t s = 1'000'000'000;
  // Cached cycles show only that tensor 1 is ready on some ranks and not others.
  const std::vector<bool> partly{false, true, false};
  EXPECT_FALSE(inspector.wantsDetail(partly, 10 * s));
  EXPECT_FALSE(inspector.wantsDetail({false, false, false}, 11 * s)) << "it became ready everywhere";
  EXPECT_FALSE(inspector.wantsDetail(partly, 12 * s));
  EXPECT_FALSE(inspector.wantsDetail(partly, 13 * s));
  EXPECT_TRUE(inspector.wantsDetail(partly, 14 * s)) << "waited a threshold since 12 s";
  // The full negotiation that follows names rank 1 at once, from the time the cached cycles first saw it.
  std::vector<CycleReport> reports{reportOf({0, 5, 0}), reportOf({0, 0, 0}), reportOf({0, 5, 0})};
  auto stall = inspector.check(reports, 14 * s + 1000);
  ASSERT_TRUE(stall);
  EXPECT_EQ(stall->missing, (std::map<int, std::vector<size_t>>{{1, {1}}}));
  EXPECT_NEAR(stall->waitedS, 2.0, 1e-5);
  // Not again until another threshold has passed.
  EXPECT_FALSE(inspector.wantsDetail(partly, 15 * s));
  EXPECT_TRUE(inspector.wantsDetail(partly, 16 * s + 1000));
}

TensorSignature floats(std::vector<int64_t> shape) {
  return {static_cast<int32_t>(torch::kFloat), std::move(shape)};
}

TEST(ResponseCache, HitsUntilTheShapeOrDtypeChanges) {
  ResponseCache cache(8);
  EXPECT_EQ(cache.lookup("fc.weight", floats({10, 4})), ResponseCache::Lookup::kMiss);
  const uint32_t bit = cache.put("fc.weight", floats({10, 4}), 3);
  EXPECT_EQ(cache.put("fc.bias", floats({10}), 4), bit + 1);
  EXPECT_EQ(cache.lookup("fc.weight", floats({10, 4})), ResponseCache::Lookup::kHit);
  EXPECT_EQ(cache.tensorAt(bit), 3u);
  EXPECT_EQ(cache.lookup("fc.weight", floats({10, 5})), ResponseCache::Lookup::kInvalid);
  EXPECT_EQ(cache.lookup("fc.weight", TensorSignature{static_cast<int32_t>(torch::kHalf), {10, 4}}),
            ResponseCache::Lookup::kInvalid);
  // Dropping the stale answer frees its bit for the next newcomer; the vector keeps its length.
  cache.erase(bit);
  EXPECT_EQ(cache.lookup("fc.weight", floats({10, 5})), ResponseCache::Lookup::kMiss);
  EXPECT_EQ(cache.put("fc.weight", floats({10, 5}), 3), bit);
  EXPECT_EQ(cache.lookup("fc.weight", floats({10, 5})), ResponseCache::Lookup::kHit);
  EXPECT_EQ(cache.bits(), 2u);
  EXPECT_EQ(cache.size(), 2u);
}

TEST(ResponseCache, EvictsTheLeastRecentlyUsedTheSameWayOnEveryRank) {
  // Two ranks' caches fed the same agreed answers and uses end up with the same bits.
  std::vector<ResponseCache> ranks(2, ResponseCache(2));
  for (auto& cache : ranks) {
    cache.put("a", floats({1}), 0);
    cache.put("b", floats({2}), 1);
    cache.touch(*cache.bitOf("a"));  // b is now the least recently used
    EXPECT_EQ(cache.put("c", floats({3}), 2), 1u) << "c takes the bit of the evicted b";
  }
  for (auto& cache : ranks) {
    EXPECT_FALSE(cache.bitOf("b"));
    EXPECT_EQ(cache.bitOf("a"), 0u);
    EXPECT_EQ(cache.bitOf("c"), 1u);
    EXPECT_EQ(cache.evictions(), 1u);
    EXPECT_EQ(cache.size(), cache.capacity());
  }
}

TEST(ResponseCache, TheBitVectorAndOverRanksGivesCommonHitsAndAnyRankFlags) {
  CacheCycle first(70), second(70);  // more than one word per section
  first.hit[3] = first.pending[3] = true;
  first.hit[68] = first.pending[68] = true;
  second.hit[68] = second.pending[68] = true;
  second.invalid[5] = true;
  second.uncached = true;
  first.active = true;
  auto a = first.encode();
  const auto b = second.encode();
  ASSERT_EQ(a.size(), CacheCycle::encodedSize(70));
  for (size_t i = 0; i < a.size(); ++i) a[i] &= b[i];  // what the bitwise-AND all-reduce does
  const CacheCycle all = CacheCycle::decode(a.data(), 70);
  EXPECT_FALSE(all.hit[3]) << "ready on one rank only";
  EXPECT_TRUE(all.hit[68]);
  EXPECT_TRUE(all.pending[3]);
  EXPECT_TRUE(all.pending[68]);
  EXPECT_FALSE(all.pending[5]);
  EXPECT_TRUE(all.invalid[5]);
  EXPECT_FALSE(all.invalid[3]);
  EXPECT_TRUE(all.uncached);
  EXPECT_TRUE(all.active);
  EXPECT_FALSE(all.shutdown);
  EXPECT_FALSE(all.wantsDetail);
  const CacheCycle alone = CacheCycle::decode(first.encode().data(), 70);
  EXPECT_EQ(alone.hit, first.hit);
  EXPECT_EQ(alone.pending, first.pending);
  EXPECT_FALSE(alone.uncached);
}

TEST(Fusion, PacksOneDtypeUpToTheThresholdWithLookAhead) {
  std::vector<torch::Tensor> tensors{torch::zeros({100}), torch::zeros({200}), torch::zeros({50}),
                                     torch::zeros({10}, torch::kFloat64), torch::zeros({40})};
  // 1000 bytes: 400 + 800 does not fit, 400 + 200 + 160 does; the float64 one travels apart.
  auto plan = planFusion(tensors, 1000);
  EXPECT_EQ(plan, (std::vector<std::vector<size_t>>{{0, 2, 4}, {1}, {3}}));
  EXPECT_EQ(planFusion(tensors, 0), (std::vector<std::vector<size_t>>{{0}, {1}, {2}, {3}, {4}}));
  // Counted at 2 bytes per element (fp16 on the wire) the float ones take 780 bytes.
  EXPECT_EQ(planFusion(tensors, 780, 2), (std::vector<std::vector<size_t>>{{0, 1, 2, 4}, {3}}));
  EXPECT_EQ(planFusion(tensors, 700, 2), (std::vector<std::vector<size_t>>{{0, 1, 2}, {3}, {4}}));
}

TEST(Fusion, UnpackRestoresWhatWasPackedAndDivides) {
  std::vector<torch::Tensor> sources{torch::randn({3, 4}, seeded(1)), torch::randn({7}, seeded(2))};
  FusionBufferPool pool;
  auto buffer = pool.acquire(torch::kFloat, 19);
  packFusionBuffer(sources, buffer);
  std::vector<torch::Tensor> targets{torch::empty({3, 4}), torch::empty({7})};
  unpackFusionBuffer(buffer, targets, 1);
  EXPECT_TRUE(torch::equal(targets[0], sources[0]));
  EXPECT_TRUE(torch::equal(targets[1], sources[1]));
  unpackFusionBuffer(buffer * 4, targets, 4);
  EXPECT_TRUE(torch::equal(targets[1], sources[1]));
  // The allocation comes back for the next cycle.
  const void* data = buffer.data_ptr();
  pool.release(buffer);
  EXPECT_EQ(pool.acquire(torch::kFloat, 10).data_ptr(), data);
}

std::vector<std::pair<std::string, torch::Tensor>> namedParameters(const std::vector<int64_t>& sizes) {
  std::vector<std::pair<std::string, torch::Tensor>> out;
  for (size_t i = 0; i < sizes.size(); ++i) {
    out.emplace_back("layer" + std::to_string(i) + ".weight",
                     torch::zeros({sizes[i]}, torch::requires_grad()));
  }
  return out;
}

torch::Tensor linearLoss(const std::vector<std::pair<std::string, torch::Tensor>>& params,
                         const std::vector<torch::Tensor>& coefficients) {
  auto loss = torch::zeros({});
  for (size_t i = 0; i < params.size(); ++i) loss = loss + (params[i].second * coefficients[i]).sum();
  return loss;
}

void zeroGradients(const std::vector<std::pair<std::string, torch::Tensor>>& params) {
  for (auto& [name, p] : params) {
    if (p.grad().defined()) p.mutable_grad().zero_();
  }
}

struct HorovodRun {
  int worldSize = 2;
  double fusionMb = 64;
  v1::ReduceOp op = v1::REDUCE_OP_AVERAGE;
  v1::Compression compression = v1::COMPRESSION_NONE;
  bool responseCache = true;
};

// Runs 3 steps with integer-valued per-rank gradients and checks the reduced gradients exactly; returns each
// rank's fusion groups of the last step.
std::vector<std::vector<std::vector<size_t>>> expectReducedGradients(const HorovodRun& run) {
  const std::vector<int64_t> sizes{300, 5000, 70000, 17, 2048};
  auto gradientOf = [&](int rank, size_t i) {
    return torch::randint(-64, 64, {sizes[i]}, seeded(1000 * rank + i)).to(torch::kFloat);
  };
  std::vector<std::vector<std::vector<size_t>>> fusion(run.worldSize);
  std::mutex mutex;
  runRanks(run.worldSize, [&](TestRank& r) {
    auto params = namedParameters(sizes);
    std::vector<torch::Tensor> coefficients;
    for (size_t i = 0; i < sizes.size(); ++i) coefficients.push_back(gradientOf(r.rank, i));
    v1::HyperParameters hyper;
    hyper.set_fusion_threshold_mb(run.fusionMb);
    hyper.set_cycle_time_ms(1);
    hyper.set_reduce_op(run.op);
    hyper.set_compression(run.compression);
    hyper.set_no_response_cache(!run.responseCache);
    HorovodEngine engine(r.context(hyper), params);
    for (uint64_t step = 0; step < 3; ++step) {
      zeroGradients(params);
      engine.beforeBackward(step, true);
      linearLoss(params, coefficients).backward();
      engine.finishBackward();
      for (size_t i = 0; i < sizes.size(); ++i) {
        auto expected = torch::zeros({sizes[i]});
        for (int k = 0; k < run.worldSize; ++k) expected += gradientOf(k, i);
        if (run.op == v1::REDUCE_OP_AVERAGE) expected /= run.worldSize;
        EXPECT_TRUE(torch::equal(params[i].second.grad(), expected)) << "rank " << r.rank << " tensor " << i;
      }
    }
    std::lock_guard lock(mutex);
    fusion[r.rank] = engine.lastStepFusion();
  });
  return fusion;
}

TEST(HorovodEngine, AverageIsTheExactMeanAndEveryRankReducesInOneOrder) {
  auto fusion = expectReducedGradients({});
  EXPECT_EQ(fusion[0], fusion[1]);
  size_t tensors = 0;
  for (const auto& buffer : fusion[0]) tensors += buffer.size();
  EXPECT_EQ(tensors, 5u);
}

TEST(HorovodEngine, WithoutTheResponseCacheTheAverageIsExactToo) {
  HorovodRun run;
  run.responseCache = false;
  auto fusion = expectReducedGradients(run);
  EXPECT_EQ(fusion[0], fusion[1]);
}

// After the first step every tensor has an agreed answer: later steps need no negotiation through rank 0,
// only cached cycles; without the cache every cycle is a negotiation.
TEST(HorovodEngine, AfterTheFirstStepCyclesUseTheResponseCache) {
  for (const bool cache : {true, false}) {
    std::vector<EngineStats> afterFirst(2), atEnd(2);
    runRanks(2, [&](TestRank& r) {
      auto params = namedParameters({100, 3000, 7});
      std::vector<torch::Tensor> c{torch::ones({100}), torch::ones({3000}), torch::ones({7})};
      v1::HyperParameters hyper;
      hyper.set_cycle_time_ms(1);
      hyper.set_no_response_cache(!cache);
      HorovodEngine engine(r.context(hyper), params);
      for (uint64_t step = 0; step < 6; ++step) {
        zeroGradients(params);
        engine.beforeBackward(step, true);
        linearLoss(params, c).backward();
        engine.finishBackward();
        if (step == 0) afterFirst[r.rank] = engine.stats();
        EXPECT_TRUE(torch::equal(params[1].second.grad(), torch::ones({3000})));
      }
      atEnd[r.rank] = engine.stats();
    });
    for (int rank = 0; rank < 2; ++rank) {
      SCOPED_TRACE("rank " + std::to_string(rank) + (cache ? " with" : " without") + " the cache");
      EXPECT_GT(afterFirst[rank].negotiations, 0u);
      EXPECT_GT(atEnd[rank].collectives, afterFirst[rank].collectives);
      if (cache) {
        EXPECT_EQ(atEnd[rank].negotiations, afterFirst[rank].negotiations);
        EXPECT_GT(atEnd[rank].cachedCycles, afterFirst[rank].cachedCycles);
      } else {
        EXPECT_GT(atEnd[rank].negotiations, afterFirst[rank].negotiations);
        EXPECT_EQ(atEnd[rank].cachedCycles, 0u);
      }
    }
    // Every rank took part in every cycle that answered tensors.
    EXPECT_EQ(atEnd[0].negotiations, atEnd[1].negotiations);
    EXPECT_EQ(atEnd[0].cachedCycles, atEnd[1].cachedCycles);
  }
}

// Once a step has been seen, the next ones are planned from it: a rank holds its cycle until the whole
// planned buffer is ready, so gradients that arrive several cycles apart still go out in one buffer, with one
// cycle and one all-reduce a step (ticking cycles would send each of these gradients alone).
TEST(HorovodEngine, APlannedStepIsOneCycleAndOneAllReduce) {
  std::vector<EngineStats> afterFirst(2), atEnd(2);
  std::vector<std::vector<std::vector<size_t>>> fusion(2);
  std::mutex mutex;
  constexpr uint64_t kSteps = 5;
  runRanks(2, [&](TestRank& r) {
    auto params = namedParameters({100, 3000, 7});
    v1::HyperParameters hyper;
    hyper.set_cycle_time_ms(1);
    hyper.set_fusion_threshold_mb(64);
    HorovodEngine engine(r.context(hyper), params);
    for (uint64_t step = 0; step < kSteps; ++step) {
      zeroGradients(params);
      engine.beforeBackward(step, true);
      // Each gradient becomes ready 5 ms (five cycles) after the one before.
      auto loss = torch::zeros({});
      for (const auto& [name, p] : params) {
        auto term = (p * static_cast<double>(r.rank + 1)).sum();
        term.register_hook([](torch::Tensor grad) {
          std::this_thread::sleep_for(std::chrono::milliseconds(5));
          return grad;
        });
        loss = loss + term;
      }
      loss.backward();
      engine.finishBackward();
      if (step == 0) afterFirst[r.rank] = engine.stats();
      for (const auto& [name, p] : params)
        EXPECT_TRUE(torch::equal(p.grad(), torch::full_like(p, 1.5))) << name;
    }
    std::lock_guard lock(mutex);
    atEnd[r.rank] = engine.stats();
    fusion[r.rank] = engine.lastStepFusion();
  });
  EXPECT_EQ(fusion[0], fusion[1]);
  EXPECT_EQ(fusion[0].size(), 1u) << "the planned buffer holds all three gradients";
  for (int rank = 0; rank < 2; ++rank) {
    SCOPED_TRACE("rank " + std::to_string(rank));
    EXPECT_EQ(atEnd[rank].collectives - afterFirst[rank].collectives, kSteps - 1);
    EXPECT_EQ(atEnd[rank].cachedCycles - afterFirst[rank].cachedCycles, kSteps - 1);
    EXPECT_EQ(atEnd[rank].negotiations, afterFirst[rank].negotiations);
  }
}

TEST(HorovodEngine, FourRanksWithoutFusionSumExactly) {
  HorovodRun run;
  run.worldSize = 4;
  run.fusionMb = 0;
  run.op = v1::REDUCE_OP_SUM;
  auto fusion = expectReducedGradients(run);
  for (int r = 1; r < 4; ++r) EXPECT_EQ(fusion[r], fusion[0]);
  EXPECT_EQ(fusion[0].size(), 5u) << "fusion threshold 0 gives one all-reduce per tensor";
}

TEST(HorovodEngine, SmallTensorsShareAFusionBuffer) {
  std::vector<EngineStats> stats(2);
  std::vector<std::vector<std::vector<size_t>>> fusion(2);
  std::mutex mutex;
  runRanks(2, [&](TestRank& r) {
    auto params = namedParameters({100, 100, 100, 100});
    std::vector<torch::Tensor> c(4, torch::ones({100}));
    v1::HyperParameters hyper;
    hyper.set_fusion_threshold_mb(64);
    hyper.set_cycle_time_ms(50);  // long enough that all four arrive within one cycle
    HorovodEngine engine(r.context(hyper), params);
    engine.beforeBackward(0, true);
    linearLoss(params, c).backward();
    engine.finishBackward();
    std::lock_guard lock(mutex);
    stats[r.rank] = engine.stats();
    fusion[r.rank] = engine.lastStepFusion();
  });
  EXPECT_EQ(fusion[0], fusion[1]);
  EXPECT_EQ(stats[0].collectives, fusion[0].size());
  EXPECT_LT(fusion[0].size(), 4u) << "expected fusion of tensors that were ready in the same cycle";
  EXPECT_EQ(stats[0].bytesReduced, 1600u);
}

TEST(HorovodEngine, LocalAccumulationPassesSendNothing) {
  runRanks(2, [](TestRank& r) {
    auto params = namedParameters({64, 64});
    std::vector<torch::Tensor> c{torch::full({64}, 1.0 + r.rank), torch::full({64}, 3.0)};
    HorovodEngine engine(r.context(), params);
    engine.beforeBackward(0, false);
    linearLoss(params, c).backward();
    EXPECT_EQ(engine.finishBackward(), 0);
    EXPECT_EQ(engine.stats().collectives, 0u);
    engine.beforeBackward(0, true);
    linearLoss(params, c).backward();
    engine.finishBackward();
    EXPECT_GT(engine.stats().collectives, 0u);
    // Two passes: rank 0 holds 2, rank 1 holds 4 for tensor 0; 6 and 6 for tensor 1.
    EXPECT_TRUE(torch::equal(params[0].second.grad(), torch::full({64}, 3.0)));
    EXPECT_TRUE(torch::equal(params[1].second.grad(), torch::full({64}, 6.0)));
  });
}

TEST(HorovodEngine, Fp16CompressionKeepsRanksIdentical) {
  std::vector<torch::Tensor> results(2);
  std::mutex mutex;
  runRanks(2, [&](TestRank& r) {
    auto params = namedParameters({4096, 333});
    std::vector<torch::Tensor> c{torch::randn({4096}, seeded(7 + r.rank)),
                                 torch::randn({333}, seeded(9 + r.rank))};
    v1::HyperParameters hyper;
    hyper.set_compression(v1::COMPRESSION_FP16);
    hyper.set_fusion_threshold_mb(64);
    HorovodEngine engine(r.context(hyper), params);
    engine.beforeBackward(0, true);
    linearLoss(params, c).backward();
    engine.finishBackward();
    std::lock_guard lock(mutex);
    results[r.rank] = params[0].second.grad().clone();
  });
  EXPECT_TRUE(torch::equal(results[0], results[1]));
  auto mean = (torch::randn({4096}, seeded(7)) + torch::randn({4096}, seeded(8))) / 2;
  EXPECT_TRUE(torch::allclose(results[0], mean, 1e-2, 1e-2));
  EXPECT_FALSE(torch::equal(results[0], mean)) << "fp16 on the wire should round";
}

TEST(HorovodEngine, BroadcastsParametersAndOptimizerState) {
  runRanks(2, [](TestRank& r) {
    torch::nn::Linear model(8, 4);
    {
      torch::NoGradGuard noGrad;
      for (auto& p : model->parameters()) p.fill_(r.rank + 1.0);
    }
    torch::optim::SGD optimizer(model->parameters(),
                                torch::optim::SGDOptions(r.rank == 0 ? 0.5 : 0.1).momentum(0.9));
    // Give rank 0 a momentum buffer that rank 1 lacks.
    if (r.rank == 0) {
      for (auto& p : model->parameters()) p.mutable_grad() = torch::ones_like(p);
      optimizer.step();
      torch::NoGradGuard noGrad;
      for (auto& p : model->parameters()) p.fill_(1.0);
    }
    std::vector<std::pair<std::string, torch::Tensor>> named;
    for (auto& item : model->named_parameters()) named.emplace_back(item.key(), item.value());
    HorovodEngine engine(r.context(), named);
    engine.broadcastInitialState(*model, optimizer);
    for (auto& p : model->parameters()) EXPECT_TRUE(torch::equal(p, torch::ones_like(p)));
    auto& options = static_cast<torch::optim::SGDOptions&>(optimizer.param_groups()[0].options());
    EXPECT_DOUBLE_EQ(options.lr(), 0.5);
    EXPECT_EQ(optimizer.state().size(), 2u) << "rank " << r.rank << " should hold rank 0's momentum buffers";
  });
}

// With the response cache the withheld tensor is a cached one: cached cycles see only that some ranks have it
// ready, so rank 0 asks for a full negotiation once it has waited the threshold, which names the rank; the
// warning comes well within twice the threshold (Horovod's own cache takes about two).
class StallWithCache : public ::testing::TestWithParam<bool> {};

TEST_P(StallWithCache, StallInspectorNamesTheRankThatWithholdsATensor) {
  const bool cache = GetParam();
  const double threshold = cache ? 1.0 : 0.5;
  ::testing::internal::CaptureStderr();
  std::atomic<bool> stallSeen{false};
  std::vector<v1::StallReport> reports;
  runRanks(3, [&](TestRank& r) {
    auto params = namedParameters({10, 20});
    std::vector<torch::Tensor> c{torch::ones({10}), torch::ones({20})};
    v1::HyperParameters hyper;
    hyper.set_stall_check_s(threshold);
    hyper.set_no_response_cache(!cache);
    v1::FaultInjection faults;
    auto* hang = faults.add_hangs();
    hang->set_rank(2);
    hang->set_step(1);
    HorovodEngine engine(r.context(hyper, faults), params);
    engine.beforeBackward(0, true);
    linearLoss(params, c).backward();
    engine.finishBackward();  // step 0 is healthy
    zeroGradients(params);
    engine.beforeBackward(1, true);
    linearLoss(params, c).backward();  // rank 2 keeps layer0.weight back; nobody can finish step 1
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (!stallSeen && std::chrono::steady_clock::now() < deadline) {
      if (r.rank == 0) {
        for (auto& record : r.probe->buffer().drain(1000)) {
          if (record.has_stall()) {
            reports.push_back(record.stall());
            stallSeen = true;
          }
        }
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    // Destroying the engines shuts the cycle down on every rank.
  });
  const std::string err = ::testing::internal::GetCapturedStderr();
  ASSERT_TRUE(stallSeen) << err;
  ASSERT_FALSE(reports.empty());
  const auto& stall = reports.front();
  EXPECT_EQ(stall.reporting_rank(), 0);
  ASSERT_EQ(stall.missing_ranks_size(), 1);
  EXPECT_EQ(stall.missing_ranks(0), 2);
  ASSERT_EQ(stall.tensors_size(), 1);
  EXPECT_EQ(stall.tensors(0), "layer0.weight");
  EXPECT_GE(stall.waited_s(), threshold);
  EXPECT_LT(stall.waited_s(), 2 * threshold);
  EXPECT_NE(err.find("rank 2: [layer0.weight]"), std::string::npos) << err;
  EXPECT_NE(err.find("--inject-hang"), std::string::npos) << err;
}

INSTANTIATE_TEST_SUITE_P(HorovodEngine, StallWithCache, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "Cached" : "Negotiated"; });

}  // namespace
}  // namespace ringmaster::worker
