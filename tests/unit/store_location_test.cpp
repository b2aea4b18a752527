// SPDX-License-Identifier: GPL-3.0-or-later
#include "console/session/store_location.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <QDir>
#include <QFileInfo>
#include <QTemporaryDir>

#include "history/run_store.h"

namespace {

unsigned modeOf(const QString& path) {
  struct stat st {};
  return ::stat(path.toLocal8Bit().constData(), &st) == 0 ? st.st_mode & 07777 : 0;
}

}  // namespace

// A reader finds the path without making anything; a writer has the missing folders made, and the store
// file, for this user alone.
TEST(StoreLocation, FollowsXdgDataHomeAndAWriterMakesItPrivately) {
  QTemporaryDir home;
  ASSERT_TRUE(home.isValid());
  qputenv("XDG_DATA_HOME", QDir(home.path()).filePath("data").toUtf8());
  using ringmaster::console::StoreFolder;
  const QString path = ringmaster::console::defaultStorePath(StoreFolder::Leave);
  EXPECT_EQ(path, QDir(home.path()).filePath("data/ringmaster/runs.sqlite"));
  EXPECT_FALSE(QFileInfo::exists(QDir(home.path()).filePath("data"))) << "a reader's path made a folder";

  EXPECT_EQ(ringmaster::console::defaultStorePath(StoreFolder::Make), path);

  { ringmaster::RunStore store(path.toStdString()); }
  EXPECT_EQ(modeOf(path), 0600u);
  EXPECT_EQ(modeOf(QFileInfo(path).path()), 0700u) << "the ringmaster folder";
  EXPECT_EQ(modeOf(QDir(home.path()).filePath("data")), 0700u) << "the data folder, missing before";
}
