// SPDX-License-Identifier: GPL-3.0-or-later
// The DDP engine against real Gloo process groups (ranks as threads, loopback).
#include <ATen/CPUGeneratorImpl.h>
#include <gtest/gtest.h>

#include <mutex>

#include "tests/unit/engine_test_ranks.h"
#include "worker/ddp_engine.h"

namespace ringmaster::worker {
namespace {

using testing::runRanks;
using testing::TestRank;

constexpr int64_t kMiBFloats = (1 << 20) / 4;

std::vector<torch::Tensor> floats(std::initializer_list<int64_t> sizes) {
  std::vector<torch::Tensor> out;
  for (auto n : sizes) out.push_back(torch::zeros({n}));
  return out;
}

// Ranks are threads: each draws from its own generator, never the global one.
at::Generator seeded(uint64_t seed) {
  return at::detail::createCPUGenerator(seed);
}

std::vector<size_t> reverseOrder(size_t n) {
  std::vector<size_t> order;
  for (size_t i = n; i-- > 0;) order.push_back(i);
  return order;
}

TEST(DdpBuckets, FirstBucketHoldsOneMiBThenTheCap) {
  // Reverse order: 6 5 4 3 2 1 0. Bucket 0 closes at >= 1 MiB, later ones at >= 2 MiB.
  auto params =
      floats({kMiBFloats, kMiBFloats, kMiBFloats, kMiBFloats / 2, kMiBFloats / 2, 100, kMiBFloats / 2});
  auto buckets = assignBuckets(params, reverseOrder(params.size()), kFirstBucketBytes, 2 << 20);
  std::vector<std::vector<size_t>> expected{{6, 5, 4}, {3, 2, 1}, {0}};
  EXPECT_EQ(buckets, expected);
}

TEST(DdpBuckets, ABucketHoldsOneDtype) {
  std::vector<torch::Tensor> params{torch::zeros({10}), torch::zeros({10}, torch::kFloat64),
                                    torch::zeros({10})};
  auto buckets = assignBuckets(params, {2, 1, 0}, kFirstBucketBytes, 2 << 20);
  std::vector<std::vector<size_t>> expected{{2, 0}, {1}};
  EXPECT_EQ(buckets, expected);
}

TEST(DdpBuckets, EngineStartsInReverseParameterOrder) {
  runRanks(1, [](TestRank& r) {
    auto params = floats({kMiBFloats, kMiBFloats, 10});
    for (auto& p : params) p.set_requires_grad(true);
    v1::HyperParameters hyper;
    hyper.set_bucket_cap_mb(1);
    DdpEngine engine(r.context(hyper), params);
    std::vector<std::vector<size_t>> expected{{2, 1}, {0}};
    EXPECT_EQ(engine.bucketLayout(), expected);
  });
}

// loss = sum(p * c) gives d loss / d p = c, so each rank's gradient is exactly what it chose.
torch::Tensor linearLoss(const std::vector<torch::Tensor>& params,
                         const std::vector<torch::Tensor>& coefficients) {
  auto loss = torch::zeros({});
  for (size_t i = 0; i < params.size(); ++i) loss = loss + (params[i] * coefficients[i]).sum();
  return loss;
}

void expectMeanGradients(int worldSize, double bucketCapMb) {
  const std::vector<int64_t> sizes{300, 5000, 70000, 17};
  // Integer-valued gradients: every partial sum is exact in float, whatever order the ring adds them in.
  auto gradientOf = [&](int rank, size_t i) {
    return torch::randint(-64, 64, {sizes[i]}, seeded(1000 * rank + i)).to(torch::kFloat);
  };
  runRanks(worldSize, [&](TestRank& r) {
    std::vector<torch::Tensor> params, coefficients;
    for (size_t i = 0; i < sizes.size(); ++i) {
      params.push_back(torch::zeros({sizes[i]}, torch::requires_grad()));
      coefficients.push_back(gradientOf(r.rank, i));
    }
    v1::HyperParameters hyper;
    hyper.set_bucket_cap_mb(bucketCapMb);
    DdpEngine engine(r.context(hyper), params);
    for (uint64_t step = 0; step < 3; ++step) {
      for (auto& p : params) {
        if (p.grad().defined()) p.mutable_grad().zero_();
      }
      engine.beforeBackward(step, true);
      linearLoss(params, coefficients).backward();
      engine.finishBackward();
      for (size_t i = 0; i < sizes.size(); ++i) {
        auto mean = torch::zeros({sizes[i]});
        for (int k = 0; k < worldSize; ++k) mean += gradientOf(k, i);
        mean /= worldSize;
        EXPECT_TRUE(torch::equal(params[i].grad(), mean)) << "rank " << r.rank << " parameter " << i;
      }
    }
    const auto buckets = engine.bucketLayout().size();
    EXPECT_EQ(engine.stats().collectives, 3 * buckets);
    EXPECT_EQ(r.probe->buffer().pushed(), 3 * buckets);  // one AllreduceOp record per bucket and step
  });
}

TEST(DdpEngine, GradientsAreTheExactMeanWithTwoRanks) {
  expectMeanGradients(2, 25);
}
TEST(DdpEngine, GradientsAreTheExactMeanWithFourRanksAndManyBuckets) {
  expectMeanGradients(4, 0.01);
}

TEST(DdpEngine, NoSyncPassesAccumulateWithoutCollectives) {
  runRanks(2, [](TestRank& r) {
    std::vector<torch::Tensor> params{torch::zeros({1000}, torch::requires_grad()),
                                      torch::zeros({3000}, torch::requires_grad())};
    auto c1 =
        std::vector<torch::Tensor>{torch::full({1000}, 1.0 + r.rank), torch::full({3000}, 2.0 * r.rank)};
    auto c2 = std::vector<torch::Tensor>{torch::full({1000}, 4.0), torch::full({3000}, -1.0 - r.rank)};
    DdpEngine engine(r.context(), params);
    engine.beforeBackward(0, false);
    linearLoss(params, c1).backward();
    EXPECT_EQ(engine.stats().collectives, 0u);
    EXPECT_EQ(engine.finishBackward(), 0);
    EXPECT_EQ(engine.stats().collectives, 0u);
    engine.beforeBackward(0, true);
    linearLoss(params, c2).backward();
    engine.finishBackward();
    EXPECT_EQ(engine.stats().collectives, 1u);
    // Rank 0 accumulated 1+4 and 0-1, rank 1 accumulated 2+4 and 2-2: means 5.5 and -0.5.
    EXPECT_TRUE(torch::equal(params[0].grad(), torch::full({1000}, 5.5)));
    EXPECT_TRUE(torch::equal(params[1].grad(), torch::full({3000}, -0.5)));
  });
}

TEST(DdpEngine, RebuildsBucketsFromRankZerosReadyOrder) {
  runRanks(2, [](TestRank& r) {
    // Registered a b c, each 1 MiB so that each fills its own bucket.
    std::vector<torch::Tensor> params;
    for (int i = 0; i < 3; ++i) params.push_back(torch::ones({kMiBFloats}, torch::requires_grad()));
    v1::HyperParameters hyper;
    hyper.set_bucket_cap_mb(1);
    DdpEngine engine(r.context(hyper), params);
    std::vector<std::vector<size_t>> initial{{2}, {1}, {0}};
    EXPECT_EQ(engine.bucketLayout(), initial);
    // Rank 0 uses c, a, b in a chain, so backward makes b, a, c ready; rank 1 uses another order.
    std::vector<size_t> use = r.rank == 0 ? std::vector<size_t>{2, 0, 1} : std::vector<size_t>{0, 1, 2};
    auto x = torch::full({kMiBFloats}, 0.5);
    for (uint64_t step = 0; step < 3; ++step) {
      for (auto& p : params) {
        if (p.grad().defined()) p.mutable_grad().zero_();
      }
      engine.beforeBackward(step, true);
      auto y = x;
      for (size_t i : use) y = y * params[i];
      y.sum().backward();
      engine.finishBackward();
    }
    std::vector<std::vector<size_t>> rebuilt{{1}, {0}, {2}};
    EXPECT_EQ(engine.bucketLayout(), rebuilt) << "rank " << r.rank;
    EXPECT_EQ(engine.stats().bucketRebuilds, 1u);
    // Every parameter's gradient is 0.5 on both ranks (0.5 times the other two ones), so is their mean.
    for (auto& p : params) EXPECT_TRUE(torch::equal(p.grad(), torch::full({kMiBFloats}, 0.5)));
  });
}

TEST(DdpEngine, CompressionKeepsRanksIdentical) {
  for (auto compression : {v1::COMPRESSION_FP16, v1::COMPRESSION_BF16}) {
    std::vector<torch::Tensor> results(2);
    std::mutex mutex;
    runRanks(2, [&](TestRank& r) {
      std::vector<torch::Tensor> params{torch::zeros({4096}, torch::requires_grad())};
      std::vector<torch::Tensor> c{torch::randn({4096}, seeded(7 + r.rank))};
      v1::HyperParameters hyper;
      hyper.set_compression(compression);
      DdpEngine engine(r.context(hyper), params);
      engine.beforeBackward(0, true);
      linearLoss(params, c).backward();
      engine.finishBackward();
      std::lock_guard lock(mutex);
      results[r.rank] = params[0].grad().clone();
    });
    EXPECT_TRUE(torch::equal(results[0], results[1])) << compressionName(compression);
    auto mean = (torch::randn({4096}, seeded(7)) + torch::randn({4096}, seeded(8))) / 2;
    EXPECT_TRUE(torch::allclose(results[0], mean, 1e-2, 1e-2)) << compressionName(compression);
    EXPECT_FALSE(torch::equal(results[0], mean))
        << "compression should round: " << compressionName(compression);
  }
}

TEST(DdpEngine, BroadcastsRankZerosParametersAndBuffers) {
  runRanks(3, [](TestRank& r) {
    torch::nn::Sequential model(torch::nn::Linear(20, 30), torch::nn::BatchNorm1d(30),
                                torch::nn::Linear(30, 2));
    auto valueOf = [](int rank, size_t i, const torch::Tensor& like) {
      return torch::randn(like.sizes(), seeded(100 * rank + i));
    };
    {
      torch::NoGradGuard noGrad;
      auto params = model->parameters();
      for (size_t i = 0; i < params.size(); ++i) params[i].copy_(valueOf(r.rank, i, params[i]));
      for (auto& b : model->buffers()) b.fill_(r.rank + 1.0);
    }
    torch::optim::SGD optimizer(model->parameters(), torch::optim::SGDOptions(0.1));
    auto engine = makeDdpEngine(r.context(), model->parameters());
    engine->broadcastInitialState(*model, optimizer);
    auto params = model->parameters();
    for (size_t i = 0; i < params.size(); ++i) {
      EXPECT_TRUE(torch::equal(params[i], valueOf(0, i, params[i]))) << "parameter " << i;
    }
    for (auto& b : model->buffers()) EXPECT_TRUE(torch::equal(b, torch::ones_like(b)));
  });
}

TEST(DdpEngine, RecordsAllreduceTimelineWhenOn) {
  runRanks(2, [](TestRank& r) {
    r.probe->setTimelineOn(true);
    std::vector<torch::Tensor> params{torch::zeros({100}, torch::requires_grad())};
    DdpEngine engine(r.context(), params);
    engine.beforeBackward(5, true);
    linearLoss(params, {torch::ones({100})}).backward();
    engine.finishBackward();
    auto records = r.probe->buffer().drain(100);
    int allreduces = 0, spans = 0;
    for (const auto& rec : records) {
      if (rec.has_allreduce()) {
        ++allreduces;
        EXPECT_EQ(rec.allreduce().bytes(), 400u);
        EXPECT_EQ(rec.allreduce().step(), 5u);
        EXPECT_GE(rec.allreduce().end_ns(), rec.allreduce().start_ns());
      }
      if (rec.has_timeline() && rec.timeline().name() == "ALLREDUCE") {
        ++spans;
        EXPECT_EQ(rec.timeline().lane(), "comm");
      }
    }
    EXPECT_EQ(allreduces, 1);
    EXPECT_EQ(spans, 1);
  });
}

}  // namespace
}  // namespace ringmaster::worker
