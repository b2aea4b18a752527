// SPDX-License-Identifier: GPL-3.0-or-later
#include "common/allowed_folders.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "common/error.h"
#include "tests/support/files.h"
#include "tests/support/temp_dir.h"

namespace ringmaster {
namespace {

namespace fs = std::filesystem;
using test::TempDir;

std::string refusalOf(const std::function<void()>& open) {
  try {
    open();
  } catch (const InputError& e) {
    return e.what();
  }
  return {};
}

class AllowedFoldersTest : public ::testing::Test {
 protected:
  AllowedFoldersTest()
      : allowed_(fs::canonical(dir_.path()).string() + "/allowed"),
        outside_(fs::canonical(dir_.path()).string() + "/outside") {
    fs::create_directories(allowed_ + "/data");
    fs::create_directories(outside_);
    test::writeFile(allowed_ + "/data/x", "inside");
    test::writeFile(outside_ + "/x", "outside");
  }

  TempDir dir_{"allowed-folders"};
  std::string allowed_, outside_;
};

TEST_F(AllowedFoldersTest, FilesInsideOpenAndLinksThatStayInsideAreFollowed) {
  fs::create_symlink("data/x", allowed_ + "/inner-link");
  const AllowedFolders folders({allowed_});
  EXPECT_TRUE(folders.open(allowed_ + "/data/x", O_RDONLY));
  EXPECT_TRUE(folders.open(allowed_ + "//data/./x", O_RDONLY));
  EXPECT_TRUE(folders.open(allowed_ + "/inner-link", O_RDONLY));
  EXPECT_TRUE(folders.open(allowed_ + "/data/../data/x", O_RDONLY));
  FileDescriptor missing = folders.open(allowed_ + "/data/none", O_RDONLY);
  EXPECT_FALSE(missing);
  EXPECT_EQ(errno, ENOENT);
}

TEST_F(AllowedFoldersTest, LinksAndDotDotThatLeadOutAreRefusedNamingThePathTheFolderAndTheFlag) {
  fs::create_symlink(outside_, allowed_ + "/absolute");
  fs::create_symlink("../../outside", allowed_ + "/data/relative");
  const AllowedFolders folders({allowed_});
  for (const std::string& path :
       {allowed_ + "/absolute/x", allowed_ + "/data/relative/x", allowed_ + "/../outside/x"}) {
    const std::string refusal = refusalOf([&] { folders.open(path, O_RDONLY); });
    EXPECT_NE(refusal.find(path + " leads out of " + allowed_), std::string::npos) << refusal;
    EXPECT_NE(refusal.find("--allow-folder"), std::string::npos) << refusal;
  }
  const std::string refusal = refusalOf([&] { folders.open(outside_ + "/x", O_RDONLY); });
  EXPECT_NE(refusal.find(outside_ + "/x is outside the folders this agent lets jobs use (" + allowed_ + ")"),
            std::string::npos)
      << refusal;
  // A path that reaches the folder through a link is opened where the link leads.
  fs::create_symlink(allowed_, outside_ + "/to-allowed");
  EXPECT_TRUE(folders.open(outside_ + "/to-allowed/data/x", O_RDONLY));
}

TEST_F(AllowedFoldersTest, MissingFoldersAreMadeBeneathAndNeverThroughALink) {
  const AllowedFolders folders({allowed_});
  EXPECT_TRUE(folders.makeFolders(allowed_ + "/new/deeper"));
  EXPECT_TRUE(fs::is_directory(allowed_ + "/new/deeper"));
  EXPECT_TRUE(folders.makeFolders(allowed_));
  fs::create_symlink(outside_, allowed_ + "/swapped");
  const std::string refusal = refusalOf([&] { folders.makeFolders(allowed_ + "/swapped/made"); });
  EXPECT_NE(refusal.find("leads out of " + allowed_), std::string::npos) << refusal;
  EXPECT_FALSE(fs::exists(outside_ + "/made"));
}

TEST_F(AllowedFoldersTest, AnAllowedFolderIsOpenedWithoutLinksOrNotAtAll) {
  fs::create_symlink(allowed_, dir_.path() + "/link-to-allowed");
  EXPECT_NE(refusalOf([&] { AllowedFolders({dir_.path() + "/link-to-allowed"}); }).find("a link"),
            std::string::npos);
  EXPECT_NE(refusalOf([&] { AllowedFolders({dir_.path() + "/none"}); }).find(dir_.path() + "/none"),
            std::string::npos);
  // Confining nothing opens what it is given.
  EXPECT_TRUE(AllowedFolders::anywhere().open(outside_ + "/x", O_RDONLY));
  EXPECT_FALSE(AllowedFolders::anywhere().confining());
}

}  // namespace
}  // namespace ringmaster
