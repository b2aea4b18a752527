// SPDX-License-Identifier: GPL-3.0-or-later
#include "console/session/run_progress.h"

#include <algorithm>
#include <charconv>

#include "agent/child_process.h"
#include "common/job_spec.h"

namespace ringmaster::console {
namespace {

constexpr size_t kRecentSteps = 20;

uint64_t ceilDiv(uint64_t a, uint64_t b) {
  return b == 0 ? 0 : (a + b - 1) / b;
}

uint64_t trainingSetSize(v1::Dataset dataset) {
  switch (dataset) {
    case v1::DATASET_FASHION_MNIST:
      return 60000;
    case v1::DATASET_CIFAR10:
      return 50000;
    case v1::DATASET_SYNTHETIC:
      return 2048;
    default:
      return 0;
  }
}

// The steps a program was told to train for on its command line: `--steps N`, `--max-steps N` (or
// `--max_steps`, and the `=N` forms). 0 where it was not told: it decides for itself how long it trains.
uint64_t programSteps(const v1::UserProgram& program) {
  const auto& argv = program.argv();
  for (int i = 1; i < argv.size(); ++i) {
    const std::string& word = argv[i];
    std::string value;
    for (const char* flag : {"--steps", "--max-steps", "--max_steps"}) {
      const std::string name = flag;
      if (word == name && i + 1 < argv.size()) value = argv[i + 1];
      if (word.rfind(name + "=", 0) == 0) value = word.substr(name.size() + 1);
    }
    uint64_t steps = 0;
    if (!value.empty() &&
        std::from_chars(value.data(), value.data() + value.size(), steps).ptr == value.data() + value.size())
      return steps;
  }
  return 0;
}

}  // namespace

uint64_t expectedSteps(const v1::JobSpec& spec) {
  if (isUserProgram(spec)) return programSteps(spec.program());
  const auto& h = spec.hyper();
  if (h.steps() > 0) return h.steps();
  uint64_t world = std::max<uint64_t>(1, spec.world_size());
  uint64_t perRank =
      ceilDiv(trainingSetSize(spec.dataset()), world);  // DistributedSampler pads to equal shares
  uint64_t microBatches = ceilDiv(perRank, std::max<uint64_t>(1, h.batch_size()));
  return uint64_t{h.epochs()} * ceilDiv(microBatches, std::max<uint64_t>(1, h.accumulation_steps()));
}

LiveProgress::LiveProgress(const v1::JobSpec& spec)
    : totalSteps_(expectedSteps(spec)),
      worldSize_(static_cast<int>(std::max<uint32_t>(1, spec.world_size()))) {
  for (int r = 0; r < worldSize_; ++r) ranks_[r].progress.rank = r;
}

void LiveProgress::onRecords(const std::string&, const std::string& host,
                             const std::vector<v1::Record>& records) {
  std::lock_guard lock(mutex_);
  for (const auto& record : records) {
    if (record.has_step()) {
      const auto& s = record.step();
      Rank& rank = ranks_[s.rank()];
      rank.progress.rank = s.rank();
      rank.progress.host = host;
      rank.progress.step = s.step() + 1;
      rank.progress.loss = s.loss();
      rank.progress.computeMs = static_cast<double>(s.forward_ns() + s.backward_ns()) / 1e6;
      rank.progress.commWaitMs = static_cast<double>(s.comm_wait_ns()) / 1e6;
      rank.progress.state = "running";
      rank.recent.emplace_back(s.samples(), s.total_ns());
      if (rank.recent.size() > kRecentSteps) rank.recent.pop_front();
      uint64_t samples = 0;
      int64_t ns = 0;
      for (const auto& [n, t] : rank.recent) {
        samples += n;
        ns += t;
      }
      rank.progress.samplesPerS =
          ns > 0 ? static_cast<double>(samples) / (static_cast<double>(ns) * 1e-9) : 0;
    } else if (record.has_memory()) {
      Rank& rank = ranks_[record.memory().rank()];
      rank.progress.rssMb = static_cast<double>(record.memory().rss_bytes()) / (1 << 20);
    } else if (record.has_rank_state()) {
      const auto& s = record.rank_state();
      Rank& rank = ranks_[s.rank()];
      rank.progress.host = host;
      switch (s.state()) {
        case v1::RankState::STATE_RUNNING:
          if (rank.progress.state == "starting") rank.progress.state = "running";
          break;
        case v1::RankState::STATE_EXITED:
          rank.progress.state = s.exit_code() == 0 ? "done" : "exit " + std::to_string(s.exit_code());
          break;
        case v1::RankState::STATE_SIGNALED:
          rank.progress.state = agent::signalName(s.signal());
          break;
        case v1::RankState::STATE_FAILED_TO_START:
          rank.progress.state = "failed to start";
          break;
        case v1::RankState::STATE_LOST:
          rank.progress.state = "no end";
          break;
        default:
          break;
      }
    }
  }
}

ProgressSnapshot LiveProgress::snapshot() const {
  std::lock_guard lock(mutex_);
  ProgressSnapshot snap;
  snap.totalSteps = totalSteps_;
  bool first = true;
  double stepsPerS = 0;
  for (const auto& [r, rank] : ranks_) {
    snap.ranks.push_back(rank.progress);
    snap.samplesPerS += rank.progress.samplesPerS;
    snap.step = first ? rank.progress.step : std::min(snap.step, rank.progress.step);
    first = false;
    if (r == 0) {
      snap.loss = rank.progress.loss;
      int64_t ns = 0;
      for (const auto& [n, t] : rank.recent) ns += t;
      if (ns > 0) stepsPerS = static_cast<double>(rank.recent.size()) / (static_cast<double>(ns) * 1e-9);
    }
  }
  if (snap.totalSteps > 0 && stepsPerS > 0) {
    snap.etaS = static_cast<double>(snap.totalSteps - std::min(snap.step, snap.totalSteps)) / stepsPerS;
  }
  return snap;
}

}  // namespace ringmaster::console
