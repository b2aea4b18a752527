// SPDX-License-Identifier: GPL-3.0-or-later
#include "tests/integration/training_ranks.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>
#include <thread>

#include "tests/support/files.h"
#include "tests/support/ports.h"

namespace ringmaster::test {

TrainingJob::TrainingJob(int worldSize, const std::vector<std::string>& flags, JobOptions options)
    : results_(static_cast<size_t>(worldSize)) {
  const std::string port = std::to_string(freePort());
  std::vector<std::thread> ranks;
  for (int r = 0; r < worldSize; ++r) {
    if (options.absentRanks.count(r)) continue;
    std::vector<std::string> argv = {binPath("ringmaster-worker")};
    argv.insert(argv.end(), flags.begin(), flags.end());
    if (options.summaries) {
      argv.insert(argv.end(), {"--summary-json", dir_.file("summary." + std::to_string(r) + ".json"),
                               "--dump-params", dir_.file("params." + std::to_string(r) + ".bin")});
    }
    std::map<std::string, std::string> env = {{"RANK", std::to_string(r)},
                                              {"LOCAL_RANK", std::to_string(r)},
                                              {"WORLD_SIZE", std::to_string(worldSize)},
                                              {"LOCAL_WORLD_SIZE", std::to_string(worldSize)},
                                              {"MASTER_ADDR", "127.0.0.1"},
                                              {"MASTER_PORT", port},
                                              {"OMP_NUM_THREADS", "1"}};
    for (const auto& [key, value] : options.env) env[key] = value;
    ranks.emplace_back([this, r, argv, env, timeout = options.timeout] {
      results_[static_cast<size_t>(r)] = runProcess(argv, env, timeout);
    });
  }
  for (auto& t : ranks) t.join();
}

bool TrainingJob::succeeded() const {
  return std::all_of(results_.begin(), results_.end(),
                     [](const ProcessResult& r) { return r.exitCode == 0; });
}

std::string TrainingJob::describe() const {
  std::ostringstream text;
  for (size_t r = 0; r < results_.size(); ++r) {
    const auto& result = results_[r];
    text << "rank " << r << ": exit " << result.exitCode << " signal " << result.signal
         << (result.timedOut ? " (timed out)" : "") << "\n"
         << result.err << "\n";
  }
  return text.str();
}

rapidjson::Document TrainingJob::summary(int rank) const {
  rapidjson::Document summary;
  std::string json = readFile(dir_.file("summary." + std::to_string(rank) + ".json"));
  EXPECT_FALSE(json.empty()) << "rank " << rank << " wrote no summary\n" << describe();
  try {
    summary = parseJson(json);
  } catch (const JsonError& e) {
    ADD_FAILURE() << "rank " << rank << "'s summary: " << e.what() << "\n" << json;
  }
  EXPECT_TRUE(summary.IsObject()) << json;
  if (!summary.IsObject()) summary.SetObject();
  return summary;
}

double TrainingJob::number(int rank, const std::string& key) const {
  auto s = summary(rank);
  bool found = s.HasMember(key) && s[key].IsNumber();
  EXPECT_TRUE(found) << key;
  return found ? s[key].GetDouble() : NAN;
}

std::string TrainingJob::text(int rank, const std::string& key) const {
  auto s = summary(rank);
  bool found = s.HasMember(key) && s[key].IsString();
  EXPECT_TRUE(found) << key;
  return found ? s[key].GetString() : "";
}

double TrainingJob::engineStat(int rank, const std::string& key) const {
  return summary(rank)["engine_stats"][key].GetDouble();
}

double TrainingJob::phaseMs(int rank, const std::string& key) const {
  return summary(rank)["step_phase_means_ms"][key].GetDouble();
}

std::vector<float> TrainingJob::parameters(int rank) const {
  std::string bytes = readFile(dir_.file("params." + std::to_string(rank) + ".bin"));
  EXPECT_FALSE(bytes.empty()) << "rank " << rank << " dumped no parameters\n" << describe();
  EXPECT_EQ(bytes.size() % sizeof(float), 0u);
  std::vector<float> values(bytes.size() / sizeof(float));
  std::memcpy(values.data(), bytes.data(), values.size() * sizeof(float));
  return values;
}

void expectRanksIdentical(const TrainingJob& job) {
  std::vector<float> rank0 = job.parameters(0);
  ASSERT_FALSE(rank0.empty());
  for (int r = 1; r < job.worldSize(); ++r) {
    std::vector<float> other = job.parameters(r);
    ASSERT_EQ(other.size(), rank0.size());
    EXPECT_EQ(std::memcmp(other.data(), rank0.data(), rank0.size() * sizeof(float)), 0)
        << "rank " << r << " differs from rank 0 (relative " << relativeDifference(other, rank0) << ")";
    EXPECT_EQ(job.text(r, "param_checksum"), job.text(0, "param_checksum"));
  }
}

double relativeDifference(const std::vector<float>& a, const std::vector<float>& b) {
  if (a.size() != b.size() || a.empty()) return INFINITY;
  double maxDiff = 0, maxValue = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    maxDiff = std::max(maxDiff, std::fabs(static_cast<double>(a[i]) - b[i]));
    maxValue = std::max(maxValue, std::fabs(static_cast<double>(b[i])));
  }
  return maxValue > 0 ? maxDiff / maxValue : maxDiff;
}

}  // namespace ringmaster::test
