// SPDX-License-Identifier: GPL-3.0-or-later
#include "worker/negotiation.h"

#include <algorithm>
#include <cassert>
#include <iomanip>
#include <set>
#include <sstream>

namespace ringmaster::worker {
namespace {

constexpr int64_t kShutdownFlag = 1;  // in reports and responses
constexpr int64_t kActiveFlag = 2;    // in reports
constexpr int64_t kIdleFlag = 2;      // in responses

}  // namespace

std::vector<int64_t> CycleReport::encode() const {
  std::vector<int64_t> out;
  out.reserve(encodedSize(readyNs.size()));
  out.push_back((shutdown ? kShutdownFlag : 0) | (active ? kActiveFlag : 0));
  out.insert(out.end(), readyNs.begin(), readyNs.end());
  return out;
}

CycleReport CycleReport::decode(const int64_t* data, size_t tensors) {
  CycleReport report;
  report.shutdown = (data[0] & kShutdownFlag) != 0;
  report.active = (data[0] & kActiveFlag) != 0;
  report.readyNs.assign(data + 1, data + 1 + tensors);
  return report;
}

std::vector<int64_t> CycleResponse::encode(size_t tensors) const {
  assert(order.size() <= tensors);
  std::vector<int64_t> out(encodedSize(tensors), 0);
  out[0] = (shutdown ? kShutdownFlag : 0) | (idle ? kIdleFlag : 0);
  out[1] = static_cast<int64_t>(order.size());
  for (size_t i = 0; i < order.size(); ++i) out[2 + i] = static_cast<int64_t>(order[i]);
  return out;
}

CycleResponse CycleResponse::decode(const int64_t* data, size_t tensors) {
  CycleResponse response;
  response.shutdown = (data[0] & kShutdownFlag) != 0;
  response.idle = (data[0] & kIdleFlag) != 0;
  const auto count = static_cast<size_t>(std::clamp<int64_t>(data[1], 0, static_cast<int64_t>(tensors)));
  for (size_t i = 0; i < count; ++i) response.order.push_back(static_cast<size_t>(data[2 + i]));
  return response;
}

CycleResponse coordinate(const std::vector<CycleReport>& reports) {
  CycleResponse response;
  if (reports.empty()) return response;
  const size_t tensors = reports.front().readyNs.size();
  std::vector<std::pair<int64_t, size_t>> ready;  // (time it became ready everywhere, tensor)
  for (size_t t = 0; t < tensors; ++t) {
    int64_t latest = 0;
    bool everywhere = true;
    for (const auto& report : reports) {
      if (report.readyNs[t] <= 0) {
        everywhere = false;
        break;
      }
      latest = std::max(latest, report.readyNs[t]);
    }
    if (everywhere) ready.emplace_back(latest, t);
  }
  std::sort(ready.begin(), ready.end());
  for (const auto& [time, t] : ready) response.order.push_back(t);
  bool anyActive = false;
  for (const auto& report : reports) {
    response.shutdown = response.shutdown || report.shutdown;
    anyActive = anyActive || report.active;
  }
  response.idle = !anyActive && response.order.empty();
  return response;
}

StallInspector::StallInspector(size_t tensors, double thresholdS)
    : firstSeenNs_(tensors, 0), thresholdNs_(static_cast<int64_t>(thresholdS * 1e9)) {}

std::optional<Stall> StallInspector::check(const std::vector<CycleReport>& reports, int64_t nowNs) {
  Stall stall;
  std::set<int> readyRanks;
  int64_t oldest = nowNs;
  for (size_t t = 0; t < firstSeenNs_.size(); ++t) {
    std::vector<int> missing;
    bool anyReady = false;
    for (size_t r = 0; r < reports.size(); ++r) {
      if (reports[r].readyNs[t] > 0) {
        anyReady = true;
      } else {
        missing.push_back(static_cast<int>(r));
      }
    }
    if (!anyReady || missing.empty()) {
      firstSeenNs_[t] = 0;
      continue;
    }
    if (firstSeenNs_[t] == 0) firstSeenNs_[t] = nowNs;
    if (nowNs - firstSeenNs_[t] < thresholdNs_) continue;
    oldest = std::min(oldest, firstSeenNs_[t]);
    for (int r : missing) stall.missing[r].push_back(t);
    for (size_t r = 0; r < reports.size(); ++r) {
      if (reports[r].readyNs[t] > 0) readyRanks.insert(static_cast<int>(r));
    }
  }
  if (stall.missing.empty()) return std::nullopt;
  if (!warningDue(nowNs)) return std::nullopt;
  lastWarningNs_ = nowNs;
  stall.readyRanks.assign(readyRanks.begin(), readyRanks.end());
  stall.waitedS = static_cast<double>(nowNs - oldest) * 1e-9;
  return stall;
}

bool StallInspector::wantsDetail(const std::vector<bool>& partlyReady, int64_t nowNs) {
  assert(partlyReady.size() == firstSeenNs_.size());
  bool overdue = false;
  for (size_t t = 0; t < firstSeenNs_.size(); ++t) {
    if (!partlyReady[t]) {
      firstSeenNs_[t] = 0;
      continue;
    }
    if (firstSeenNs_[t] == 0) firstSeenNs_[t] = nowNs;
    overdue = overdue || nowNs - firstSeenNs_[t] >= thresholdNs_;
  }
  return overdue && warningDue(nowNs);
}

std::string Stall::describe(const std::vector<std::string>& names, double thresholdS) const {
  std::ostringstream out;
  out << "Stall inspector: for more than " << std::setprecision(3) << thresholdS << " s (oldest "
      << std::setprecision(3) << waitedS << " s) ranks [";
  for (size_t i = 0; i < readyRanks.size(); ++i) out << (i ? ", " : "") << readyRanks[i];
  out << "] have submitted tensors for reduction that other ranks have not. Ranks running different code "
         "paths, or a rank that hangs, cause this; training cannot go on until they submit.\n"
         "Missing ranks:";
  for (const auto& [rank, tensors] : missing) {
    out << "\n  rank " << rank << ": [";
    for (size_t i = 0; i < tensors.size(); ++i) out << (i ? ", " : "") << names.at(tensors[i]);
    out << "]";
  }
  return out.str();
}

}  // namespace ringmaster::worker
