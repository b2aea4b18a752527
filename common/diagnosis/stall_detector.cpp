// SPDX-License-Identifier: GPL-3.0-or-later
#include "common/diagnosis/stall_detector.h"

#include <algorithm>

#include "common/diagnosis/finding.h"

namespace ringmaster::diagnosis {

namespace {

std::string joinRanks(const std::vector<int>& ranks) {
  std::string out;
  for (int r : ranks) out += (out.empty() ? "" : ",") + std::to_string(r);
  return out;
}

}  // namespace

StallDetector::StallDetector(int worldSize, StallConfig config) : worldSize_(worldSize), config_(config) {}

void StallDetector::setHost(int rank, const std::string& host) { hosts_[rank] = host; }

void StallDetector::add(const v1::StallReport& report) {
  for (int rank : report.missing_ranks()) {
    Missing& m = missing_[rank];
    m.tensors.insert(report.tensors().begin(), report.tensors().end());
    m.reporters.insert(report.reporting_rank());
    m.waitedS = std::max(m.waitedS, report.waited_s());
  }
}

void StallDetector::progress(const v1::StepSample& sample, int64_t arrivalNs) {
  uint64_t& last = lastStep_[sample.rank()];
  last = std::max(last, sample.step());
  lastProgressNs_[sample.rank()] = arrivalNs;
  lastAnyProgressNs_ = std::max(lastAnyProgressNs_, arrivalNs);
}

void StallDetector::exited(int rank) { exited_.insert(rank); }

std::vector<v1::Finding> StallDetector::findings(int64_t nowNs) const {
  std::vector<v1::Finding> out;
  // What the stall reports say: the missing ranks and the tensors they lack.
  for (const auto& [rank, m] : missing_) {
    auto host = hosts_.count(rank) ? hosts_.at(rank) : std::string();
    uint64_t since = lastStep_.count(rank) ? lastStep_.at(rank) + 1 : 0;
    v1::Finding f = makeFinding(v1::Finding::KIND_STALL, v1::Finding::SEVERITY_CRITICAL, rank, host, since,
                                "missing tensors");
    std::string tensors;
    int shown = 0;
    for (const auto& t : m.tensors) {
      if (shown++ == 3) {
        tensors += format(" and %d more", int(m.tensors.size()) - 3);
        break;
      }
      tensors += (tensors.empty() ? "" : ", ") + t;
    }
    std::vector<int> waiting;
    for (int r = 0; r < worldSize_; ++r) {
      if (!missing_.count(r)) waiting.push_back(r);
    }
    std::string where = host.empty() ? "" : " (" + host + ")";
    f.set_summary(format("rank %d%s has not submitted %s; ranks %s have waited %.1f s", rank, where.c_str(),
                         tensors.c_str(), joinRanks(waiting).c_str(), m.waitedS));
    (*f.mutable_evidence())["waited_s"] = m.waitedS;
    (*f.mutable_evidence())["missing_tensors"] = double(m.tensors.size());
    (*f.mutable_evidence())["waiting_ranks"] = double(waiting.size());
    out.push_back(std::move(f));
  }
  if (nowNs <= 0 || lastAnyProgressNs_ == 0) return out;

  // From progress: no rank has finished a step for a while. Ranks behind the others are the ones holding it up.
  double quietS = double(nowNs - lastAnyProgressNs_) / 1e9;
  if (quietS < config_.stallSeconds) return out;
  uint64_t newest = 0;
  for (const auto& [rank, step] : lastStep_) {
    if (!exited_.count(rank)) newest = std::max(newest, step);
  }
  std::vector<int> behind, all;
  for (int r = 0; r < worldSize_; ++r) {
    if (exited_.count(r)) continue;
    all.push_back(r);
    auto it = lastStep_.find(r);
    if (it == lastStep_.end() || it->second < newest) behind.push_back(r);
  }
  if (all.empty()) return out;
  for (int rank : behind) {
    if (missing_.count(rank)) continue;  // already named by a stall report
    auto host = hosts_.count(rank) ? hosts_.at(rank) : std::string();
    uint64_t last = lastStep_.count(rank) ? lastStep_.at(rank) : 0;
    v1::Finding f = makeFinding(v1::Finding::KIND_STALL, v1::Finding::SEVERITY_CRITICAL, rank, host, last + 1,
                                "no progress");
    std::string where = host.empty() ? "" : " (" + host + ")";
    f.set_summary(format("rank %d%s stopped after step %llu while the others finished step %llu; the job has not "
                         "progressed for %.1f s",
                         rank, where.c_str(), (unsigned long long)last, (unsigned long long)newest, quietS));
    (*f.mutable_evidence())["quiet_s"] = quietS;
    (*f.mutable_evidence())["steps_behind"] = double(newest - last);
    out.push_back(std::move(f));
  }
  if (behind.empty() && missing_.empty()) {
    v1::Finding f = makeFinding(v1::Finding::KIND_STALL, v1::Finding::SEVERITY_CRITICAL, -1, "", newest + 1,
                                "no progress");
    f.set_summary(format("no rank has finished a step for %.1f s (all stopped after step %llu)", quietS,
                         (unsigned long long)newest));
    (*f.mutable_evidence())["quiet_s"] = quietS;
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace ringmaster::diagnosis
