// SPDX-License-Identifier: GPL-3.0-or-later
#include "diagnosis/run_figures.h"

#include <algorithm>

namespace ringmaster::diagnosis {

void JobSteps::add(const v1::StepSample& step) {
  ranks_.insert(step.rank());
  Step& s = steps_[step.step()];
  s.reports += 1;
  s.slowestMs = std::max(s.slowestMs, static_cast<double>(step.total_ns()) / 1e6);
  s.samples += step.samples();
}

uint64_t JobSteps::complete() const {
  return static_cast<uint64_t>(std::count_if(steps_.begin(), steps_.end(),
                                             [&](const auto& entry) { return isComplete(entry.second); }));
}

double JobSteps::throughput() const {
  double samples = 0, seconds = 0;
  for (const auto& [number, step] : steps_) {
    if (!isComplete(step)) continue;
    samples += step.samples;
    seconds += step.slowestMs / 1e3;
  }
  return seconds > 0 ? samples / seconds : 0;
}

std::vector<double> JobSteps::stepTimesMs() const {
  std::vector<double> times;
  for (const auto& [number, step] : steps_) {
    if (isComplete(step)) times.push_back(step.slowestMs);
  }
  return times;
}

std::vector<double> JobSteps::stepThroughput() const {
  std::vector<double> rates;
  for (const auto& [number, step] : steps_) {
    if (isComplete(step) && step.slowestMs > 0) rates.push_back(step.samples / (step.slowestMs / 1e3));
  }
  return rates;
}

std::optional<double> finalLoss(const std::vector<RankLoss>& ranks) {
  const RankLoss* lowest = nullptr;
  for (const auto& r : ranks) {
    if ((r.reported || r.lastStep) && (!lowest || r.rank < lowest->rank)) lowest = &r;
  }
  if (!lowest) return std::nullopt;
  return lowest->reported ? lowest->reported : lowest->lastStep;
}

}  // namespace ringmaster::diagnosis
