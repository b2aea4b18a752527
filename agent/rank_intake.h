// SPDX-License-Identifier: GPL-3.0-or-later
// A rank's records on their way into its job's journal, whichever way they came (the Telemetry service of
// Ringmaster's own ranks, the rank socket of a user's program): records the rank cannot have made are dropped
// (common/record_checks.h), and the first time the journal says so.
#pragma once

#include <cstdint>

#include "agent/job.h"
#include "ringmaster/v1/records.pb.h"

namespace ringmaster::agent {

class RankIntake {
 public:
  RankIntake(Job& job, int rank) : job_(job), rank_(rank) {}

  // Journals the records of `batch` that can be true; returns how many.
  uint64_t take(v1::RecordBatch&& batch);
  // The journal sequence number of the last record taken; 0 before the first.
  uint64_t lastSeq() const { return lastSeq_; }
  uint64_t accepted() const { return accepted_; }
  Job& job() const { return job_; }
  int rank() const { return rank_; }

 private:
  Job& job_;
  int rank_;
  uint64_t lastSeq_ = 0;
  uint64_t accepted_ = 0;
  bool toldRefusal_ = false;
};

}  // namespace ringmaster::agent
