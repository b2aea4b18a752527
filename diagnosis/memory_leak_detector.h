// SPDX-License-Identifier: GPL-3.0-or-later
// Finds ranks whose memory keeps growing.
//
// Per rank, after a warm-up (allocators and caches fill up first), a Theil–Sen line is fitted to memory over
// steps, and another over time. Growth counts as a leak when the slope's 95% interval excludes zero and the
// fitted growth over the series is large enough to matter. The finding gives MiB per step, MiB per minute and
// how long until the host's (or the device's) memory would be full.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ringmaster/v1/records.pb.h"

namespace ringmaster::diagnosis {

namespace v1 = ::ringmaster::v1;

struct LeakConfig {
  size_t minSamples = 20;           // samples after warm-up before judging (samples)
  double minGrowthMiB = 16;         // fitted growth over the series that matters (MiB)
  double minGrowthFraction = 0.02;  // or this share of the memory level, whichever is larger (fraction)
};

// A fitted trend of one rank's memory (also drawn by reports as the trend line).
struct MemoryTrend {
  int rank = 0;
  bool device = false;    // device memory rather than host RSS
  uint64_t fromStep = 0;  // first step after warm-up
  uint64_t toStep = 0;
  double bytesPerStep = 0;
  double bytesPerStepLower = 0;  // 95% interval of the slope
  double bytesPerStepUpper = 0;
  double interceptBytes = 0;  // memory = intercept + slope * step
  double bytesPerMinute = 0;
  double limitBytes = 0;  // host or device total; 0 when unknown
  double lastBytes = 0;   // fitted memory at the last step
  bool leak = false;
};

class MemoryLeakDetector {
 public:
  explicit MemoryLeakDetector(LeakConfig config = {});

  void setHost(int rank, const std::string& host);
  void add(const v1::MemorySample& sample);

  // Fits every rank's trend (host RSS, and device memory where there is a device); `leaksOnly`: only the
  // trends that are leaks, the others not fitted.
  std::vector<MemoryTrend> trends(bool leaksOnly = false) const;
  std::vector<v1::Finding> findings() const;
  // Samples held for `rank` (0 if none).
  size_t samples(int rank) const;

 private:
  struct Series {
    std::vector<double> steps, timesNs, rss, device;
    double hostTotal = 0, deviceTotal = 0;
  };
  // `leaksOnly`: a trend that cannot be a leak is left unfitted (only its rank and `device` set).
  MemoryTrend fit(int rank, const Series& series, bool device, bool leaksOnly) const;

  LeakConfig config_;
  std::map<int, Series> series_;
  std::map<int, std::string> hosts_;
};

}  // namespace ringmaster::diagnosis
