// SPDX-License-Identifier: GPL-3.0-or-later
// Every binary starts, answers --help and --version, and rejects bad flags with exit code 2.
#include <gtest/gtest.h>

#include "tests/support/process.h"

using ringmaster::test::binPath;
using ringmaster::test::runProcess;

namespace {

std::vector<std::string> binaries() {
  std::vector<std::string> names = {"ringmaster", "ringmaster-worker", "ringmaster-agent"};
#ifdef RM_HAVE_GUI
  names.push_back("ringmaster-gui");
#endif
  return names;
}

const std::map<std::string, std::string> kOffscreen = {{"QT_QPA_PLATFORM", "offscreen"}};

}  // namespace

TEST(Binaries, AnswerHelp) {
  for (const auto& name : binaries()) {
    auto r = runProcess({binPath(name), "--help"}, kOffscreen);
    EXPECT_EQ(r.exitCode, 0) << name << ": " << r.err;
    EXPECT_NE((r.out + r.err).find("--version"), std::string::npos) << name << " help lacks --version";
  }
}

TEST(Binaries, AnswerVersion) {
  for (const auto& name : binaries()) {
    auto r = runProcess({binPath(name), "--version"}, kOffscreen);
    EXPECT_EQ(r.exitCode, 0) << name << ": " << r.err;
    EXPECT_NE(r.out.find(RINGMASTER_TEST_VERSION), std::string::npos) << name << " printed: " << r.out;
  }
}

TEST(Binaries, TheConsoleAnswersHelpWithoutADisplayAndSaysWhenItNeedsOne) {
  const std::vector<std::string> noDisplay = {"/usr/bin/env",    "-u", "DISPLAY",        "-u",
                                              "WAYLAND_DISPLAY", "-u", "QT_QPA_PLATFORM"};
  auto with = [&](std::vector<std::string> args) {
    std::vector<std::string> argv = noDisplay;
    argv.push_back(binPath("ringmaster-gui"));
    argv.insert(argv.end(), args.begin(), args.end());
    return runProcess(argv);
  };
  for (const char* ask : {"--help", "--version"}) {
    auto r = with({ask});
    EXPECT_EQ(r.exitCode, 0) << ask << ": " << r.err;
    EXPECT_EQ(r.err.find("platform plugin"), std::string::npos) << ask << ": " << r.err;
  }
  auto window = with({});
  EXPECT_EQ(window.exitCode, 2) << window.err;
  EXPECT_NE(window.err.find("no display to open a window on"), std::string::npos) << window.err;
}

TEST(Binaries, WorkerVersionNamesLibTorchAndBackends) {
  auto r = runProcess({binPath("ringmaster-worker"), "--version"});
  EXPECT_NE(r.out.find("LibTorch 1."), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("gloo"), std::string::npos) << r.out;
}

TEST(Binaries, BadFlagsExitWithTwoAndNameTheFlag) {
  struct Case {
    std::vector<std::string> argv;
    std::string mention;
  };
  std::vector<Case> cases = {
      {{binPath("ringmaster-worker"), "--engine", "mpi"}, "--engine"},
      {{binPath("ringmaster-worker"), "--batch-size", "-3"}, "--batch-size"},
      {{binPath("ringmaster-worker"), "--inject-leak", "1"}, "--inject-leak"},
      {{binPath("ringmaster-worker"), "--frobnicate"}, "--frobnicate"},
      {{binPath("ringmaster-agent"), "--listen", "0.0.0.0"}, "--token-file"},
      {{binPath("ringmaster-agent"), "--port", "70000"}, "--port"},
  };
  for (const auto& c : cases) {
    auto r = runProcess(c.argv);
    EXPECT_EQ(r.exitCode, 2) << c.argv[1] << ": " << r.err;
    EXPECT_NE(r.err.find(c.mention), std::string::npos)
        << "stderr does not name " << c.mention << ": " << r.err;
  }
}
