// SPDX-License-Identifier: GPL-3.0-or-later
// What the ranks and a user's program link: the core only, never the run history's SQLite nor Qt, so that an
// instrumented program carries none of the console's libraries.
#include <gtest/gtest.h>

#include <string>

#include "tests/support/process.h"

namespace ringmaster::test {
namespace {

// The shared libraries `path` itself names (its NEEDED entries; what those load in turn, LibTorch's own
// dependencies for the worker, is theirs).
std::string loadedLibraries(const std::string& path) {
  const ProcessResult readelf = runProcess({"/usr/bin/readelf", "--dynamic", path});
  EXPECT_EQ(readelf.exitCode, 0) << path << ": " << readelf.err;
  return readelf.out;
}

void expectTheCoreOnly(const std::string& path) {
  const std::string libraries = loadedLibraries(path);
  ASSERT_NE(libraries.find("libc.so"), std::string::npos) << path << " lists no libraries:\n" << libraries;
  EXPECT_EQ(libraries.find("libsqlite3"), std::string::npos) << path << " loads SQLite:\n" << libraries;
  EXPECT_EQ(libraries.find("libQt6"), std::string::npos) << path << " loads Qt:\n" << libraries;
}

TEST(LinkBoundaries, TheProbeLibraryLoadsNeitherTheStoreNorQt) {
  expectTheCoreOnly(std::string(RM_BUILD_DIR) + "/lib/libringmaster-probe.so");
}

TEST(LinkBoundaries, TheWorkerAndTheAgentNameNeitherTheStoreNorQt) {
  expectTheCoreOnly(binPath("ringmaster-worker"));
  expectTheCoreOnly(binPath("ringmaster-agent"));
}

TEST(LinkBoundaries, TheConsoleDoesNameTheStore) {
  // The checks above are only worth something if SQLite shows where it is linked.
  EXPECT_NE(loadedLibraries(binPath("ringmaster")).find("libsqlite3"), std::string::npos);
}

}  // namespace
}  // namespace ringmaster::test
