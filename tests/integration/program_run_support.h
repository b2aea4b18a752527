// SPDX-License-Identifier: GPL-3.0-or-later
// A user's program under the real `ringmaster run`, with a run history and journals of the test's own.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "history/run_store.h"
#include "tests/support/process.h"
#include "tests/support/temp_dir.h"

namespace ringmaster::test {

class ProgramRunTest : public ::testing::Test {
 protected:
  explicit ProgramRunTest(const std::string& tag) : dir_(tag), store_(dir_.file("runs.sqlite")) {}

  // `ringmaster run` with this test's history and journals, then `args` (launch flags, "--", the program).
  ProcessResult run(const std::vector<std::string>& args,
                    std::chrono::seconds timeout = std::chrono::seconds(240)) {
    std::vector<std::string> argv = {binPath("ringmaster"), "run",     "--state-dir",
                                     dir_.file("state"),    "--store", store_};
    argv.insert(argv.end(), args.begin(), args.end());
    return runProcess(argv, {}, timeout);
  }

  // The one run in the history.
  RunInfo onlyRun() {
    RunStore store(store_);
    auto runs = store.runs();
    EXPECT_EQ(runs.size(), 1u);
    return runs.empty() ? RunInfo{} : runs.front();
  }

  TempDir dir_;
  std::string store_;
};

}  // namespace ringmaster::test
