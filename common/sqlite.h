#ifndef BBO_COMMON_SQLITE_H_
#define BBO_COMMON_SQLITE_H_

// A thin RAII layer over the SQLite C API: a connection, prepared statements and transactions.
// Every failure becomes an absl::Status carrying SQLite's message. Not thread-safe: the owner
// serialises access (SqliteStore holds a mutex).

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

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
  friend class Transaction;
  // Transaction's statements, prepared once (parsing them costs more than running them).
  enum TransactionStep { kBegin, kCommit, kRollback, kTransactionSteps };
  explicit Database(sqlite3* db) : db_(db) {}
  absl::Status Run(TransactionStep step);
  sqlite3* db_;
  std::unique_ptr<Statement> transaction_steps_[kTransactionSteps];
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

// Checkpoints a WAL database on a thread of its own, off the writers' path. By default SQLite
// checkpoints inside the COMMIT that takes the WAL past 1,000 pages: that writer copies the
// pages into the database file and syncs both files (milliseconds) while every other writer
// waits for it. With a WalCheckpointer, the connection's commits only append to the WAL (what
// makes them durable is unchanged: with synchronous=NORMAL a commit is a WAL append either way,
// and each checkpoint syncs the WAL before and the database file after copying, as SQLite's own
// does); a PASSIVE checkpoint, which never blocks writers, runs on a second connection once the
// WAL has `pages` pages, at most every `min_interval_ms`. SQLite starts the WAL over only once a
// checkpoint has copied all of it, which a checkpoint running beside the writers may never
// manage when they never pause: at `backstop_pages` the committing connection checkpoints
// itself, as SQLite does by default (by then little is left to copy), so the WAL stays bounded.
//
// Thread-safe: the commit hook runs on the thread that commits on `db`; everything else on the
// checkpointer's own thread. Checkpoint errors (a full disk, I/O) are retried at the next
// trigger: a checkpoint only moves committed data between the two files.
class WalCheckpointer {
 public:
  struct Options {
    int pages = 1000;  // WAL pages that start a checkpoint (SQLite's wal_autocheckpoint default)
    int min_interval_ms = 100;  // least time between two checkpoints, milliseconds
    int backstop_pages = 8000;  // WAL pages at which the committing connection checkpoints
  };
  // Takes over the checkpoints of `db`, a connection to the WAL database file `path` (`db` must
  // outlive the checkpointer). Returns null when `db` is not in WAL mode (e.g. ":memory:"):
  // nothing to do. Unavailable when the second connection cannot be opened.
  static absl::StatusOr<std::unique_ptr<WalCheckpointer>> Start(Database* db,
                                                                const std::string& path,
                                                                Options options);
  static absl::StatusOr<std::unique_ptr<WalCheckpointer>> Start(Database* db,
                                                                const std::string& path) {
    return Start(db, path, Options());
  }
  // Stops the thread and gives `db` back its automatic checkpoints.
  ~WalCheckpointer();
  WalCheckpointer(const WalCheckpointer&) = delete;
  WalCheckpointer& operator=(const WalCheckpointer&) = delete;

  // Checkpoints that ran (for tests).
  int checkpoints();

 private:
  WalCheckpointer(Database* db, std::unique_ptr<Database> own, Options options);
  static int OnCommit(void* self, sqlite3* db, const char* name, int wal_pages);
  void Run();

  Database* const db_;
  const std::unique_ptr<Database> own_;  // used by the thread only
  const Options options_;
  std::mutex checkpoint_mu_;  // held while a checkpoint runs (the thread's or the backstop's)
  std::mutex mu_;
  std::condition_variable cv_;
  int wal_pages_ = 0;     // guarded by mu_: the WAL's size after the last commit
  bool idle_ = false;     // guarded by mu_: the thread waits for the WAL to reach `pages`
  bool stop_ = false;     // guarded by mu_
  int checkpoints_ = 0;   // guarded by mu_
  std::thread thread_;
};

}  // namespace bbo::sqlite

#endif  // BBO_COMMON_SQLITE_H_
