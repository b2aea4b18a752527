// SPDX-License-Identifier: GPL-3.0-or-later
#include "diagnosis/replica_drift.h"

#include <algorithm>

#include "diagnosis/advice.h"
#include "diagnosis/evidence_keys.h"
#include "diagnosis/summary_text.h"

namespace ringmaster::diagnosis {
namespace {

constexpr size_t kNamedTensors = 4;  // tensors a summary names; the count says how many more
constexpr size_t kMostPending = 64;  // checks kept while some rank has not sent its hashes

std::string nameList(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size() && i < kNamedTensors; ++i) out += (i ? ", " : "") + names[i];
  if (names.size() > kNamedTensors) out += ", …";
  return out;
}

}  // namespace

void ReplicaDriftDetector::add(const v1::ReplicaHashes& hashes) {
  if (hashes.names_size() != hashes.hashes_size()) return;
  if (lastStep_ && hashes.step() > *lastStep_ && !every_) every_ = hashes.step() - *lastStep_;
  if (!lastStep_ || hashes.step() > *lastStep_) lastStep_ = hashes.step();
  auto& check = pending_[hashes.step()];
  check[hashes.rank()] = hashes;
  if (static_cast<int>(check.size()) >= worldSize_) {
    compare(hashes.step());
    return;
  }
  // A check some rank never sends (it ended, or joined later) is compared once a later one began.
  while (pending_.size() > 1 && pending_.begin()->first < hashes.step()) {
    if (pending_.begin()->second.size() >= 2) {
      compare(pending_.begin()->first);
    } else {
      pending_.erase(pending_.begin());
    }
  }
  while (pending_.size() > kMostPending) pending_.erase(pending_.begin());
}

void ReplicaDriftDetector::compare(uint64_t step) {
  auto it = pending_.find(step);
  if (it == pending_.end()) return;
  const std::map<int, v1::ReplicaHashes> check = std::move(it->second);
  pending_.erase(it);
  if (check.size() < 2) return;
  const auto& [reference, ref] = *check.begin();  // rank 0 when it reported: the rank DDP broadcasts from
  Drift d;
  d.step = step;
  d.reference = reference;
  d.tensors = static_cast<size_t>(ref.names_size());
  d.lastEqual = lastEqual_;
  std::vector<bool> differs(static_cast<size_t>(ref.names_size()), false);
  for (const auto& [rank, r] : check) {
    if (rank == reference) continue;
    bool rankDiffers = false;
    if (r.names_size() != ref.names_size() ||
        !std::equal(r.names().begin(), r.names().end(), ref.names().begin())) {
      d.otherTensors = true;
      rankDiffers = true;
      // The tensors one has and the other has not, in the reference's order, then the rank's own.
      for (const auto& name : ref.names()) {
        if (std::find(r.names().begin(), r.names().end(), name) == r.names().end() &&
            std::find(d.names.begin(), d.names.end(), name) == d.names.end())
          d.names.push_back(name);
      }
      for (const auto& name : r.names()) {
        if (std::find(ref.names().begin(), ref.names().end(), name) == ref.names().end() &&
            std::find(d.names.begin(), d.names.end(), name) == d.names.end())
          d.names.push_back(name);
      }
    } else {
      for (int i = 0; i < r.hashes_size(); ++i) {
        if (r.hashes(i) != ref.hashes(i)) {
          differs[static_cast<size_t>(i)] = true;
          rankDiffers = true;
        }
      }
    }
    if (rankDiffers) d.ranks.push_back(rank);
  }
  if (d.ranks.empty()) {
    lastEqual_ = step;
    return;
  }
  if (!d.otherTensors) {
    for (size_t i = 0; i < differs.size(); ++i) {
      if (differs[i]) d.names.push_back(ref.names(static_cast<int>(i)));
    }
  }
  if (!first_ || step < first_->step) first_ = std::move(d);
}

std::vector<v1::Finding> ReplicaDriftDetector::findings() const {
  if (!first_) return {};
  const Drift& d = *first_;
  const int rank = d.ranks.size() == 1 ? d.ranks.front() : -1;
  auto host = hosts_.find(rank);
  v1::Finding f = makeFinding(v1::Finding::KIND_REPLICA_DRIFT, v1::Finding::SEVERITY_WARNING, rank,
                              host != hosts_.end() ? host->second : "", d.step,
                              d.otherTensors ? "other tensors" : "replicas differ");
  std::string list;
  for (size_t i = 0; i < d.ranks.size(); ++i) list += (i ? ", " : "") + std::to_string(d.ranks[i]);
  const Sentence where =
      d.ranks.size() == 1 ? say(text::kOnRank, {d.ranks.front()}) : say(text::kOnRanks, {list});
  const int64_t step = static_cast<int64_t>(d.step);
  if (d.otherTensors) {
    setSummary(f, say(text::kReplicasHaveOtherTensors, {step, where, d.reference, nameList(d.names)}));
  } else if (d.lastEqual) {
    setSummary(f, say(text::kReplicasDifferAfterEqual,
                      {step, static_cast<int64_t>(d.names.size()), static_cast<int64_t>(d.tensors),
                       nameList(d.names), where, d.reference, static_cast<int64_t>(*d.lastEqual)}));
  } else {
    setSummary(f, say(text::kReplicasDiffer,
                      {step, static_cast<int64_t>(d.names.size()), static_cast<int64_t>(d.tensors),
                       nameList(d.names), where, d.reference}));
  }
  auto& evidence = *f.mutable_evidence();
  evidence[evidence::kFirstStep] = static_cast<double>(d.step);
  evidence[evidence::kDriftingTensors] = static_cast<double>(d.names.size());
  evidence[evidence::kTensors] = static_cast<double>(d.tensors);
  evidence[evidence::kRanks] = static_cast<double>(d.ranks.size());
  if (d.lastEqual) evidence[evidence::kLastEqualStep] = static_cast<double>(*d.lastEqual);
  if (every_) evidence[evidence::kCheckEverySteps] = static_cast<double>(*every_);
  addAdvice(f);
  return {f};
}

}  // namespace ringmaster::diagnosis
