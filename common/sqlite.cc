#include "common/sqlite.h"

#include <sqlite3.h>

#include "absl/strings/str_cat.h"

namespace bbo::sqlite {

absl::Status SqliteError(sqlite3* db, int rc, absl::string_view what) {
  std::string msg = absl::StrCat("sqlite ", what, ": ", db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
  switch (rc & 0xff) {
    case SQLITE_FULL:
      return absl::ResourceExhaustedError(msg);
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return absl::UnavailableError(msg);
    case SQLITE_CONSTRAINT:
      return absl::AlreadyExistsError(msg);
    case SQLITE_CANTOPEN:
    case SQLITE_IOERR:
      return absl::UnavailableError(msg);
    default:
      return absl::InternalError(msg);
  }
}

Statement::~Statement() { sqlite3_finalize(stmt_); }

Statement& Statement::Bind(int i, int64_t v) {
  int rc = sqlite3_bind_int64(stmt_, i, v);
  if (rc != SQLITE_OK && bind_status_.ok()) bind_status_ = SqliteError(db_, rc, "bind");
  return *this;
}
Statement& Statement::Bind(int i, double v) {
  int rc = sqlite3_bind_double(stmt_, i, v);
  if (rc != SQLITE_OK && bind_status_.ok()) bind_status_ = SqliteError(db_, rc, "bind");
  return *this;
}
Statement& Statement::Bind(int i, std::string_view v) {
  int rc = sqlite3_bind_text(stmt_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
  if (rc != SQLITE_OK && bind_status_.ok()) bind_status_ = SqliteError(db_, rc, "bind");
  return *this;
}
Statement& Statement::BindBlob(int i, std::string_view v) {
  int rc = sqlite3_bind_blob64(stmt_, i, v.data(), v.size(), SQLITE_TRANSIENT);
  if (rc != SQLITE_OK && bind_status_.ok()) bind_status_ = SqliteError(db_, rc, "bind");
  return *this;
}
Statement& Statement::BindNull(int i) {
  int rc = sqlite3_bind_null(stmt_, i);
  if (rc != SQLITE_OK && bind_status_.ok()) bind_status_ = SqliteError(db_, rc, "bind");
  return *this;
}

absl::StatusOr<bool> Statement::Step() {
  if (!bind_status_.ok()) return bind_status_;
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  absl::Status s = SqliteError(db_, rc, "step");
  sqlite3_reset(stmt_);
  return s;
}

absl::Status Statement::Run() {
  absl::StatusOr<bool> r = Step();
  while (r.ok() && *r) r = Step();
  Reset();
  return r.status();
}

void Statement::Reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
  bind_status_ = absl::OkStatus();
}

int64_t Statement::Int(int col) const { return sqlite3_column_int64(stmt_, col); }
double Statement::Double(int col) const { return sqlite3_column_double(stmt_, col); }
std::string Statement::Text(int col) const {
  const unsigned char* p = sqlite3_column_text(stmt_, col);
  if (p == nullptr) return "";
  return std::string(reinterpret_cast<const char*>(p), sqlite3_column_bytes(stmt_, col));
}
std::string Statement::Blob(int col) const {
  const void* p = sqlite3_column_blob(stmt_, col);
  if (p == nullptr) return "";
  return std::string(static_cast<const char*>(p), sqlite3_column_bytes(stmt_, col));
}
bool Statement::IsNull(int col) const { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }

absl::StatusOr<std::unique_ptr<Database>> Database::Open(const std::string& path) {
  sqlite3* db = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &db,
                           SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                           nullptr);
  if (rc != SQLITE_OK) {
    absl::Status s = absl::UnavailableError(
        absl::StrCat("cannot open SQLite file ", path, ": ", db ? sqlite3_errmsg(db) : ""));
    sqlite3_close(db);
    return s;
  }
  sqlite3_busy_timeout(db, 5000);
  auto out = std::unique_ptr<Database>(new Database(db));
  // WAL keeps readers (leaderboard) off the writers' path; NORMAL sync is durable across
  // application crashes, which is the failure we design for (power loss may drop the last
  // transactions but never corrupts the file).
  if (absl::Status s = out->Exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"
                                 " PRAGMA foreign_keys=ON;");
      !s.ok()) {
    return s;
  }
  return out;
}

Database::~Database() { sqlite3_close_v2(db_); }

absl::Status Database::Exec(std::string_view sql) {
  char* err = nullptr;
  std::string s(sql);
  int rc = sqlite3_exec(db_, s.c_str(), nullptr, nullptr, &err);
  if (rc != SQLITE_OK) {
    absl::Status st = SqliteError(db_, rc, err ? err : "exec");
    sqlite3_free(err);
    return st;
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<Statement>> Database::Prepare(std::string_view sql) {
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &stmt, nullptr);
  if (rc != SQLITE_OK) return SqliteError(db_, rc, absl::StrCat("prepare '", std::string(sql), "'"));
  return std::make_unique<Statement>(db_, stmt);
}

int64_t Database::LastInsertId() const { return sqlite3_last_insert_rowid(db_); }
int Database::Changes() const { return sqlite3_changes(db_); }
bool Database::InTransaction() const { return sqlite3_get_autocommit(db_) == 0; }

Transaction::~Transaction() {
  // Only reached on a path that already returns an error (the transaction was not committed).
  // If the rollback itself fails, SQLite has usually rolled back on its own (full disk, I/O
  // error); otherwise the connection is still inside the transaction and the next Begin() fails
  // with that error, so nothing is silently lost either way.
  if (open_) db_->Exec("ROLLBACK").IgnoreError();
}
absl::Status Transaction::Begin() {
  absl::Status s = db_->Exec("BEGIN IMMEDIATE");
  open_ = s.ok();
  return s;
}
absl::Status Transaction::Commit() {
  absl::Status s = db_->Exec("COMMIT");
  if (s.ok()) open_ = false;
  return s;
}

}  // namespace bbo::sqlite
