// SPDX-License-Identifier: GPL-3.0-or-later
// Faults a real run meets, through the real binaries: a loss that becomes NaN, a store another program locks,
// a rank frozen with SIGSTOP, a console killed with SIGKILL, an agent
// whose journal can no longer be written. The run survives, is told truthfully, and stays
// in the history.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <thread>

#include "tests/support/files.h"
#include "tests/support/ports.h"
#include "tests/support/process.h"
#include "tests/support/temp_dir.h"
#include "tests/support/wait.h"

using ringmaster::test::BackgroundProcess;
using ringmaster::test::binPath;
using ringmaster::test::eventually;
using ringmaster::test::freePort;
using ringmaster::test::readFile;
using ringmaster::test::runProcess;
using ringmaster::test::TempDir;

namespace {

// The pids of the processes for which `wanted` holds of the NUL-separated strings in /proc/PID/`file`
// (their environment or command line).
template <typename Wanted>
std::vector<pid_t> processes(const char* file, Wanted wanted) {
  std::vector<pid_t> found;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(entry.path() / file, std::ios::binary);
    std::vector<std::string> strings;
    for (std::string one; std::getline(in, one, '\0');) strings.push_back(one);
    if (wanted(strings)) found.push_back(static_cast<pid_t>(std::stol(name)));
  }
  return found;
}

// The processes whose environment holds every one of `entries` (e.g. RANK=1 and the job's id).
std::vector<pid_t> processesWith(const std::vector<std::string>& entries) {
  return processes("environ", [&](const std::vector<std::string>& vars) {
    return std::all_of(entries.begin(), entries.end(), [&](const std::string& e) {
      return std::find(vars.begin(), vars.end(), e) != vars.end();
    });
  });
}

// The processes with `word` as one argument of their command line.
std::vector<pid_t> processesRunning(const std::string& word) {
  return processes("cmdline", [&](const std::vector<std::string>& args) {
    return std::find(args.begin(), args.end(), word) != args.end();
  });
}

// A count the store at `path` answers `sql` with (its one parameter, if any, bound to `name`), read as any
// other reader would; 0 when there is no store (yet).
int storedCount(const std::string& path, const char* sql, const std::string& name = {}) {
  sqlite3* db = nullptr;
  int count = 0;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_busy_timeout(db, 1000);
    sqlite3_stmt* q = nullptr;
    if (sqlite3_prepare_v2(db, sql, -1, &q, nullptr) == SQLITE_OK) {
      if (sqlite3_bind_parameter_count(q) > 0) sqlite3_bind_text(q, 1, name.c_str(), -1, SQLITE_TRANSIENT);
      if (sqlite3_step(q) == SQLITE_ROW) count = sqlite3_column_int(q, 0);
    }
    sqlite3_finalize(q);
  }
  sqlite3_close(db);
  return count;
}

// How many of the run's ranks have steps in the store (the run is named after its job).
int ranksWithStoredSteps(const TempDir& dir, const std::string& jobId) {
  return storedCount(
      dir.file("runs.sqlite"),
      "SELECT count(DISTINCT rank) FROM (SELECT run_id, rank FROM steps UNION ALL SELECT run_id, rank FROM "
      "step_chunks) WHERE run_id IN (SELECT id FROM runs WHERE name = ?)",
      jobId);
}

// Built-in training long enough to be interfered with: rank 0 spends 30 ms more per step.
std::vector<std::string> longRun(const TempDir& dir, const std::string& jobId, int steps) {
  return {binPath("ringmaster"),
          "run",
          "-np",
          "2",
          "--model",
          "mlp",
          "--data",
          "synthetic",
          "--steps",
          std::to_string(steps),
          "--inject-straggler",
          "0:30",
          "--store",
          dir.file("runs.sqlite"),
          "--state-dir",
          dir.file("state"),
          "--job-id",
          jobId,
          "--name",
          jobId};
}

}  // namespace

TEST(Faults, ARankFrozenWithSigstopIsNamedAndRememberedOnceItGoesOn) {
  TempDir dir("frozen");
  const std::string jobId = "frozen-" + std::to_string(::getpid());
  ringmaster::test::ProcessResult result;
  std::thread run([&] { result = runProcess(longRun(dir, jobId, 700), {}, std::chrono::minutes(5)); });
  std::vector<pid_t> rank1;
  const bool started = eventually(
      [&] {
        return !(rank1 = processesWith({"RANK=1", "RINGMASTER_JOB_ID=" + jobId})).empty();
      },
      std::chrono::seconds(60));
  if (started) {
    // Some steps of both ranks first: rank 1 is frozen while it trains, not before it reported.
    eventually([&] { return ranksWithStoredSteps(dir, jobId) == 2; }, std::chrono::seconds(60),
               std::chrono::milliseconds(200));
    ::kill(rank1.front(), SIGSTOP);
    std::this_thread::sleep_for(std::chrono::seconds(12));
    ::kill(rank1.front(), SIGCONT);
  }
  run.join();
  ASSERT_TRUE(started) << "rank 1 never started: " << result.err;
  EXPECT_EQ(result.exitCode, 0) << result.err;
  // "rank 1 (host) went silent after step N: it has sent nothing for 12.1 s ...; then it went on", or, when
  // its last heartbeat landed just before the stall threshold, the same stall told from progress: "rank 1
  // (host) stopped after step N while the others finished step N+1; the job has not progressed for 12.0 s".
  // Either names rank 1 and a quiet time of the freeze's length.
  const std::regex silent(
      R"(finding: rank 1 \([^)]*\) (went silent after step \d+: it has sent nothing for|stopped after step \d+ while the others finished step \d+; the job has not progressed for) 1\d\.\d s)");
  EXPECT_TRUE(std::regex_search(result.err, silent)) << result.err;
  auto show = runProcess({binPath("ringmaster"), "show", jobId, "--store", dir.file("runs.sqlite")});
  EXPECT_NE(show.out.find("[warning] stall: rank 1 ("), std::string::npos) << show.out;
  EXPECT_NE(show.out.find("then it went on"), std::string::npos) << show.out;
}

TEST(Faults, ARunWhoseConsoleIsKilledIsMarkedInterruptedWithItsStepsKept) {
  TempDir dir("killed-console");
  const std::string jobId = "killed-" + std::to_string(::getpid());
  std::thread run([&] { runProcess(longRun(dir, jobId, 5000), {}, std::chrono::minutes(5)); });
  // Until the run has stored some steps.
  const bool running = eventually([&] { return ranksWithStoredSteps(dir, jobId) > 0; },
                                  std::chrono::seconds(90), std::chrono::milliseconds(200));
  // The console is the process started with the job id on its command line that is not one of its ranks.
  const auto ranks = processesWith({"RINGMASTER_JOB_ID=" + jobId});
  for (pid_t pid : processesRunning(jobId)) {
    if (std::find(ranks.begin(), ranks.end(), pid) == ranks.end()) ::kill(pid, SIGKILL);
  }
  run.join();
  // Ranks the dead console leaves behind are not this test's to keep.
  for (pid_t rank : processesWith({"RINGMASTER_JOB_ID=" + jobId})) ::kill(rank, SIGKILL);
  ASSERT_TRUE(running) << "the run never stored a step";
  auto runs = runProcess({binPath("ringmaster"), "runs", "--store", dir.file("runs.sqlite")});
  EXPECT_NE(runs.out.find("interrupted"), std::string::npos) << runs.out;
  EXPECT_EQ(runs.out.find("running"), std::string::npos) << runs.out;
  auto show = runProcess({binPath("ringmaster"), "show", jobId, "--store", dir.file("runs.sqlite")});
  EXPECT_NE(show.out.find("status interrupted"), std::string::npos) << show.out;
  EXPECT_NE(show.out.find("throughput"), std::string::npos)
      << "the steps stored before are kept: " << show.out;
}

namespace {

// The status of the run named `name` in the store at `path`, read as any other reader would; "" when there is
// no such run (yet).
std::string storedStatus(const std::string& path, const std::string& name) {
  sqlite3* db = nullptr;
  std::string status;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_busy_timeout(db, 1000);
    sqlite3_stmt* q = nullptr;
    if (sqlite3_prepare_v2(db, "SELECT status FROM runs WHERE name = ?", -1, &q, nullptr) == SQLITE_OK) {
      sqlite3_bind_text(q, 1, name.c_str(), -1, SQLITE_TRANSIENT);
      if (sqlite3_step(q) == SQLITE_ROW) status = reinterpret_cast<const char*>(sqlite3_column_text(q, 0));
    }
    sqlite3_finalize(q);
  }
  sqlite3_close(db);
  return status;
}

// How many timeline chunks the store at `path` holds.
int storedChunks(const std::string& path) {
  return storedCount(path, "SELECT count(*) FROM timeline_chunks");
}

}  // namespace

// `ringmaster import` killed with SIGKILL while it stores a large trace leaves a part of it: the next command
// finds the importing process gone and shows the run as an interrupted import, not as a whole one.
TEST(Faults, AnImportKilledMidwayIsShownAsAnInterruptedImport) {
  TempDir dir("killed-import");
  const std::string trace = dir.file("big.json");
  {
    std::ofstream out(trace);
    out << "{\"traceEvents\":[";
    for (int i = 0; i < 3'000'000; ++i) {
      out << (i ? "," : "") << "{\"name\":\"op" << i % 40 << "\",\"ph\":\"X\",\"ts\":" << 5 * i
          << ",\"dur\":3,\"pid\":" << i % 8 << ",\"tid\":" << i % 5 << "}\n";
    }
    out << "]}";
  }
  const std::string store = dir.file("runs.sqlite");
  const std::string ringmaster = binPath("ringmaster");
  const pid_t importer = ::fork();
  if (importer == 0) {
    const int quiet = ::open("/dev/null", O_WRONLY);
    ::dup2(quiet, 1);
    ::dup2(quiet, 2);
    ::execl(ringmaster.c_str(), ringmaster.c_str(), "import", trace.c_str(), "--store", store.c_str(),
            "--name", "big", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  // Until its run is in the history with a part of the trace, then at once.
  const auto until = std::chrono::steady_clock::now() + std::chrono::minutes(3);
  std::string before;
  int status = 0;
  bool exited = false;
  while (before.empty() && std::chrono::steady_clock::now() < until) {
    if (::waitpid(importer, &status, WNOHANG) == importer) {
      exited = true;
      break;
    }
    // Once it has stored a part of the trace: mid-way.
    if (storedChunks(store) > 0) before = storedStatus(store, "big");
    if (before.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (!exited) {
    ::kill(importer, SIGKILL);
    ::waitpid(importer, &status, 0);
  }
  ASSERT_FALSE(exited) << "the import ended before its run was seen (exit status " << status << ")";
  ASSERT_EQ(before, "importing") << "the import had already finished when it was killed";

  auto show = runProcess({ringmaster, "show", "big", "--store", store});
  EXPECT_EQ(show.exitCode, 0) << show.err;
  EXPECT_NE(show.out.find("status interrupted"), std::string::npos) << show.out;
  EXPECT_NE(show.out.find("interrupted import: the import of " + trace + " did not finish"),
            std::string::npos)
      << show.out;
  auto runs = runProcess({ringmaster, "runs", "--store", store});
  EXPECT_NE(runs.out.find("interrupted"), std::string::npos) << runs.out;
  EXPECT_EQ(runs.out.find("importing"), std::string::npos) << runs.out;
  // Imported again, the trace is a whole run beside the interrupted one.
  auto again = runProcess({ringmaster, "import", trace, "--store", store, "--name", "big"}, {},
                          std::chrono::minutes(5));
  EXPECT_EQ(again.exitCode, 0) << again.err;
  EXPECT_NE(again.out.find("3000000 events"), std::string::npos) << again.out;
}

TEST(Faults, ARunWhoseLossBecomesNaNFinishesAndIsStoredWithADivergenceFinding) {
  TempDir dir("diverging");
  const std::string store = dir.file("runs.sqlite");
  // A learning rate of a million: real jobs diverge too, and the run must survive it.
  auto r = runProcess(
      {binPath("ringmaster"), "run", "-np", "2", "--model", "mlp", "--data", "synthetic", "--steps", "30",
       "--lr", "1e6", "--store", store, "--state-dir", dir.file("state"), "--name", "diverged"},
      {}, std::chrono::minutes(5));
  ASSERT_FALSE(r.timedOut);
  EXPECT_EQ(r.signal, 0) << r.err;
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.err.find("finding: The loss became"), std::string::npos) << r.err;

  auto show = runProcess({binPath("ringmaster"), "show", "diverged", "--store", store});
  EXPECT_EQ(show.exitCode, 0) << show.err;
  EXPECT_NE(show.out.find("status finished"), std::string::npos) << show.out;
  EXPECT_NE(show.out.find("divergence: The loss became"), std::string::npos) << show.out;
  EXPECT_NE(show.out.find("over 30 steps"), std::string::npos) << "every step is kept: " << show.out;
}

TEST(Faults, AStoreLockedByAnotherProgramDuringARunLosesNeitherTheRunNorItsEnd) {
  TempDir dir("locked-store");
  const std::string store = dir.file("runs.sqlite");
  // Another program (a user's sqlite3 shell, a backup) takes the write lock for longer than the store waits.
  std::atomic<bool> locked{false};
  std::thread other([&] {
    sqlite3* db = nullptr;
    for (int i = 0; i < 3000 && !locked; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      if (!std::filesystem::exists(store)) continue;
      if (!db && sqlite3_open(store.c_str(), &db) != SQLITE_OK) continue;
      sqlite3_busy_timeout(db, 100);
      int steps = -1;
      sqlite3_exec(
          db, "SELECT (SELECT count(*) FROM steps) + (SELECT count(*) FROM step_chunks)",
          [](void* out, int, char** values, char**) {
            *static_cast<int*>(out) = values[0] ? std::atoi(values[0]) : 0;
            return 0;
          },
          &steps, nullptr);
      if (steps > 0 && sqlite3_exec(db, "BEGIN EXCLUSIVE", nullptr, nullptr, nullptr) == SQLITE_OK)
        locked = true;
    }
    if (locked) {
      std::this_thread::sleep_for(std::chrono::seconds(8));
      sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr);
    }
    sqlite3_close(db);
  });
  auto r =
      runProcess({binPath("ringmaster"), "run", "-np", "2", "--model", "mlp", "--data", "synthetic",
                  "--steps", "600", "--store", store, "--state-dir", dir.file("state"), "--name", "held"},
                 {}, std::chrono::minutes(5));
  other.join();
  ASSERT_TRUE(locked) << "the other program never got the lock; the run ended before it could";
  EXPECT_EQ(r.signal, 0) << r.err;
  // The batches the store refused meanwhile are missing from the history, which the run says.
  const bool lost = r.err.find("records could not be stored") != std::string::npos;
  EXPECT_EQ(r.exitCode, lost ? 1 : 0) << r.err;
  if (lost) {
    EXPECT_NE(r.err.find("finished, but"), std::string::npos) << r.err;
  }
  auto show = runProcess({binPath("ringmaster"), "show", "held", "--store", store});
  EXPECT_EQ(show.exitCode, 0) << show.err;
  EXPECT_NE(show.out.find("status finished"), std::string::npos) << show.out;
  if (lost) {
    EXPECT_NE(show.out.find("could not be stored in the run history"), std::string::npos) << show.out;
  }
}

TEST(Faults, ACrashedRankIsTheRunsFirstFinding) {
  TempDir dir("crash");
  auto r = runProcess({binPath("ringmaster"),
                       "run",
                       "-np",
                       "2",
                       "--engine",
                       "horovod",
                       "--model",
                       "mlp",
                       "--data",
                       "synthetic",
                       "--steps",
                       "80",
                       "--inject-crash",
                       "1:30",
                       "--store",
                       dir.file("runs.sqlite"),
                       "--state-dir",
                       dir.file("state"),
                       "--name",
                       "crashed"},
                      {}, std::chrono::minutes(5));
  EXPECT_EQ(r.exitCode, 1) << r.err;
  EXPECT_NE(r.err.find("finding: rank 1"), std::string::npos) << r.err;
  auto show = runProcess({binPath("ringmaster"), "show", "crashed", "--store", dir.file("runs.sqlite")});
  const auto findings = show.out.find("Findings:");
  ASSERT_NE(findings, std::string::npos) << show.out;
  const size_t firstLine = show.out.find('\n', findings) + 1;
  const std::string first = show.out.substr(firstLine, show.out.find('\n', firstLine) - firstLine);
  EXPECT_NE(first.find("] crash: rank 1"), std::string::npos)
      << "the crash is the first finding: " << show.out;
}

// A full disk under the agent's journal, made without root: a file-size limit on the agent turns its journal
// writes into errors once the journal reaches 256 KiB, as ENOSPC would on a full filesystem.
TEST(Faults, AnAgentThatCannotWriteItsJournalStopsTheRanksAndTheConsoleSaysWhy) {
  TempDir dir("journal-full");
  const std::string jobId = "journal-full-" + std::to_string(::getpid());
  const int port = freePort();
  // A file-size limit on the agent and the ranks it starts; whatever the test finds, the agent ends with it.
  BackgroundProcess agent({"/usr/bin/prlimit", "--fsize=" + std::to_string(256 * 1024),
                           binPath("ringmaster-agent"), "--port", std::to_string(port), "--state-dir",
                           dir.file("state"), "--worker", binPath("ringmaster-worker")});
  ASSERT_TRUE(eventually([&] { return agent.err().find("serving consoles on") != std::string::npos; },
                         std::chrono::seconds(30)))
      << "the agent did not come up: " << agent.err();

  // Far more steps than the test lets run: only the agent's stop can end this run in time.
  auto r = runProcess({binPath("ringmaster"),
                       "run",
                       "-np",
                       "2",
                       "-H",
                       "127.0.0.1:2",
                       "--agent-port",
                       std::to_string(port),
                       "--model",
                       "mlp",
                       "--data",
                       "synthetic",
                       "--steps",
                       "1000000",
                       "--store",
                       dir.file("runs.sqlite"),
                       "--job-id",
                       jobId,
                       "--name",
                       jobId},
                      {}, std::chrono::minutes(3));
  const bool ranksEnded = eventually([&] { return processesWith({"RINGMASTER_JOB_ID=" + jobId}).empty(); },
                                     std::chrono::seconds(30));
  for (pid_t rank : processesWith({"RINGMASTER_JOB_ID=" + jobId})) ::kill(rank, SIGKILL);
  agent.signal(SIGTERM);
  agent.wait(std::chrono::seconds(30));

  EXPECT_FALSE(r.timedOut) << "the run went on after its journal failed";
  EXPECT_EQ(r.signal, 0) << r.err;
  EXPECT_EQ(r.exitCode, 1) << r.err;
  EXPECT_NE(r.err.find("could not write job records to its journal"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("File too large"), std::string::npos) << "the system's reason is given: " << r.err;
  EXPECT_TRUE(ranksEnded) << "the ranks kept training after their journal failed";
  const std::string log = agent.err();
  EXPECT_NE(log.find("job " + jobId + ": the agent cannot write the job's journal"), std::string::npos)
      << log;

  auto show = runProcess({binPath("ringmaster"), "show", jobId, "--store", dir.file("runs.sqlite")});
  EXPECT_EQ(show.exitCode, 0) << show.err;
  EXPECT_NE(show.out.find("status failed"), std::string::npos) << show.out;
  EXPECT_NE(show.out.find("throughput"), std::string::npos)
      << "the steps received before are kept: " << show.out;
}

// A rank that stops calling collectives: the terminal hears of it while the job hangs, and with
// --stall-timeout-s the console stops the job and stores it as failed, the stall being the reason.
TEST(Faults, AHangIsPrintedWhenFoundAndTheStallTimeoutStopsTheJobAsFailed) {
  TempDir dir("stall-timeout");
  const std::string jobId = "stall-timeout-" + std::to_string(::getpid());
  auto r = runProcess({binPath("ringmaster"),
                       "run",
                       "-np",
                       "2",
                       "--engine",
                       "horovod",
                       "--model",
                       "mlp",
                       "--data",
                       "synthetic",
                       "--steps",
                       "1000000",
                       "--inject-hang",
                       "1:20",
                       "--stall-check-s",
                       "2",
                       "--stall-timeout-s",
                       "8",
                       "--store",
                       dir.file("runs.sqlite"),
                       "--state-dir",
                       dir.file("state"),
                       "--job-id",
                       jobId,
                       "--name",
                       "hung"},
                      {}, std::chrono::minutes(3));
  const bool ranksEnded = eventually([&] { return processesWith({"RINGMASTER_JOB_ID=" + jobId}).empty(); },
                                     std::chrono::seconds(30));
  for (pid_t rank : processesWith({"RINGMASTER_JOB_ID=" + jobId})) ::kill(rank, SIGKILL);

  ASSERT_FALSE(r.timedOut) << "the hung job was not stopped\n" << r.out << r.err;
  EXPECT_EQ(r.exitCode, 1) << r.err;
  // Printed on the live display (stdout) while the job ran; the run's final findings follow on stderr.
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(found \(critical\): rank 1\b)"))) << r.out;
  EXPECT_NE(r.err.find("failed: stopped after a stall of 8 s (--stall-timeout-s 8): rank 1"),
            std::string::npos)
      << r.err;
  EXPECT_TRUE(ranksEnded) << "ranks were left behind";
  auto show = runProcess({binPath("ringmaster"), "show", "hung", "--store", dir.file("runs.sqlite")});
  EXPECT_NE(show.out.find("status failed"), std::string::npos) << show.out;
  EXPECT_NE(show.out.find("stall: rank 1"), std::string::npos) << show.out;
}

// The run history on a disk that fills while the job trains (a 512 KiB tmpfs of the test's own, mounted in a
// private mount namespace): the job trains on, `ringmaster run` says what could not be stored and exits
// non-zero, and the run keeps its end and what it lost instead of staying "running" for ever.
TEST(Faults, ARunWhoseStoreDiskFillsIsStoredWithItsEndAndWhatItLost) {
  if (::geteuid() != 0) GTEST_SKIP() << "mounting a filesystem of the test's own needs root";
  TempDir dir("full-store");
  const std::string disk = dir.file("disk");
  std::filesystem::create_directories(disk);
  const std::string script = R"(
mount -t tmpfs -o size=512k ringmaster-test "$1" || exit 99
"$2" run -np 2 --model mlp --data synthetic --steps 200 --store "$1/runs.sqlite" --state-dir "$3/state" \
  --name full >"$3/run.out" 2>"$3/run.err"
echo $? >"$3/run.rc"
df -k "$1" >"$3/df.txt"
"$2" show full --store "$1/runs.sqlite" >"$3/show.txt" 2>&1
)";
  auto r = runProcess({"/usr/bin/unshare", "--mount", "--propagation", "private", "/bin/sh", "-c", script,
                       "sh", disk, binPath("ringmaster"), dir.path()},
                      {}, std::chrono::minutes(5));
  ASSERT_FALSE(r.timedOut);
  if (r.exitCode == 99) GTEST_SKIP() << "no tmpfs could be mounted here: " << r.err;
  const std::string err = readFile(dir.file("run.err"));
  ASSERT_NE(err.find("could not be stored"), std::string::npos)
      << "the disk did not fill during the run: " << err << readFile(dir.file("df.txt"));
  EXPECT_NE(readFile(dir.file("run.rc")), "0\n") << "the run exited 0 with records lost: " << err;
  EXPECT_NE(err.find("not in the run history"), std::string::npos) << err;
  EXPECT_EQ(err.find("Traceback"), std::string::npos) << err;
  const std::string show = readFile(dir.file("show.txt"));
  EXPECT_NE(show.find("status finished"), std::string::npos) << "the run's end is kept: " << show;
  EXPECT_NE(show.find("records of this run could not be stored in the run history"), std::string::npos)
      << "what it lost is kept: " << show;
}
