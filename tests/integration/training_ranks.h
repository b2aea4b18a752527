// SPDX-License-Identifier: GPL-3.0-or-later
// Runs a job of N ringmaster-worker ranks on loopback, the way torchrun would start them, and reads back what
// each rank wrote: its --summary-json and its --dump-params file (raw float32, so no LibTorch is needed
// here).
#pragma once

#include <chrono>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "common/json.h"
#include "tests/support/process.h"
#include "tests/support/temp_dir.h"

namespace ringmaster::test {

struct JobOptions {
  std::chrono::milliseconds timeout = std::chrono::seconds(120);
  std::set<int> absentRanks;               // ranks that are never started (rendezvous tests)
  std::map<std::string, std::string> env;  // added to every rank's environment
  bool summaries = true;                   // pass --summary-json and --dump-params
};

class TrainingJob {
 public:
  // Starts `worldSize` ranks with `flags`, waits for all of them (or the timeout) and keeps their files in a
  // temporary folder that lives as long as this object.
  TrainingJob(int worldSize, const std::vector<std::string>& flags, JobOptions options = {});
  TrainingJob(const TrainingJob&) = delete;
  TrainingJob& operator=(const TrainingJob&) = delete;

  const ProcessResult& rank(int r) const { return results_.at(r); }
  int worldSize() const { return static_cast<int>(results_.size()); }
  // True when every started rank exited with 0.
  bool succeeded() const;
  // Every rank's exit status and stderr, for failure messages.
  std::string describe() const;

  // Parsed --summary-json of `rank`; fails the test (and gives an empty object) when it is missing or
  // malformed.
  rapidjson::Document summary(int rank) const;
  double number(int rank, const std::string& key) const;
  std::string text(int rank, const std::string& key) const;
  double engineStat(int rank, const std::string& key) const;
  double phaseMs(int rank, const std::string& key) const;
  // --dump-params of `rank`.
  std::vector<float> parameters(int rank) const;

  const std::string& dir() const { return dir_.path(); }

 private:
  TempDir dir_{"training"};
  std::vector<ProcessResult> results_;
};

// Every rank's --dump-params equals rank 0's bit for bit, and so do the summaries' parameter checksums.
void expectRanksIdentical(const TrainingJob& job);

// max |a - b| / max |b|: how far apart two parameter vectors are, relative to their scale.
double relativeDifference(const std::vector<float>& a, const std::vector<float>& b);

}  // namespace ringmaster::test
