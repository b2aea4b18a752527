// SPDX-License-Identifier: GPL-3.0-or-later
#include "history/statement.h"

#include "history/run_store.h"

namespace ringmaster {

Statement::Statement(sqlite3* db, std::string_view sql, const std::string& path) : db_(db) {
  if (sqlite3_prepare_v3(db, sql.data(), int(sql.size()), SQLITE_PREPARE_PERSISTENT, &stmt_, nullptr) !=
      SQLITE_OK) {
    throw StoreError("run store " + path + ": " + sqlite3_errmsg(db));
  }
}

Statement::~Statement() {
  sqlite3_finalize(stmt_);
}

bool Statement::step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  std::string message = sqlite3_errmsg(db_);
  sqlite3_reset(stmt_);
  throw StoreError(std::string("run store ") + sqlite3_db_filename(db_, "main") + ": " + message);
}

void Statement::run() {
  step();
  reset();
}

void Statement::reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

}  // namespace ringmaster
