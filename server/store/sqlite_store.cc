// SqliteStore: opening the file and the statement cache. The Store methods live in
// sqlite_submissions.cc, sqlite_jobs.cc, sqlite_workers.cc, sqlite_studies.cc and
// sqlite_scoring.cc.

#include "server/store/sqlite_store.h"

#include "common/status_macros.h"
#include "server/store/internal/sqlite_rows.h"

namespace bbo {

absl::StatusOr<std::unique_ptr<SqliteStore>> SqliteStore::Open(const std::string& path) {
  ASSIGN_OR_RETURN(auto db, sqlite::Database::Open(path));
  RETURN_IF_ERROR(Migrate(db.get()));
  ASSIGN_OR_RETURN(auto checkpointer, sqlite::WalCheckpointer::Start(db.get(), path));
  auto store = std::unique_ptr<SqliteStore>(new SqliteStore(std::move(db)));
  store->checkpointer_ = std::move(checkpointer);
  return store;
}

absl::StatusOr<sqlite::Statement*> SqliteStore::Stmt(const char* sql) {
  auto it = stmts_.find(sql);
  if (it != stmts_.end()) {
    it->second->Reset();
    return it->second.get();
  }
  ASSIGN_OR_RETURN(auto stmt, db_->Prepare(sql));
  sqlite::Statement* raw = stmt.get();
  stmts_[sql] = std::move(stmt);
  return raw;
}

absl::StatusOr<int> SqliteStore::SchemaVersion() {
  absl::MutexLock l(&mu_);
  ASSIGN_OR_RETURN(auto* q, Stmt("SELECT MAX(version) FROM schema_version"));
  ASSIGN_OR_RETURN(int64_t v, store_internal::ScalarInt(*q));
  return static_cast<int>(v);
}

absl::Status SqliteStore::ExecForTesting(const std::string& sql) {
  absl::MutexLock l(&mu_);
  return db_->Exec(sql);
}

}  // namespace bbo
