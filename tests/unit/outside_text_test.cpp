// SPDX-License-Identifier: GPL-3.0-or-later
// Files and text from outside: small files are read only when they are small regular files, bytes that are
// not UTF-8 become U+FFFD, and control characters are shown as text.
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

// What protobuf refuses and what it takes, by Unicode's table of well-formed sequences.
TEST(Utf8, TellsWellFormedTextFromBytesProtobufRefuses) {
  for (const char* good :
       {"", "plain", "naïve 训练 ✓", "\xf0\x9f\x98\x80", "\xef\xbf\xbd", "\xf4\x8f\xbf\xbf"})
    EXPECT_TRUE(isUtf8(good)) << good;
  for (const char* bad : {"\xff", "bad\x80", "\xc3", "\xc0\xaf", "\xe0\x80\xaf", "\xed\xa0\x80",
                          "\xf4\x90\x80\x80", "\xe8\xae"})
    EXPECT_FALSE(isUtf8(bad)) << printable(bad);
}

TEST(Utf8, ReplacesEachIllFormedPartWithOneReplacementCharacter) {
  const std::string r = "\xef\xbf\xbd";  // U+FFFD
  struct Case {
    std::string in, out;
  };
  for (const Case& c : {
           Case{"\377bad", r + "bad"},
           Case{"naïve 训练", "naïve 训练"},
           Case{"cut \xe8\xae", "cut " + r},        // a character cut short: one replacement
           Case{"\xe8\xae\xad\xe8", "训" + r},      // the end of a 16 KiB piece of Chinese text
           Case{"\xc0\xaf", r + r},                 // an overlong '/': neither byte starts anything
           Case{"\xed\xa0\x80x", r + r + r + "x"},  // a surrogate
           Case{"\xf0\x9f\x98", r},                 // an emoji without its last byte
           Case{"a\x80\x80"
                "b",
                "a" + r + r + "b"},  // stray continuation bytes
           Case{std::string("nul\0kept", 9), std::string("nul\0kept", 9)},
       }) {
    const std::string out = validUtf8(c.in);
    EXPECT_EQ(out, c.out) << printable(c.in);
    EXPECT_TRUE(isUtf8(out)) << printable(c.in);
  }
}

TEST(Utf8, CutsLongTextBetweenCharacters) {
  const std::string chinese = "训练训练";  // 3 bytes a character
  EXPECT_EQ(utf8Cut(chinese, 12), 12u);
  EXPECT_EQ(utf8Cut(chinese, 100), 12u);
  EXPECT_EQ(utf8Cut(chinese, 6), 6u);
  EXPECT_EQ(utf8Cut(chinese, 7), 6u);
  EXPECT_EQ(utf8Cut(chinese, 8), 6u);
  EXPECT_EQ(utf8Cut("ab\xf0\x9f\x98\x80", 5), 2u);  // inside a 4-byte emoji
  EXPECT_EQ(utf8Cut("ascii", 3), 3u);
  EXPECT_EQ(utf8Cut("\x80\x80\x80\x80\x80\x80", 4), 4u);  // ill-formed bytes: anywhere
  EXPECT_EQ(utf8Cut("\xe8\xae"
                    "abc",
                    1),
            1u);  // a character cut short already
}

}  // namespace
}  // namespace ringmaster
