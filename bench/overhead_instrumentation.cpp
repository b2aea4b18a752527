// SPDX-License-Identifier: GPL-3.0-or-later
// Instrumentation overhead: the same training job with telemetry and the timeline on (ranks launched by an
// agent, streaming every record, writing Chrome trace files) and off (the same ranks started bare: no agent,
// no timeline). Prints each run's samples/s (summed over ranks, as each rank measured itself) and the ratio
// on/off.
//
//   overhead_instrumentation [--ranks N] [--steps N] [--model cnn] [--rounds R]
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <QByteArray>
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <thread>

#include "agent/agent_server.h"
#include "agent/child_process.h"
#include "common/job_spec.h"
#include "common/json.h"
#include "console/session/launcher.h"
#include "jobflags/job_flags.h"
#include "tests/support/files.h"
#include "tests/support/ports.h"
#include "tests/support/temp_dir.h"

using namespace ringmaster;
namespace fs = std::filesystem;

namespace {

// The ranks started bare, as torchrun would: no RINGMASTER_AGENT, no --timeline.
double runBare(const v1::JobSpec& spec, const fs::path& dir) {
  int port = test::freePort();
  std::vector<std::unique_ptr<agent::ChildProcess>> ranks;
  int n = static_cast<int>(spec.world_size());
  for (int r = 0; r < n; ++r) {
    std::vector<std::string> argv = {agent::defaultWorkerPath()};
    for (auto& a : workerArguments(spec)) argv.push_back(a);
    argv.push_back("--summary-json");
    argv.push_back((dir / ("bare-rank" + std::to_string(r) + ".json")).string());
    std::vector<std::string> env = agent::environmentWith(
        {"RANK=" + std::to_string(r), "LOCAL_RANK=" + std::to_string(r), "WORLD_SIZE=" + std::to_string(n),
         "LOCAL_WORLD_SIZE=" + std::to_string(n), "MASTER_ADDR=127.0.0.1",
         "MASTER_PORT=" + std::to_string(port),
         "OMP_NUM_THREADS=" + std::to_string(std::max(1u, std::thread::hardware_concurrency() / n))});
    for (auto it = env.begin(); it != env.end();) {
      it = it->rfind("RINGMASTER_", 0) == 0 ? env.erase(it) : it + 1;
    }
    ranks.push_back(std::make_unique<agent::ChildProcess>(agent::SpawnOptions{argv, env, true, ""}));
  }
  // Drain their output (a full pipe would stall them) until every rank has exited.
  bool running = true;
  while (running) {
    running = false;
    char buffer[65536];
    for (auto& rank : ranks) {
      for (int fd : {rank->stdoutFd(), rank->stderrFd()}) {
        if (fd < 0) continue;
        ssize_t got = ::read(fd, buffer, sizeof buffer);
        if (got == 0) rank->closeOutput(fd);
      }
      if (!rank->poll()) running = true;
    }
    if (running) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  for (auto& rank : ranks) {
    if (rank->exitCode() != 0 || rank->signal() != 0) {
      std::cerr << "a bare rank failed (exit " << rank->exitCode() << ", signal " << rank->signal() << ")\n";
      std::exit(1);
    }
  }
  double total = 0;
  for (int r = 0; r < n; ++r) {
    const std::string summary = test::readFile((dir / ("bare-rank" + std::to_string(r) + ".json")).string());
    total += parseJson(summary)["samples_per_s"].GetDouble();
  }
  return total;
}

// Keeps the ranks' own throughput figures from their summary records.
class Throughput : public console::RecordSink {
 public:
  void onRecords(const std::string&, const std::string&, const std::vector<v1::Record>& records) override {
    for (const auto& r : records) {
      if (r.has_summary()) total += r.summary().samples_per_s();
      if (r.has_timeline()) timelineEvents += 1;
      ++all;
    }
  }
  double total = 0;
  uint64_t timelineEvents = 0;
  uint64_t all = 0;
};

double runInstrumented(v1::JobSpec spec, const fs::path& dir, uint64_t& records, uint64_t& events) {
  spec.set_timeline(true);
  console::LaunchPlan plan;
  plan.spec = spec;
  plan.stateDir = (dir / "state").string();
  console::Launcher launcher(plan);
  Throughput throughput;
  launcher.addSink(&throughput);
  launcher.start();
  auto outcome = launcher.wait();
  if (outcome.status != console::JobStatus::Succeeded) {
    std::cerr << "the instrumented run failed: " << ringmaster::toText(outcome.message) << "\n";
    std::exit(1);
  }
  records = throughput.all;
  events = throughput.timelineEvents;
  return throughput.total;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  int ranks = 2;
  uint64_t steps = 200;
  std::string model = "cnn";
  int rounds = 3;
  CLI::App app{"Instrumentation overhead: telemetry + timeline on vs off", "overhead_instrumentation"};
  app.add_option("--ranks", ranks, "Ranks")->capture_default_str();
  app.add_option("--steps", steps, "Steps per run")->capture_default_str();
  app.add_option("--model", model, "Model (mlp, cnn, resnet18)")->capture_default_str();
  app.add_option("--rounds", rounds, "Runs of each kind, alternating; medians are compared")
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  v1::JobSpec spec = defaultJobSpec();
  spec.set_world_size(static_cast<uint32_t>(ranks));
  spec.set_dataset(v1::DATASET_SYNTHETIC);
  if (auto m = parseModel(model)) spec.set_model(*m);
  spec.mutable_hyper()->set_steps(steps);
  spec.mutable_hyper()->set_epochs(0);

  const test::TempDir scratch("bench-overhead");
  const fs::path dir = scratch.path();
  std::vector<double> off, on;
  uint64_t records = 0, events = 0;
  std::printf("instrumentation overhead: %d ranks, %s on synthetic data, %llu steps, %d rounds\n", ranks,
              model.c_str(), static_cast<unsigned long long>(steps), rounds);
  for (int round = 0; round < rounds; ++round) {
    off.push_back(runBare(spec, dir));
    on.push_back(runInstrumented(spec, dir / std::to_string(round), records, events));
    std::printf(
        "  round %d: off %.1f samples/s, on %.1f samples/s (%llu records streamed, %llu timeline events)\n",
        round + 1, off.back(), on.back(), static_cast<unsigned long long>(records),
        static_cast<unsigned long long>(events));
  }
  double ratio = median(on) / median(off);
  std::printf("median samples/s: off %.1f, on %.1f; ratio on/off %.3f (goal >= 0.99: %s)\n", median(off),
              median(on), ratio, ratio >= 0.99 ? "met" : "NOT met");
  return 0;
}
