// SPDX-License-Identifier: GPL-3.0-or-later
// Many ranks: a console watching a job of N ranks live through K agents, as `ringmaster run -H` watches a
// job across hosts. The agents are real (ringmaster-agent, each listening on its own loopback address
// 127.0.0.2, 127.0.0.3, ... with a token, as remote hosts' agents do); each starts its share of the ranks as
// a user's program it was allowed to start (--allow-program many_ranks_rank). A rank is a small process
// (bench/many_ranks_rank.cpp) that sends what a training rank's telemetry would through the rank socket:
// step samples, two bucket all-reduces, a memory sample a step, heartbeats. One rank straggles from a quarter
// of the run on, another leaks memory from step 50.
//
// The console is this process: a RunSession with its run store and diagnosis, as `ringmaster run` has. Every
// second it prints the records that arrived, the console's lag (from the end of a step in a rank to its step
// sample having been stored and diagnosed here), its CPU and its memory; at the end
//   ranks N: console lag p99 X s, console CPU Y %, memory Z MB, findings: ...
// and whether the goals hold (lag p99 < 1 s, console < 1 core, the injected straggler and leak found).
//
//   many_ranks [--ranks 1024] [--agents 8] [--rate 10] [--seconds 60] [--keep DIR]
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "bench/bench_support.h"
#include "common/quantiles.h"
#include "console/session/run_flags.h"
#include "console/session/run_session.h"
#include "tests/support/files.h"
#include "tests/support/ports.h"
#include "tests/support/process.h"
#include "tests/support/temp_dir.h"

using namespace ringmaster;
using namespace std::chrono_literals;

namespace {

int64_t monotonicNs() {
  timespec t{};
  ::clock_gettime(CLOCK_MONOTONIC, &t);
  return int64_t(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
}

uint64_t residentBytes() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::strtoull(line.c_str() + 6, nullptr, 10) * 1024;
  }
  return 0;
}

// CPU seconds process `pid` has used so far (its own, not its children's), from /proc.
double processCpuSeconds(int pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  std::istringstream fields(text.substr(text.rfind(')') + 2));  // after "pid (name) "
  std::string field;
  double ticks = 0;
  for (int i = 3; i <= 15 && fields >> field; ++i) {
    if (i >= 14) ticks += std::strtod(field.c_str(), nullptr);  // utime, stime
  }
  return ticks / double(::sysconf(_SC_CLK_TCK));
}

// How long each step sample took from its rank's step end (the ranks' step times are on this machine's
// monotonic clock) to here: called after the session's own sinks, so after it was stored and diagnosed.
class LagSink : public console::RecordSink {
 public:
  void onRecords(const std::string&, const std::string&, const std::vector<v1::Record>& records) override {
    const int64_t now = monotonicNs();
    std::lock_guard lock(mutex_);
    records_ += records.size();
    for (const auto& r : records) {
      if (!r.has_step()) continue;
      const double lag = double(now - r.step().start_ns() - r.step().total_ns()) / 1e9;
      second_.push_back(lag);
      all_.push_back(lag);
    }
  }
  // The records and the lags of step samples since the last call.
  uint64_t take(std::vector<double>& lags) {
    std::lock_guard lock(mutex_);
    lags.swap(second_);
    second_.clear();
    return std::exchange(records_, 0);
  }
  std::vector<double> all() const {
    std::lock_guard lock(mutex_);
    return all_;
  }

 private:
  mutable std::mutex mutex_;
  uint64_t records_ = 0;
  std::vector<double> second_, all_;
};

// A protobuf enum value's name as words: KIND_MEMORY_LEAK -> "memory leak".
std::string words(const std::string& enumName) {
  std::string name = enumName.substr(enumName.find('_') + 1);
  std::transform(name.begin(), name.end(), name.begin(),
                 [](char c) { return c == '_' ? ' ' : char(std::tolower(c)); });
  return name;
}

std::string findingsLine(const std::vector<v1::Finding>& findings) {
  std::string line;
  for (const auto& f : findings) {
    if (!line.empty()) line += ", ";
    line += words(v1::Finding::Kind_Name(f.kind())) +
            (f.rank() >= 0 ? " rank " + std::to_string(f.rank()) : "") + " (" +
            words(v1::Finding::Severity_Name(f.severity())) + ")";
  }
  return line.empty() ? "none" : line;
}

bool found(const std::vector<v1::Finding>& findings, v1::Finding::Kind kind, int rank) {
  return std::any_of(findings.begin(), findings.end(), [&](const v1::Finding& f) {
    return f.kind() == kind && f.rank() == rank && f.severity() >= v1::Finding::SEVERITY_WARNING;
  });
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app("Many ranks: a console watching N simulated ranks through K agents live");
  int ranks = 1024, agents = 8, seconds = 60;
  double rate = 10, stragglerPct = 30, leakMib = 4;
  std::string keep;
  app.add_option("--ranks", ranks, "ranks in the job")->check(CLI::Range(2, 4096));
  app.add_option("--agents", agents, "agents (hosts) the ranks are spread over")->check(CLI::Range(1, 250));
  app.add_option("--rate", rate, "steps a second of every rank")->check(CLI::Range(0.5, 100.0));
  app.add_option("--seconds", seconds, "how long the ranks train")->check(CLI::Range(10, 3600));
  app.add_option("--straggler-pct", stragglerPct, "how much more work the straggler does (%)");
  app.add_option("--leak-mib", leakMib, "how much the leaking rank grows a step (MiB)");
  app.add_option("--keep", keep, "keep the run store and the agents' output in this folder");
  CLI11_PARSE(app, argc, argv);
  if (agents > ranks) agents = ranks;

  test::TempDir scratch("many-ranks");
  const std::string dir = keep.empty() ? scratch.path() : keep;
  std::filesystem::create_directories(dir);
  const std::string token = dir + "/token";
  test::writeFile(token, "many-ranks-" + std::to_string(::getpid()) + "-" + std::to_string(monotonicNs()));
  std::filesystem::permissions(token,
                               std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  const std::string rankProgram = test::binPath("many_ranks_rank");
  const int port = test::freePort();

  // K agents, each on its own loopback address; a host list that gives each its share of the ranks.
  std::vector<std::unique_ptr<test::BackgroundProcess>> hosts;
  std::string hostList;
  for (int k = 0; k < agents; ++k) {
    const std::string address = "127.0.0." + std::to_string(k + 2);
    const std::string state = dir + "/agent" + std::to_string(k);
    std::filesystem::create_directories(state);
    hosts.push_back(std::make_unique<test::BackgroundProcess>(
        std::vector<std::string>{test::binPath("ringmaster-agent"), "--listen", address, "--port",
                                 std::to_string(port), "--token-file", token, "--state-dir", state,
                                 "--allow-program", rankProgram},
        std::map<std::string, std::string>{}, state));
    const int share = ranks / agents + (k < ranks % agents ? 1 : 0);
    hostList += (k ? "," : "") + address + ":" + std::to_string(share);
  }
  for (auto& host : hosts) {
    const auto deadline = std::chrono::steady_clock::now() + 30s;
    while (host->err().find("serving consoles on") == std::string::npos) {
      if (!host->running() || std::chrono::steady_clock::now() > deadline) {
        std::cerr << "many_ranks: an agent did not start:\n" << host->err();
        return 1;
      }
      std::this_thread::sleep_for(50ms);
    }
  }

  const int steps = int(rate * seconds);
  const int straggler = ranks * 2 / 3 + 1, leaker = ranks / 3 + 1;
  // Every rank's step 0 starts once they all had time to start (the agents start a few hundred a second).
  const int64_t startAt = monotonicNs() + int64_t(3e9 + double(ranks) * 8e6);
  console::RunFlags flags = console::parseRunFlags(
      {"-np",
       std::to_string(ranks),
       "-H",
       hostList,
       "--agent-port",
       std::to_string(port),
       "--token-file",
       token,
       "--store",
       dir + "/runs.db",
       "--name",
       "many_ranks " + std::to_string(ranks),
       "--",
       rankProgram,
       "--steps",
       std::to_string(steps),
       "--rate",
       std::to_string(rate),
       "--start-at",
       std::to_string(startAt),
       "--straggler",
       std::to_string(straggler) + ":" + std::to_string(stragglerPct) + ":" + std::to_string(steps / 4),
       "--leak",
       std::to_string(leaker) + ":" + std::to_string(leakMib) + ":50"});
  console::RunSessionOptions options;
  options.storePath = dir + "/runs.db";
  console::RunSession session(console::launchPlan(flags), options);
  LagSink lag;
  session.addSink(&lag);

  std::printf(
      "many_ranks: %d ranks on %d agents, %.3g steps/s each for %d s (%d steps); straggler rank %d "
      "(+%.3g %% work from step %d), leak rank %d (%.3g MiB a step from step 50)\n",
      ranks, agents, rate, seconds, steps, straggler, stragglerPct, steps / 4, leaker, leakMib);
  std::fflush(stdout);
  const auto agentsCpu = [&] {
    double sum = 0;
    for (const auto& host : hosts) sum += processCpuSeconds(host->pid());
    return sum;
  };
  const double cpuBefore = bench::cpuSeconds(), agentsBefore = agentsCpu();
  const auto began = std::chrono::steady_clock::now();
  try {
    session.start();
  } catch (const std::exception& e) {
    std::cerr << "many_ranks: the job did not start: " << e.what() << "\n";
    return 1;
  }

  std::optional<console::JobOutcome> outcome;
  double cpuThen = bench::cpuSeconds();
  auto then = std::chrono::steady_clock::now();
  double cpuFirstStep = -1, wallFirstStep = 0;
  while (!(outcome = session.waitFor(1s))) {
    const auto now = std::chrono::steady_clock::now();
    const double cpu = bench::cpuSeconds();
    const double wall = std::chrono::duration<double>(now - then).count();
    std::vector<double> lags;
    const uint64_t records = lag.take(lags);
    if (cpuFirstStep < 0 && !lags.empty()) {  // the run's steady part: from the first step sample on
      cpuFirstStep = cpu;
      wallFirstStep = bench::secondsSince(began);
    }
    std::printf(
        "t %5.1f s: %8.0f records/s, step samples %6zu, lag p50 %.3f s p99 %.3f s, console CPU %5.1f %%, "
        "memory %.0f MB, findings: %s\n",
        bench::secondsSince(began), double(records) / wall, lags.size(), stats::quantile(lags, 0.5),
        stats::quantile(lags, 0.99), 100 * (cpu - cpuThen) / wall, double(residentBytes()) / 1e6,
        findingsLine(session.findings()).c_str());
    std::fflush(stdout);
    cpuThen = cpu;
    then = now;
  }
  const double agentsPct = 100 * (agentsCpu() - agentsBefore) / bench::secondsSince(began);
  const double cpuRun = bench::cpuSeconds() - (cpuFirstStep < 0 ? cpuBefore : cpuFirstStep);
  const double wallRun = bench::secondsSince(began) - wallFirstStep;
  const console::RunResult result = session.finish(*outcome);
  const std::vector<double> lags = lag.all();
  const double p99 = stats::quantile(lags, 0.99);
  const double cpuPct = 100 * cpuRun / wallRun;
  const double memoryMb = double(bench::peakRssBytes()) / 1e6;  // the process's peak

  std::printf(
      "job %s, %zu step samples (%d expected), stored as run %lld in %s; the %d agents used %.1f %% of "
      "a core in all\n",
      result.status.c_str(), lags.size(), ranks * steps, static_cast<long long>(session.runId()),
      options.storePath.c_str(), agents, agentsPct);
  std::printf("ranks %d: console lag p99 %.3f s, console CPU %.1f %%, memory %.0f MB, findings: %s\n", ranks,
              p99, cpuPct, memoryMb, findingsLine(result.findings).c_str());
  const bool stragglerFound = found(result.findings, v1::Finding::KIND_STRAGGLER, straggler);
  const bool leakFound = found(result.findings, v1::Finding::KIND_MEMORY_LEAK, leaker);
  std::printf("goals: lag p99 < 1 s %s; console < 1 core %s; straggler rank %d %s; leak rank %d %s\n",
              p99 < 1 ? "met" : "NOT met", cpuPct < 100 ? "met" : "NOT met", straggler,
              stragglerFound ? "found" : "NOT found", leaker, leakFound ? "found" : "NOT found");
  return p99 < 1 && cpuPct < 100 && stragglerFound && leakFound ? 0 : 3;
}
