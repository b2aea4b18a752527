// SPDX-License-Identifier: GPL-3.0-or-later
// Replays every run of a run store through the straggler detector with the settings given, and prints which
// ranks each run accuses: a way to see how a change to the detector's settings moves its false positives and
// its sensitivity on real runs recorded once (e.g. by bench/straggler-detection with --keep).
//
//   straggler_replay STORE [--allowance A] [--threshold T] [--min-slowdown S] [--window W] [--min-score Z]
//                          [--arrival-threshold L] [--material-steps M]
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <set>
#include <string>

#include "diagnosis/run_diagnosis.h"
#include "history/run_store.h"

using namespace ringmaster;

// Prints, for each run of the store, the ranks the detector accuses with `config` (the store is upgraded to
// the current schema if it is older).
void replayAll(const std::string& path, const diagnosis::DiagnosisConfig& config) {
  RunStore store(path);
  for (const auto& info : store.runs()) {
    const auto series = store.rankSeries(info.id);
    const int worldSize = info.worldSize > 0 ? info.worldSize : int(series.size());
    const auto findings =
        diagnosis::replay(series, store.stallReports(info.id), store.ranks(info.id), worldSize, config)
            .findings();
    std::set<int> accused;
    int infos = 0;
    std::string first;
    for (const auto& f : findings) {
      if (f.kind() != v1::Finding::KIND_STRAGGLER) continue;
      if (f.severity() == v1::Finding::SEVERITY_INFO) {
        ++infos;
        continue;
      }
      accused.insert(f.rank());
      if (first.empty()) first = f.summary();
    }
    std::string ranks;
    for (int r : accused) ranks += (ranks.empty() ? "" : ",") + std::to_string(r);
    std::printf("run %lld %-8s %d ranks: accused [%s] (+%d info)  %s\n", (long long)info.id,
                info.name.c_str(), worldSize, ranks.c_str(), infos, first.c_str());
  }
}

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr,
                 "usage: straggler_replay STORE [--allowance A] [--threshold T] [--min-slowdown S] "
                 "[--window W] [--min-score Z] [--arrival-threshold L] [--material-steps M]\n");
    return 2;
  }
  diagnosis::DiagnosisConfig config;
  auto& s = config.straggler;
  for (int i = 2; i + 1 < argc; i += 2) {
    const double v = std::atof(argv[i + 1]);
    if (!std::strcmp(argv[i], "--allowance"))
      s.cusumAllowance = v;
    else if (!std::strcmp(argv[i], "--threshold"))
      s.cusumThreshold = v;
    else if (!std::strcmp(argv[i], "--min-slowdown"))
      s.minSlowdown = v;
    else if (!std::strcmp(argv[i], "--window"))
      s.window = size_t(v);
    else if (!std::strcmp(argv[i], "--min-score"))
      s.minScore = v;
    else if (!std::strcmp(argv[i], "--arrival-threshold"))
      s.arrivalThreshold = v;
    else if (!std::strcmp(argv[i], "--material-steps"))
      s.materialSteps = size_t(v);
    else {
      std::fprintf(stderr, "straggler_replay: unknown option %s\n", argv[i]);
      return 2;
    }
  }
  try {
    replayAll(argv[1], config);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "straggler_replay: %s\n", e.what());
    return 1;
  }
  return 0;
}
