// SPDX-License-Identifier: GPL-3.0-or-later
#include "diagnosis/communication_health.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "diagnosis/advice.h"
#include "diagnosis/evidence_keys.h"
#include "diagnosis/finding.h"
#include "diagnosis/statistics.h"
#include "diagnosis/summary_text.h"

namespace ringmaster::diagnosis {

namespace {
// Medians need only a sample: past this size every other value is dropped (for 100k-step live runs).
constexpr size_t kMaxValues = 16384;
// Collectives waiting for their last ranks' ops; past this the oldest are judged with the ops they have (a
// rank that stopped reporting must not make them pile up).
constexpr size_t kMaxOpen = 4096;

int sizeClass(uint64_t bytes) {
  return bytes == 0 ? 0 : int(std::log2(double(bytes)));
}
}  // namespace

CommunicationMonitor::CommunicationMonitor(CommunicationConfig config) : config_(config) {}

void CommunicationMonitor::setHost(int rank, const std::string& host) {
  hosts_[rank] = host;
}

void CommunicationMonitor::setRanks(int ranks) {
  ranks_ = ranks;
}

void CommunicationMonitor::keep(std::vector<double>& values, double value) {
  values.push_back(value);
  if (values.size() > kMaxValues) {
    for (size_t i = 0; 2 * i < values.size(); ++i) values[i] = values[2 * i];
    values.resize((values.size() + 1) / 2);
  }
}

void CommunicationMonitor::add(const v1::StepSample& sample) {
  commWaitNs_ += double(sample.comm_wait_ns());
  stepNs_ += double(sample.total_ns());
  ++stepSamples_;
}

void CommunicationMonitor::add(const v1::AllreduceOp& op) {
  ++ops_;
  opBytes_ += double(op.bytes());
  double latencyUs = op.latency_us() > 0 ? op.latency_us() : double(op.end_ns() - op.start_ns()) / 1e3;
  opLatencyNs_ += latencyUs * 1e3;
  keep(latencies_, latencyUs);
  if (!(op.busbw_gbps() > 0)) return;
  keep(busbwByRank_[op.rank()], op.busbw_gbps());
  keep(opBusbw_, op.busbw_gbps());
  const CollectiveKey key{op.step(), op.bucket(), op.bytes()};
  if (ranks_ <= 1) {
    judge(key, Collective{{op.rank()}, op.busbw_gbps()});
    return;
  }
  auto it = open_.find(key);
  if (it != open_.end() && std::count(it->second.ranks.begin(), it->second.ranks.end(), op.rank())) {
    judge(key, it->second);  // the same rank again: a new collective of the same step, bucket and size
    open_.erase(it);
    it = open_.end();
  }
  if (it == open_.end()) it = open_.emplace(key, Collective{}).first;
  Collective& c = it->second;
  c.ranks.push_back(op.rank());
  c.bestBusbwGbps = std::max(c.bestBusbwGbps, op.busbw_gbps());
  if (c.ranks.size() >= size_t(ranks_)) {
    judge(key, c);
    open_.erase(it);
  }
  while (open_.size() > kMaxOpen) {
    judge(open_.begin()->first, open_.begin()->second);
    open_.erase(open_.begin());
  }
}

void CommunicationMonitor::judge(const CollectiveKey& key, const Collective& c) {
  keep(busbwBySize_[sizeClass(std::get<2>(key))], c.bestBusbwGbps);
  ++judged_;
}

CommunicationSummary CommunicationMonitor::summary() const {
  CommunicationSummary s;
  s.ops = ops_;
  // Long runs keep a sample of each size's bandwidths: the slow share is the sample's.
  size_t sampled = 0, slow = 0;
  for (const auto& [size, values] : busbwBySize_) {
    double median = stats::median(values);
    sampled += values.size();
    slow += size_t(std::count_if(values.begin(), values.end(),
                                 [&](double v) { return v < config_.slowOpFraction * median; }));
  }
  s.judgedOps = judged_;
  s.slowOps = sampled > 0 ? uint64_t(std::llround(double(judged_) * double(slow) / double(sampled))) : 0;
  s.medianBusbwGbps = stats::median(opBusbw_);
  s.medianLatencyUs = stats::median(latencies_);
  for (const auto& [rank, values] : busbwByRank_) s.rankBusbwGbps[rank] = stats::median(values);
  s.exposedCommShare = stepNs_ > 0 ? commWaitNs_ / stepNs_ : 0;
  s.overlapPct = opLatencyNs_ > 0 ? std::clamp(100 * (1 - commWaitNs_ / opLatencyNs_), 0.0, 100.0) : 0;
  s.opsPerStep = stepSamples_ > 0 ? double(ops_) / double(stepSamples_) : 0;
  s.meanOpBytes = ops_ > 0 ? opBytes_ / double(ops_) : 0;
  return s;
}

std::vector<v1::Finding> CommunicationMonitor::findings() const {
  std::vector<v1::Finding> out;
  CommunicationSummary s = summary();

  // A rank whose links are slow: its bandwidth well below the other ranks'.
  std::vector<double> rankMedians;
  for (const auto& [rank, median] : s.rankBusbwGbps) rankMedians.push_back(median);
  double typical = stats::median(rankMedians);
  if (rankMedians.size() >= 3 && typical > 0) {
    for (const auto& [rank, median] : s.rankBusbwGbps) {
      if (busbwByRank_.at(rank).size() < config_.minOpsPerRank ||
          median >= config_.slowRankFraction * typical) {
        continue;
      }
      auto host = hosts_.count(rank) ? hosts_.at(rank) : std::string();
      // A slow link costs the job at most the step time it waits on all-reduce: below the material share
      // the finding is information. Without step samples (ops alone) the cost is unknown.
      const bool material = stepNs_ <= 0 || 100 * s.exposedCommShare >= kMaterialLossPct;
      v1::Finding f = makeFinding(v1::Finding::KIND_COMMUNICATION,
                                  material ? v1::Finding::SEVERITY_WARNING : v1::Finding::SEVERITY_INFO, rank,
                                  host, 0, "communication");
      setSummary(f, say(text::kSlowLink, {rankOnHost(rank, host), Decimal{median, 2},
                                          Decimal{100 * (1 - median / typical), 0}, Decimal{typical, 2}}));
      (*f.mutable_evidence())[evidence::kBusbwGbps] = median;
      (*f.mutable_evidence())[evidence::kRanksMedianBusbwGbps] = typical;
      if (stepNs_ > 0) (*f.mutable_evidence())[evidence::kExposedCommPct] = 100 * s.exposedCommShare;
      out.push_back(std::move(f));
    }
  }

  // Communication the backward pass does not hide.
  if (s.exposedCommShare >= config_.exposedWarning && s.ops > 0) {
    v1::Finding f = makeFinding(v1::Finding::KIND_COMMUNICATION, v1::Finding::SEVERITY_WARNING, -1, "", 0,
                                "exposed communication");
    setSummary(
        f, say(text::kExposedCommunication, {Decimal{100 * s.exposedCommShare, 0}, Decimal{s.overlapPct, 0},
                                             Decimal{s.medianBusbwGbps, 2}}));
    (*f.mutable_evidence())[evidence::kExposedCommPct] = 100 * s.exposedCommShare;
    (*f.mutable_evidence())[evidence::kOverlapPct] = s.overlapPct;
    (*f.mutable_evidence())[evidence::kMedianBusbwGbps] = s.medianBusbwGbps;
    (*f.mutable_evidence())[evidence::kMedianLatencyMs] = s.medianLatencyUs / 1e3;
    if (s.opsPerStep > 0) (*f.mutable_evidence())[evidence::kAllreducePerStep] = s.opsPerStep;
    (*f.mutable_evidence())[evidence::kMeanAllreduceMib] = s.meanOpBytes / (1024.0 * 1024.0);
    out.push_back(std::move(f));
  }
  // Ranks all on one host have no network to congest: their all-reduce goes through loopback or shared
  // memory, and an op slower than its size's usual there waited for busy cores, which the steps show.
  std::set<std::string> hosts;
  for (const auto& [rank, host] : hosts_) hosts.insert(host);
  const bool oneHost = ranks_ > 1 && hosts_.size() >= size_t(ranks_) && hosts.size() == 1;
  if (!oneHost && s.judgedOps >= 100 && double(s.slowOps) > 0.1 * double(s.judgedOps)) {
    v1::Finding f =
        makeFinding(v1::Finding::KIND_COMMUNICATION, v1::Finding::SEVERITY_INFO, -1, "", 0, "communication");
    setSummary(f, say(text::kSlowOps, {Decimal{100 * double(s.slowOps) / double(s.judgedOps), 0}}));
    (*f.mutable_evidence())[evidence::kSlowOps] = double(s.slowOps);
    (*f.mutable_evidence())[evidence::kOps] = double(s.judgedOps);
    out.push_back(std::move(f));
  }
  for (auto& f : out) addAdvice(f);
  return out;
}

}  // namespace ringmaster::diagnosis
