#ifndef BBO_COMMON_SQLITE_H_
#define BBO_COMMON_SQLITE_H_

// A thin RAII layer over the SQLite C API: a connection, prepared statements and transactions.
// Every failure becomes an absl::Status carrying SQLite's message. Not thread-safe: the owner
// serialises access (SqliteStore holds a mutex).

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

struct sqlite3;
struct sqlite3_stmt;

namespace bbo::sqlite {

class Statement {
 public:
  Statement(sqlite3* db, sqlite3_stmt* stmt) : db_(db), stmt_(stmt) {}
  ~Statement();
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  // Binds are 1-based, like SQLite's.
  Statement& Bind(int i, int64_t v);
  Statement& Bind(int i, int v) { return Bind(i, static_cast<int64_t>(v)); }
  Statement& Bind(int i, double v);
  Statement& Bind(int i, std::string_view v);
  Statement& Bind(int i, const char* v) { return Bind(i, std::string_view(v)); }
  Statement& BindBlob(int i, std::string_view v);
  Statement& BindNull(int i);

  // Steps once. Returns true when a row is available, false when done.
  absl::StatusOr<bool> Step();
  // Steps to completion (for statements that return no rows) and resets.
  absl::Status Run();
  // Resets bindings and cursor so the statement can be reused.
  void Reset();

  int64_t Int(int col) const;
  double Double(int col) const;
  std::string Text(int col) const;
  std::string Blob(int col) const;
  bool IsNull(int col) const;

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_;
  absl::Status bind_status_;
};

class Database {
 public:
  // Opens (creating if needed) the database at `path` in WAL mode with foreign keys on and a
  // busy timeout. Unavailable when the file cannot be opened.
  static absl::StatusOr<std::unique_ptr<Database>> Open(const std::string& path);
  ~Database();

  absl::Status Exec(std::string_view sql);
  // Prepares a statement; the database must outlive it.
  absl::StatusOr<std::unique_ptr<Statement>> Prepare(std::string_view sql);
  int64_t LastInsertId() const;
  int Changes() const;
  // Whether a transaction is open (SQLite ends one on its own after some errors, e.g. a full
  // disk: a caller that writes several parts in one transaction checks this after an error).
  bool InTransaction() const;
  sqlite3* raw() { return db_; }

 private:
  explicit Database(sqlite3* db) : db_(db) {}
  sqlite3* db_;
};

// Maps a SQLite result code to a status: SQLITE_FULL -> ResourceExhausted, BUSY/LOCKED ->
// Unavailable, CONSTRAINT -> AlreadyExists, others -> Internal.
absl::Status SqliteError(sqlite3* db, int rc, absl::string_view what);

// BEGIN IMMEDIATE ... COMMIT; rolls back in the destructor unless committed.
class Transaction {
 public:
  explicit Transaction(Database* db) : db_(db) {}
  ~Transaction();
  absl::Status Begin();
  absl::Status Commit();

 private:
  Database* db_;
  bool open_ = false;
};

}  // namespace bbo::sqlite

#endif  // BBO_COMMON_SQLITE_H_
