// SPDX-License-Identifier: GPL-3.0-or-later
// Finding a job's processes among this process's children, while children come and go.
#include "agent/child_process.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <thread>

#include "tests/support/wait.h"

using namespace ringmaster::agent;
using ringmaster::test::eventually;
using namespace std::chrono_literals;

namespace {

constexpr const char* kMark = "RINGMASTER_CHILD_PROCESS_TEST=1";

// Starts `program` with `kMark` as its whole environment.
pid_t startMarked(const char* program, const char* argument) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    char* const argv[] = {const_cast<char*>(program), const_cast<char*>(argument), nullptr};
    char* const envp[] = {const_cast<char*>(kMark), nullptr};
    ::execve(program, argv, envp);
    ::_exit(127);
  }
  return pid;
}

// Marked children that exit at once and are reaped at once, for as long as `running` holds: each may vanish
// between the moment its /proc entry is listed and the moment it is read.
void churn(const std::atomic<bool>& running, std::atomic<int>& started) {
  while (running) {
    const pid_t pid = startMarked("/bin/true", nullptr);
    if (pid < 0) continue;
    ::waitpid(pid, nullptr, 0);
    ++started;
  }
}

}  // namespace

// A child that exits while its environment is read is not found, and the search goes on without an error.
TEST(ChildProcesses, ChildrenThatExitWhileTheyAreReadAreLeftOut) {
  const pid_t sleeper = startMarked("/bin/sleep", "60");
  ASSERT_GT(sleeper, 0);
  auto sleeperFound = [&] {
    const auto found = childrenWithEnvironment(kMark);
    return std::find(found.begin(), found.end(), sleeper) != found.end();
  };
  EXPECT_TRUE(eventually(sleeperFound, 10s)) << "the child that stays was never found";

  std::atomic<bool> running{true};
  std::atomic<int> started{0};
  std::thread forker(churn, std::cref(running), std::ref(started));
  int rounds = 0, sleeperSeen = 0;
  for (; (rounds < 400 || started < 1000) && rounds < 100000; ++rounds) {
    try {
      sleeperSeen += sleeperFound();
    } catch (const std::exception& e) {
      ADD_FAILURE() << "search " << rounds << " failed: " << e.what();
      break;
    }
  }
  running = false;
  forker.join();
  ::kill(sleeper, SIGKILL);
  ::waitpid(sleeper, nullptr, 0);
  // The child that stayed was found by every search.
  EXPECT_EQ(sleeperSeen, rounds);
  EXPECT_GE(started.load(), 1000);
}
