// SPDX-License-Identifier: GPL-3.0-or-later
#include "console/store_location.h"

#include <gtest/gtest.h>

#include <QDir>
#include <QFileInfo>
#include <QTemporaryDir>

TEST(StoreLocation, FollowsXdgDataHome) {
  QTemporaryDir home;
  ASSERT_TRUE(home.isValid());
  qputenv("XDG_DATA_HOME", home.path().toUtf8());
  QString path = ringmaster::console::defaultStorePath();
  EXPECT_EQ(path, QDir(home.path()).filePath("ringmaster/runs.sqlite"));
  EXPECT_TRUE(QFileInfo(QFileInfo(path).path()).isDir());
}
