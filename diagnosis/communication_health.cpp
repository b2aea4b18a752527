// SPDX-License-Identifier: GPL-3.0-or-later
#include "diagnosis/communication_health.h"

#include <algorithm>
#include <cmath>

#include "diagnosis/advice.h"
#include "diagnosis/evidence_keys.h"
#include "diagnosis/finding.h"
#include "diagnosis/statistics.h"
#include "diagnosis/summary_text.h"

namespace ringmaster::diagnosis {

namespace {
// Medians need only a sample: past this size every other value is dropped (for 100k-step live runs).
constexpr size_t kMaxValues = 16384;

int sizeClass(uint64_t bytes) {
  return bytes == 0 ? 0 : int(std::log2(double(bytes)));
}
}  // namespace

CommunicationMonitor::CommunicationMonitor(CommunicationConfig config) : config_(config) {}

void CommunicationMonitor::setHost(int rank, const std::string& host) {
  hosts_[rank] = host;
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
  if (op.busbw_gbps() > 0) {
    keep(busbwByRank_[op.rank()], op.busbw_gbps());
    keep(busbwBySize_[sizeClass(op.bytes())], op.busbw_gbps());
  }
}

CommunicationSummary CommunicationMonitor::summary() const {
  CommunicationSummary s;
  s.ops = ops_;
  std::vector<double> all;
  for (const auto& [size, values] : busbwBySize_) {
    all.insert(all.end(), values.begin(), values.end());
    double median = stats::median(values);
    s.slowOps += uint64_t(std::count_if(values.begin(), values.end(),
                                        [&](double v) { return v < config_.slowOpFraction * median; }));
  }
  s.medianBusbwGbps = stats::median(all);
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
  if (s.ops >= 100 && double(s.slowOps) > 0.1 * double(s.ops)) {
    v1::Finding f =
        makeFinding(v1::Finding::KIND_COMMUNICATION, v1::Finding::SEVERITY_INFO, -1, "", 0, "communication");
    setSummary(f, say(text::kSlowOps, {Decimal{100 * double(s.slowOps) / double(s.ops), 0}}));
    (*f.mutable_evidence())[evidence::kSlowOps] = double(s.slowOps);
    (*f.mutable_evidence())[evidence::kOps] = double(s.ops);
    out.push_back(std::move(f));
  }
  for (auto& f : out) addAdvice(f);
  return out;
}

}  // namespace ringmaster::diagnosis
