// SPDX-License-Identifier: GPL-3.0-or-later
// Every binary starts, answers --help and --version, and rejects bad flags with exit code 2; `ringmaster
// python-path` names the package beside it.
#include <gtest/gtest.h>

#include <filesystem>

#include "tests/support/process.h"
#include "tests/support/temp_dir.h"

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

// `python-path` names the folders the agent puts in front of an instrumented program's PYTHONPATH: with them,
// Python loads the package and its bootstrap, which instruments PyTorch once it is imported.
TEST(Binaries, PythonPathLoadsThePackageAndItsBootstrap) {
  auto r = runProcess({binPath("ringmaster"), "python-path"}, {}, std::chrono::seconds(30));
  ASSERT_EQ(r.exitCode, 0) << r.err;
  ASSERT_FALSE(r.out.empty());
  const std::string path = r.out.substr(0, r.out.find('\n'));
  const auto colon = path.find(':');
  ASSERT_NE(colon, std::string::npos) << path;
  const std::string bootstrap = path.substr(0, colon), root = path.substr(colon + 1);
  EXPECT_EQ(bootstrap, root + "/ringmaster/_bootstrap");
  EXPECT_TRUE(std::filesystem::is_regular_file(bootstrap + "/sitecustomize.py")) << bootstrap;
  auto python = runProcess({"/usr/bin/python3", "-c",
                            "import sys, ringmaster; print(ringmaster.__file__); "
                            "print(' '.join(type(f).__name__ for f in sys.meta_path))"},
                           {{"PYTHONPATH", path}, {"RINGMASTER_INSTRUMENT", "1"}}, std::chrono::seconds(60));
  ASSERT_EQ(python.exitCode, 0) << python.err;
  EXPECT_NE(python.out.find(root + "/ringmaster/__init__.py"), std::string::npos) << python.out;
  EXPECT_NE(python.out.find("_AfterTorchImport"), std::string::npos)
      << "the bootstrap did not run: " << python.out;
}

// A ringmaster without the package beside it says where it looked, and fails.
TEST(Binaries, PythonPathWithoutThePackageSaysWhereItLooked) {
  ringmaster::test::TempDir dir("python-path");
  std::filesystem::create_directories(dir.file("bin"));
  std::filesystem::copy_file(binPath("ringmaster"), dir.file("bin/ringmaster"));
  auto r = runProcess({dir.file("bin/ringmaster"), "python-path"}, {}, std::chrono::seconds(30));
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_NE(r.err.find("the ringmaster Python package is not beside this program (in " + dir.file("python") +
                       " or " + dir.path() + "/"),
            std::string::npos)
      << r.err;
}
