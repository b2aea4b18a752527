// SPDX-License-Identifier: GPL-3.0-or-later
#include "agent/rank_intake.h"

#include <string>
#include <utility>
#include <vector>

#include "common/record_checks.h"

namespace ringmaster::agent {

uint64_t RankIntake::take(v1::RecordBatch&& batch) {
  auto* records = batch.mutable_records();
  int kept = 0;
  std::string firstProblem;
  for (int i = 0; i < records->size(); ++i) {
    std::string problem = rankRecordProblem(records->Get(i), rank_, job_.worldSize());
    if (problem.empty()) {
      if (kept != i) records->SwapElements(kept, i);
      ++kept;
    } else if (firstProblem.empty()) {
      firstProblem = std::move(problem);
    }
  }
  if (const int refused = records->size() - kept; refused > 0) {
    records->DeleteSubrange(kept, refused);
    if (!toldRefusal_) {
      toldRefusal_ = true;
      job_.journal().append(std::vector<v1::Record>{job_.agentLine(
          rank_, "rank " + std::to_string(rank_) +
                     " sent records that cannot be true, which are dropped (the first: " + firstProblem +
                     ")")});
    }
  }
  const auto count = static_cast<uint64_t>(records->size());
  if (uint64_t last = job_.journal().append(std::move(batch)); last > 0) {
    lastSeq_ = last;
    accepted_ += count;
    return count;
  }
  return 0;
}

}  // namespace ringmaster::agent
