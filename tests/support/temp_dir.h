// SPDX-License-Identifier: GPL-3.0-or-later
// A fresh folder of its own for a test or a benchmark, under the system's temporary directory, removed with
// everything in it when the TempDir goes out of scope.
#pragma once

#include <string>

namespace ringmaster::test {

class TempDir {
 public:
  // Creates <tmp>/rm-<tag>-XXXXXX; throws std::runtime_error naming the folder when it cannot.
  explicit TempDir(const std::string& tag = "test");
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  // `name` inside the folder (which may be a relative path such as "jobs/run1").
  std::string file(const std::string& name) const;

 private:
  std::string path_;
};

}  // namespace ringmaster::test
