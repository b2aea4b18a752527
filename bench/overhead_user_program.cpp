// SPDX-License-Identifier: GPL-3.0-or-later
// A user's PyTorch DDP script (tests/integration/programs/fashion_ddp.py, Fashion-MNIST, gloo) started bare,
// as torchrun would (RANK, WORLD_SIZE, MASTER_ADDR ... and nothing of Ringmaster), against the same script
// under `ringmaster run -np N -- /usr/bin/python3 ...` (embedded agent, the ringmaster Python package
// instrumenting every step and all-reduce, the console diagnosing and storing). Rounds alternate bare and
// instrumented; each rank measures its own steady samples/s (after warm-up steps), summed over ranks. Prints
// every round, the median of each side, the ratio instrumented/bare with a bootstrap interval and the spread
// of the per-round ratios. The agent's and console's CPU time runs on the same cores as the ranks and counts
// against the instrumented side; it is measured (the launching process's own threads, from /proc) and printed
// as a share of the machine's CPU time. With --transport file the instrumented side is the same script
// recording without an agent: started as the bare one, with RINGMASTER_RECORD_DIR and the PYTHONPATH that
// `ringmaster python-path` prints, each rank writing its records to a file.
//
//   overhead_user_program [--ranks N] [--steps N] [--batch N] [--rounds R] [--transport socket|file]
//                         [--check-replicas-every N]
#include <poll.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <regex>
#include <sstream>

#include "agent/agent_server.h"
#include "agent/child_process.h"
#include "diagnosis/statistics.h"
#include "tests/support/ports.h"
#include "tests/support/process.h"
#include "tests/support/temp_dir.h"

using namespace ringmaster;

namespace {

const std::string kPython = "/usr/bin/python3";

// Sum of the "rank R steady samples/s X" lines in `text`; 0 when a rank did not report.
double summedRate(const std::string& text, int ranks) {
  static const std::regex line(R"(rank (\d+) steady samples/s ([0-9.]+))");
  double total = 0;
  int seen = 0;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), line); it != std::sregex_iterator(); ++it) {
    total += std::stod((*it)[2]);
    ++seen;
  }
  return seen == ranks ? total : 0;
}

std::vector<std::string> scriptArguments(const std::string& script, int steps, int batch) {
  return {kPython, script, "--steps", std::to_string(steps), "--batch", std::to_string(batch)};
}

// What one side of a round measured.
struct Side {
  double samplesPerS = 0;  // summed over ranks; 0 when a rank did not report
  double wallS = 0;        // from the first start to the last exit
  double ownCpuS = 0;  // CPU time of the launching process itself (console, embedded agent), not its ranks
};

// User and system CPU seconds of `pid`'s own threads (not its children), from /proc/PID/stat; -1 once gone.
double ownCpuSeconds(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t close = text.rfind(')');  // the command name may hold spaces
  if (close == std::string::npos || close + 2 > text.size()) return -1;
  std::istringstream fields(text.substr(close + 2));
  std::string skip;
  for (int field = 3; field < 14; ++field) fields >> skip;
  unsigned long long user = 0, system = 0;
  if (!(fields >> user >> system)) return -1;
  return static_cast<double>(user + system) / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

// Runs `children` to their ends and measures them: the ranks' summed samples/s from what they printed, and,
// with `sampleFirst`, the first child's own CPU time as last seen before it exited.
Side runToEnd(std::vector<std::unique_ptr<agent::ChildProcess>>& children, int ranks, bool sampleFirst) {
  const auto start = std::chrono::steady_clock::now();
  Side side;
  std::string out;
  char buffer[4096];
  while (true) {
    if (sampleFirst) side.ownCpuS = std::max(side.ownCpuS, ownCpuSeconds(children.front()->pid()));
    std::vector<pollfd> fds;
    for (auto& child : children) {
      for (int fd : {child->stdoutFd(), child->stderrFd()}) {
        if (fd >= 0) fds.push_back({fd, POLLIN, 0});
      }
    }
    if (fds.empty()) break;
    ::poll(fds.data(), fds.size(), 100);
    for (const auto& p : fds) {
      if (!p.revents) continue;
      ssize_t n = ::read(p.fd, buffer, sizeof buffer);
      if (n > 0) {
        out.append(buffer, static_cast<size_t>(n));
      } else if (n == 0 || errno != EAGAIN) {
        for (auto& child : children) child->closeOutput(p.fd);
      }
    }
  }
  for (auto& child : children) {
    while (!child->poll()) ::usleep(1000);
    if (child->exitCode() != 0) std::cerr << "a run failed:\n" << out << "\n";
  }
  side.wallS = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  side.samplesPerS = summedRate(out, ranks);
  return side;
}

// What `ringmaster python-path` prints.
std::string pythonPath() {
  std::string command = test::binPath("ringmaster") + " python-path";
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(::popen(command.c_str(), "r"), ::pclose);
  std::string out;
  char buffer[4096];
  while (pipe && std::fgets(buffer, sizeof buffer, pipe.get())) out += buffer;
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

// `extra`: more of the ranks' environment (a record folder and the package's path: recording with no agent).
Side runBare(const std::string& script, int ranks, int steps, int batch,
             const std::vector<std::string>& extra = {}) {
  const int port = test::freePort();
  std::vector<std::unique_ptr<agent::ChildProcess>> children;
  for (int r = 0; r < ranks; ++r) {
    std::vector<std::string> env = {"RANK=" + std::to_string(r),
                                    "LOCAL_RANK=" + std::to_string(r),
                                    "WORLD_SIZE=" + std::to_string(ranks),
                                    "LOCAL_WORLD_SIZE=" + std::to_string(ranks),
                                    "MASTER_ADDR=127.0.0.1",
                                    "MASTER_PORT=" + std::to_string(port)};
    if (ranks > 1) env.push_back("OMP_NUM_THREADS=1");  // as torchrun and Ringmaster's agent do
    env.insert(env.end(), extra.begin(), extra.end());
    children.push_back(std::make_unique<agent::ChildProcess>(
        agent::SpawnOptions{scriptArguments(script, steps, batch), agent::environmentWith(env), true, ""}));
  }
  return runToEnd(children, ranks, false);
}

Side runInstrumented(const std::string& script, int ranks, int steps, int batch, const std::string& state,
                     int checkReplicasEvery) {
  std::vector<std::string> argv = {
      test::binPath("ringmaster"), "run", "-np", std::to_string(ranks), "--no-store", "--state-dir", state};
  if (checkReplicasEvery != 0) {
    argv.push_back("--check-replicas-every");
    argv.push_back(std::to_string(checkReplicasEvery));
  }
  argv.push_back("--");
  for (auto& word : scriptArguments(script, steps, batch)) argv.push_back(word);
  std::vector<std::unique_ptr<agent::ChildProcess>> children;
  children.push_back(
      std::make_unique<agent::ChildProcess>(agent::SpawnOptions{argv, agent::environmentWith({}), true, ""}));
  return runToEnd(children, ranks, true);
}

}  // namespace

int main(int argc, char** argv) {
  int ranks = 2, steps = 300, batch = 64, rounds = 5;
  CLI::App app{"A user's PyTorch DDP script bare against under `ringmaster run`"};
  app.add_option("--ranks", ranks)->check(CLI::Range(1, 16));
  app.add_option("--steps", steps)->check(CLI::Range(20, 100000));
  app.add_option("--batch", batch)->check(CLI::Range(1, 4096));
  app.add_option("--rounds", rounds)->check(CLI::Range(1, 50));
  std::string transport = "socket";
  app.add_option("--transport", transport,
                 "socket: under ringmaster run, reporting to its agent; file: recording to files, no agent")
      ->check(CLI::IsMember({"socket", "file"}));
  int checkReplicasEvery = 0;
  app.add_option(
      "--check-replicas-every", checkReplicasEvery,
      "steps between the ranks' replica hashes on the instrumented side (0: ringmaster run's default, "
      "100; negative: never)");
  CLI11_PARSE(app, argc, argv);

  const std::string script = std::string(RM_SOURCE_DIR) + "/tests/integration/programs/fashion_ddp.py";
  test::TempDir dir("user-program-bench");
  std::printf(
      "user program overhead: %d ranks, %d steps of batch %d, fashion_ddp.py on gloo, %d rounds, transport "
      "%s\n",
      ranks, steps, batch, rounds, transport.c_str());
  if (transport == "socket") {
    std::printf("instrumented side: every collective's sequence kept; replica hashes %s\n",
                checkReplicasEvery < 0   ? "off"
                : checkReplicasEvery > 0 ? ("every " + std::to_string(checkReplicasEvery) + " steps").c_str()
                                         : "every 100 steps (the default)");
  }
  const std::string packagePath = transport == "file" ? pythonPath() : "";
  if (transport == "file" && packagePath.empty()) {
    std::fprintf(stderr, "ringmaster python-path printed nothing: build the ringmaster-python target\n");
    return 1;
  }
  int recording = 0;
  const auto instrumentedSide = [&] {
    if (transport == "socket")
      return runInstrumented(script, ranks, steps, batch, dir.file("state"), checkReplicasEvery);
    const std::string records = dir.file("records-" + std::to_string(++recording));
    return runBare(script, ranks, steps, batch,
                   {"RINGMASTER_RECORD_DIR=" + records, "PYTHONPATH=" + packagePath});
  };
  std::vector<double> bare, instrumented, ratios, ownShares;
  const double cores = static_cast<double>(::sysconf(_SC_NPROCESSORS_ONLN));
  for (int round = 0; round < rounds; ++round) {
    // Alternate which side goes first, so that a drift in the machine's load hits both alike.
    Side b, i;
    if (round % 2 == 0) {
      b = runBare(script, ranks, steps, batch);
      i = instrumentedSide();
    } else {
      i = instrumentedSide();
      b = runBare(script, ranks, steps, batch);
    }
    if (b.samplesPerS <= 0 || i.samplesPerS <= 0) {
      std::fprintf(stderr, "round %d: a side did not report its samples/s\n", round + 1);
      return 1;
    }
    bare.push_back(b.samplesPerS);
    instrumented.push_back(i.samplesPerS);
    ratios.push_back(i.samplesPerS / b.samplesPerS);
    // The console's and embedded agent's own CPU time, as a share of the machine's CPU time during the run.
    ownShares.push_back(i.ownCpuS / (i.wallS * cores));
    std::printf(
        "  round %d: bare %8.1f samples/s  instrumented %8.1f samples/s  ratio %.3f  (ringmaster's own CPU "
        "%.1f s, %.1f %% of %.0f cores over %.0f s)\n",
        round + 1, b.samplesPerS, i.samplesPerS, i.samplesPerS / b.samplesPerS, i.ownCpuS,
        100 * ownShares.back(), cores, i.wallS);
  }
  const auto [low, high] = std::minmax_element(ratios.begin(), ratios.end());
  const stats::Interval change =
      stats::bootstrapRelativeDifference(bare, instrumented, stats::Statistic::Median, 0.95, 4000, 7);
  std::printf("median: bare %.1f samples/s, instrumented %.1f samples/s\n", stats::median(bare),
              stats::median(instrumented));
  std::printf(
      "ratio instrumented/bare: %.3f, 95 %% bootstrap interval [%.3f, %.3f] (median of rounds %.3f, rounds "
      "from %.3f to %.3f; goal >= 0.98)\n",
      1 + change.estimate, 1 + change.lower, 1 + change.upper, stats::median(ratios), *low, *high);
  std::printf("ringmaster's own CPU (console and embedded agent): median %.1f %% of the machine's CPU time\n",
              100 * stats::median(ownShares));
  return 0;
}
