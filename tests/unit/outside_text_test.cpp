// SPDX-License-Identifier: GPL-3.0-or-later
// Files and text from outside: small files are read only when they are small regular files, and control
// characters are shown as text.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>

#include "common/error.h"
#include "common/printable.h"
#include "common/small_file.h"
#include "tests/support/files.h"
#include "tests/support/temp_dir.h"

namespace ringmaster {
namespace {

// The InputError `read` throws; fails the test when it throws nothing.
template <typename Read>
std::string refusal(Read read) {
  try {
    read();
  } catch (const InputError& e) {
    return e.what();
  }
  ADD_FAILURE() << "accepted";
  return {};
}

TEST(SmallFile, ReadsASmallRegularFileWhole) {
  test::TempDir dir("small-file");
  test::writeFile(dir.file("token"), "secret\n");
  EXPECT_EQ(readSmallFile(dir.file("token"), "--token-file"), "secret\n");
}

TEST(SmallFile, RefusesWhatIsNotASmallRegularFileNamingItAndTheFlag) {
  test::TempDir dir("small-file");
  const std::string fifo = dir.file("fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  test::writeFile(dir.file("big"), std::string(2000, 'x'));
  struct Case {
    std::string path;
    std::string says;
  };
  for (const Case& c : {Case{"/dev/zero", "not a regular file"}, Case{fifo, "not a regular file"},
                        Case{dir.path(), "not a regular file"}, Case{dir.file("big"), "2000 bytes"},
                        Case{dir.file("missing"), "cannot read"}}) {
    auto started = std::chrono::steady_clock::now();
    std::string message = refusal([&] { readSmallFile(c.path, "--token-file", 1000); });
    EXPECT_NE(message.find("--token-file " + c.path), std::string::npos) << message;
    EXPECT_NE(message.find(c.says), std::string::npos) << message;
    // A FIFO with no writer would block an ordinary open for ever.
    EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(10)) << c.path;
  }
}

TEST(Printable, ShowsControlCharactersInsteadOfObeyingThem) {
  EXPECT_EQ(printable("\x1b[2Jcleared\a"), "^[[2Jcleared^G");
  EXPECT_EQ(printable("a\tb\r\n"), "a\tb^M^J");
  EXPECT_EQ(printable("line 1\nline 2", true), "line 1\nline 2");
  EXPECT_EQ(printable("del\x7f"), "del^?");
  EXPECT_EQ(printable("csi \xc2\x9b"
                      "31m"),
            "csi \\u009b31m");                           // the one-byte CSI, in UTF-8
  EXPECT_EQ(printable("naïve 训练 ✓"), "naïve 训练 ✓");  // text is left alone
}

}  // namespace
}  // namespace ringmaster
