#include "common/sqlite.h"

#include <sqlite3.h>

#include <chrono>

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

Database::~Database() {
  for (auto& st : transaction_steps_) st.reset();
  sqlite3_close_v2(db_);
}

absl::Status Database::Run(TransactionStep step) {
  static constexpr const char* kSql[kTransactionSteps] = {"BEGIN IMMEDIATE", "COMMIT",
                                                          "ROLLBACK"};
  std::unique_ptr<Statement>& st = transaction_steps_[step];
  if (st == nullptr) {
    absl::StatusOr<std::unique_ptr<Statement>> prepared = Prepare(kSql[step]);
    if (!prepared.ok()) return prepared.status();
    st = *std::move(prepared);
  }
  return st->Run();
}

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
  if (open_) db_->Run(Database::kRollback).IgnoreError();
}
absl::Status Transaction::Begin() {
  absl::Status s = db_->Run(Database::kBegin);
  open_ = s.ok();
  return s;
}
absl::Status Transaction::Commit() {
  absl::Status s = db_->Run(Database::kCommit);
  if (s.ok()) open_ = false;
  return s;
}

absl::StatusOr<std::unique_ptr<WalCheckpointer>> WalCheckpointer::Start(Database* db,
                                                                       const std::string& path,
                                                                       Options options) {
  absl::StatusOr<std::unique_ptr<Statement>> mode = db->Prepare("PRAGMA journal_mode");
  if (!mode.ok()) return mode.status();
  absl::StatusOr<bool> row = (*mode)->Step();
  if (!row.ok()) return row.status();
  if (!*row || (*mode)->Text(0) != "wal") return nullptr;
  mode->reset();
  absl::StatusOr<std::unique_ptr<Database>> own = Database::Open(path);
  if (!own.ok()) return own.status();
  return std::unique_ptr<WalCheckpointer>(new WalCheckpointer(db, *std::move(own), options));
}

WalCheckpointer::WalCheckpointer(Database* db, std::unique_ptr<Database> own, Options options)
    : db_(db), own_(std::move(own)), options_(options) {
  thread_ = std::thread([this] { Run(); });
  // Replaces the automatic checkpoints (sqlite3_wal_autocheckpoint is itself a WAL hook).
  sqlite3_wal_hook(db_->raw(), &WalCheckpointer::OnCommit, this);
}

WalCheckpointer::~WalCheckpointer() {
  sqlite3_wal_autocheckpoint(db_->raw(), options_.pages);
  {
    std::lock_guard<std::mutex> l(mu_);
    stop_ = true;
  }
  cv_.notify_one();
  thread_.join();
}

int WalCheckpointer::checkpoints() {
  std::lock_guard<std::mutex> l(mu_);
  return checkpoints_;
}

int WalCheckpointer::OnCommit(void* self, sqlite3* db, const char* name, int wal_pages) {
  auto* c = static_cast<WalCheckpointer*>(self);
  // Most commits leave the WAL under the trigger: no wake-up for them.
  if (wal_pages < c->options_.pages) return SQLITE_OK;
  if (wal_pages >= c->options_.backstop_pages) {
    // What SQLite's own hook does at every 1,000 pages (its errors are ignored there too), after
    // the thread's checkpoint in progress, if any: two checkpoints cannot run at once, and with
    // no writer beside it (this connection is the one writing) this one copies the whole WAL.
    std::lock_guard<std::mutex> l(c->checkpoint_mu_);
    sqlite3_wal_checkpoint_v2(db, name, SQLITE_CHECKPOINT_PASSIVE, nullptr, nullptr);
    return SQLITE_OK;
  }
  bool wake;
  {
    std::lock_guard<std::mutex> l(c->mu_);
    c->wal_pages_ = wal_pages;
    wake = c->idle_;
  }
  // A checkpointer busy or waiting out its interval looks at wal_pages_ when it is done.
  if (wake) c->cv_.notify_one();
  return SQLITE_OK;
}

void WalCheckpointer::Run() {
  const auto min_interval = std::chrono::milliseconds(options_.min_interval_ms);
  std::unique_lock<std::mutex> l(mu_);
  while (true) {
    idle_ = true;
    cv_.wait(l, [this] { return stop_ || wal_pages_ >= options_.pages; });
    idle_ = false;
    if (stop_) return;
    wal_pages_ = 0;
    l.unlock();
    {
      std::lock_guard<std::mutex> c(checkpoint_mu_);
      sqlite3_wal_checkpoint_v2(own_->raw(), nullptr, SQLITE_CHECKPOINT_PASSIVE, nullptr,
                                nullptr);
    }
    l.lock();
    checkpoints_++;
    // At most one checkpoint per interval: each syncs both files.
    cv_.wait_for(l, min_interval, [this] { return stop_; });
  }
}

}  // namespace bbo::sqlite
