// SPDX-License-Identifier: GPL-3.0-or-later
// Record files as the ringmaster Python package writes them when no agent runs (RINGMASTER_RECORD_DIR): the
// magic, the rank's hello, its records in batches as produced, and its end (bye) when it ended cleanly; and
// the records of a synthetic run (diagnosis_synthetic.h) as each of its ranks would write them. Header-only.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "common/rank_frames.h"
#include "tests/support/diagnosis_synthetic.h"

namespace ringmaster::test {

inline v1::RankFrame helloFrame(const std::string& jobId, int rank, int worldSize, const std::string& host,
                                int pid) {
  v1::RankFrame frame;
  auto* hello = frame.mutable_hello();
  hello->set_job_id(jobId);
  hello->set_rank(rank);
  hello->set_world_size(worldSize);
  hello->set_launched_rank(rank);
  hello->set_pid(pid);
  hello->set_host(host);
  return frame;
}

inline std::string batchFrame(const std::vector<v1::Record>& records) {
  v1::RankFrame frame;
  frame.mutable_batch();
  for (const auto& r : records) *frame.mutable_batch()->add_records() = r;
  return encodeRankFrame(frame);
}

inline std::string byeFrame() {
  v1::RankFrame frame;
  frame.mutable_bye();
  return encodeRankFrame(frame);
}

// One rank's record file: its records in batches of 50, and its end when `ended`.
inline std::string recordFile(const std::string& jobId, int rank, int worldSize, const std::string& host,
                              int pid, const std::vector<v1::Record>& records, bool ended) {
  std::string bytes(kRecordFileMagic);
  bytes += encodeRankFrame(helloFrame(jobId, rank, worldSize, host, pid));
  for (size_t i = 0; i < records.size(); i += 50) {
    const auto end = records.begin() + long(std::min(records.size(), i + 50));
    bytes += batchFrame({records.begin() + long(i), end});
  }
  if (ended) bytes += byeFrame();
  return bytes;
}

inline v1::Record heartbeat(int rank, int64_t lastStep, const std::string& phase, int64_t sinceNs,
                            int64_t atNs) {
  v1::Record r;
  auto* b = r.mutable_heartbeat();
  b->set_rank(rank);
  b->set_last_step(lastStep);
  b->set_phase(phase);
  b->set_phase_since_ns(sinceNs);
  b->set_time_ns(atNs);
  return r;
}

// What a rank of a CPU PyTorch program says it runs on.
inline v1::Record runtime(int rank, const std::string& host, int pid) {
  v1::Record r;
  auto* rt = r.mutable_runtime();
  rt->set_rank(rank);
  rt->set_host(host);
  rt->set_python("3.11.2");
  rt->set_torch("2.6.0");
  rt->set_backend("gloo");
  rt->set_pid(pid);
  return r;
}

// Each rank's records of `run` as its package writes them: what the program runs on first (pid 100 + rank
// on hosts[rank]), then its all-reduce ops, steps and memory, with a heartbeat about every second of its
// training loop, up to (not including) step untilStep[rank].
inline std::vector<std::vector<v1::Record>> rankRecords(const SyntheticRun& run,
                                                        const std::vector<uint64_t>& untilStep,
                                                        const std::vector<std::string>& hosts) {
  constexpr int64_t kBeatEveryNs = 1'000'000'000;
  std::vector<std::vector<v1::Record>> out(size_t(run.ranks));
  std::vector<int64_t> lastBeat(size_t(run.ranks), 0);
  for (int r = 0; r < run.ranks; ++r) out[size_t(r)].push_back(runtime(r, hosts[size_t(r)], 100 + r));
  for (const auto& record : generate(run).records) {
    const int rank = record.has_step()        ? record.step().rank()
                     : record.has_allreduce() ? record.allreduce().rank()
                                              : record.memory().rank();
    const uint64_t step = record.has_step()        ? record.step().step()
                          : record.has_allreduce() ? record.allreduce().step()
                                                   : record.memory().step();
    if (step >= untilStep[size_t(rank)]) continue;
    out[size_t(rank)].push_back(record);
    if (record.has_step()) {
      const int64_t end = record.step().start_ns() + record.step().total_ns();
      if (end - lastBeat[size_t(rank)] >= kBeatEveryNs) {
        out[size_t(rank)].push_back(heartbeat(rank, int64_t(step), "data", end, end));
        lastBeat[size_t(rank)] = end;
      }
    }
  }
  return out;
}

}  // namespace ringmaster::test
