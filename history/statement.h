// SPDX-License-Identifier: GPL-3.0-or-later
// A prepared SQLite statement of the run store, private to rm_history: bound, stepped and read through
// typed calls, finalized when it goes, and failing with a StoreError that names the store file.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace ringmaster {

// One prepared statement; reset after each use so it can be bound again.
class Statement {
 public:
  Statement(sqlite3* db, std::string_view sql, const std::string& path);
  ~Statement();
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  Statement& bind(int index, int64_t value) {
    sqlite3_bind_int64(stmt_, index, value);
    return *this;
  }
  Statement& bind(int index, int value) { return bind(index, int64_t(value)); }
  Statement& bind(int index, uint64_t value) { return bind(index, int64_t(value)); }
  Statement& bind(int index, uint32_t value) { return bind(index, int64_t(value)); }
  Statement& bind(int index, double value) {
    sqlite3_bind_double(stmt_, index, value);
    return *this;
  }
  Statement& bind(int index, std::string_view text) {
    sqlite3_bind_text(stmt_, index, text.data(), int(text.size()), SQLITE_TRANSIENT);
    return *this;
  }
  Statement& bindNull(int index) {
    sqlite3_bind_null(stmt_, index);
    return *this;
  }
  Statement& bindBlob(int index, const std::string& bytes) {
    sqlite3_bind_blob(stmt_, index, bytes.data(), int(bytes.size()), SQLITE_TRANSIENT);
    return *this;
  }

  // Steps once; true while a row is available. Throws on errors.
  bool step();
  // Runs a statement that returns no rows, then readies it for the next use.
  void run();
  void reset();

  int64_t int64(int column) const { return sqlite3_column_int64(stmt_, column); }
  int integer(int column) const { return sqlite3_column_int(stmt_, column); }
  double real(int column) const { return sqlite3_column_double(stmt_, column); }
  bool isNull(int column) const { return sqlite3_column_type(stmt_, column) == SQLITE_NULL; }
  std::string_view text(int column) const {
    const unsigned char* p = sqlite3_column_text(stmt_, column);
    return p ? std::string_view(reinterpret_cast<const char*>(p), size_t(sqlite3_column_bytes(stmt_, column)))
             : std::string_view();
  }
  // Valid until the statement steps or resets.
  std::string_view blobView(int column) const {
    const void* p = sqlite3_column_blob(stmt_, column);
    return p ? std::string_view(static_cast<const char*>(p), size_t(sqlite3_column_bytes(stmt_, column)))
             : std::string_view();
  }
  std::string blob(int column) const {
    const void* p = sqlite3_column_blob(stmt_, column);
    return p ? std::string(static_cast<const char*>(p), size_t(sqlite3_column_bytes(stmt_, column)))
             : std::string();
  }

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
};

}  // namespace ringmaster
