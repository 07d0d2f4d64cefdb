// SqliteStore: the StudyStore methods.

#include <algorithm>
#include <deque>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "common/status_macros.h"
#include "server/store/internal/sqlite_rows.h"
#include "server/store/sqlite_store.h"

namespace bbo {

using store_internal::BatchSourceName;
using store_internal::BindFigures;
using store_internal::FigureColumns;
using store_internal::ForEachRow;
using store_internal::ParseStudyState;
using store_internal::ScalarInt;
using store_internal::ValueOrInf;

absl::StatusOr<int64_t> SqliteStore::CreateStudy(const StudyRecord& s) {
  int64_t id = 0;
  RETURN_IF_ERROR(GroupCommit([&]() ABSL_NO_THREAD_SAFETY_ANALYSIS -> absl::Status {
    ASSIGN_OR_RETURN(id, InsertStudyLocked(s));
    return absl::OkStatus();
  }));
  return id;
}

absl::StatusOr<int64_t> SqliteStore::InsertStudyLocked(const StudyRecord& s) {
  if (s.job_id) {
    ASSIGN_OR_RETURN(auto* f, Stmt("SELECT MIN(id) FROM studies WHERE job_id = ? AND state IN"
                                   " ('completed', 'cut_off', 'failed')"));
    f->Bind(1, *s.job_id);
    ASSIGN_OR_RETURN(int64_t final_study, store_internal::ScalarInt(*f));
    if (final_study > 0) {
      return absl::AlreadyExistsError(
          absl::StrCat("job ", *s.job_id, " already has its final study ", final_study));
    }
  }
  ASSIGN_OR_RETURN(auto* u, Stmt("INSERT INTO studies (job_id, submission_id, problem, trial,"
                                 " state, batch_size, n_batches, suggest_budget_s,"
                                 " study_budget_s, started_at, problem_signature, board) VALUES"
                                 " (?, ?, ?, ?, 'running', ?, ?, ?, ?, ?, ?, ?)"));
  if (s.job_id) {
    u->Bind(1, *s.job_id);
  } else {
    u->BindNull(1);
  }
  u->Bind(2, s.submission_id).Bind(3, s.problem).Bind(4, s.trial).Bind(5, s.budget.batch_size);
  u->Bind(6, s.budget.n_batches).Bind(7, s.budget.suggest_budget_s);
  u->Bind(8, s.budget.study_budget_s).Bind(9, s.started_at);
  if (s.problem_signature.empty()) {
    u->BindNull(10);
  } else {
    u->Bind(10, s.problem_signature);
  }
  u->Bind(11, s.board);
  RETURN_IF_ERROR(u->Run());
  return db_->LastInsertId();
}

absl::StatusOr<StudyRecord> SqliteStore::GetStudy(int64_t study_id) {
  absl::MutexLock l(&mu_);
  ASSIGN_OR_RETURN(auto* q, Stmt("SELECT id, job_id, submission_id, problem, trial, state,"
                                 " batch_size, n_batches, suggest_budget_s, study_budget_s,"
                                 " started_at, problem_signature, board FROM studies"
                                 " WHERE id = ?"));
  q->Bind(1, study_id);
  ASSIGN_OR_RETURN(bool row, q->Step());
  if (!row) return absl::NotFoundError(absl::StrCat("no study with id ", study_id));
  StudyRecord s;
  s.id = q->Int(0);
  if (!q->IsNull(1)) s.job_id = q->Int(1);
  s.submission_id = q->Int(2);
  s.problem = q->Text(3);
  s.trial = static_cast<int>(q->Int(4));
  s.state = ParseStudyState(q->Text(5));
  s.budget.batch_size = static_cast<int>(q->Int(6));
  s.budget.n_batches = static_cast<int>(q->Int(7));
  s.budget.suggest_budget_s = q->Double(8);
  s.budget.study_budget_s = q->Double(9);
  s.started_at = q->Double(10);
  if (!q->IsNull(11)) s.problem_signature = q->Text(11);
  s.board = q->Text(12);
  q->Reset();
  return s;
}

// A caller of GroupCommit in the queue. Its status is written by the leader of its group before
// `done` is set; `done` and the wake-up happen under queue_mu_.
struct SqliteStore::QueuedWrite {
  explicit QueuedWrite(absl::FunctionRef<absl::Status()> w) : write(w) {}
  absl::FunctionRef<absl::Status()> write;
  absl::Status status;
  bool done = false;
  absl::CondVar cv;
};

namespace {
// The most writes one transaction takes: bounds the leader's own wait (a batch of 8 points
// costs ~20 us of SQLite work here) without making groups smaller than the number of callers
// that usually wait (about one per concurrent client).
constexpr size_t kMaxGroup = 256;
// The statements around each write of a group (named: the statement cache keys on the address).
constexpr char kSavepoint[] = "SAVEPOINT w";
constexpr char kRelease[] = "RELEASE w";
constexpr char kRollbackTo[] = "ROLLBACK TO w";
}  // namespace

// Group commit. Callers queue; the first in the queue (the leader) takes every queued write, runs
// them in one transaction and wakes the others with their own status, while later callers queue
// behind it and form the next group. Under load one commit (its WAL frames, its file locks) then
// serves many batches; a lone caller commits alone, exactly as before.
absl::Status SqliteStore::GroupCommit(absl::FunctionRef<absl::Status()> write) {
  QueuedWrite self(write);
  queue_mu_.Lock();
  queue_.push_back(&self);
  while (!self.done && queue_.front() != &self) self.cv.Wait(&queue_mu_);
  if (self.done) {
    queue_mu_.Unlock();
    return self.status;
  }
  const size_t n = std::min(queue_.size(), kMaxGroup);
  std::vector<QueuedWrite*> group(queue_.begin(), queue_.begin() + static_cast<ptrdiff_t>(n));
  queue_mu_.Unlock();
  {
    absl::MutexLock l(&mu_);
    CommitGroupLocked(group);
  }
  queue_mu_.Lock();
  for (size_t i = 0; i < n; ++i) {
    QueuedWrite* q = queue_.front();
    queue_.pop_front();
    // Signalled under the lock: a waiter may return (and free `q`) as soon as the lock is free.
    if (q != &self) {
      q->done = true;
      q->cv.Signal();
    }
  }
  if (!queue_.empty()) queue_.front()->cv.Signal();  // the next leader
  queue_mu_.Unlock();
  return self.status;
}

absl::Status SqliteStore::CommitAloneLocked(absl::FunctionRef<absl::Status()> write) {
  sqlite::Transaction tx(db_.get());
  RETURN_IF_ERROR(tx.Begin());
  RETURN_IF_ERROR(write());
  return tx.Commit();
}

void SqliteStore::CommitGroupLocked(const std::vector<QueuedWrite*>& group) {
  if (group.size() == 1) {
    group[0]->status = CommitAloneLocked(group[0]->write);
    return;
  }
  auto run = [this](const char* sql) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) -> absl::Status {
    ASSIGN_OR_RETURN(sqlite::Statement * st, Stmt(sql));
    return st->Run();
  };
  bool group_failed = false;
  {
    sqlite::Transaction tx(db_.get());
    if (absl::Status s = tx.Begin(); !s.ok()) {
      for (QueuedWrite* q : group) q->status = s;
      return;
    }
    for (QueuedWrite* q : group) {
      // A savepoint per write: one refused by a constraint (a batch recorded already, an
      // unknown study) is undone alone and its caller gets the error it would get on its own.
      absl::Status s = run(kSavepoint);
      if (s.ok()) {
        absl::Status w = q->write();
        if (w.ok()) {
          s = run(kRelease);
        } else if (db_->InTransaction()) {
          q->status = w;
          s = run(kRollbackTo);
          if (s.ok()) s = run(kRelease);
        } else {
          s = w;  // SQLite rolled the whole transaction back (full disk, I/O error)
        }
      }
      if (!s.ok()) {
        group_failed = true;
        break;
      }
    }
    if (!group_failed) group_failed = !tx.Commit().ok();
  }  // rolled back here unless committed
  if (!group_failed) return;
  // The transaction as a whole failed (its commit, or an error that ended it): nothing of it was
  // stored. Each write is tried again in a transaction of its own, so every caller gets exactly
  // the outcome it would have had alone.
  for (QueuedWrite* q : group) q->status = CommitAloneLocked(q->write);
}

absl::Status SqliteStore::RecordBatch(const BatchRecord& b) {
  return GroupCommit([&]() ABSL_NO_THREAD_SAFETY_ANALYSIS { return InsertBatchLocked(b); });
}

absl::Status SqliteStore::InsertBatchLocked(const BatchRecord& b) {
  int n_replaced = 0;
  for (const auto& e : b.evaluations) n_replaced += e.replaced ? 1 : 0;
  static const std::string* const kInsert = [] {
    std::string values = "?, ?, ?, ?, ?, ?, ?, ?";
    for (size_t i = 0; i < kNumBatchFigures; ++i) values += ", ?";
    return new std::string(
        absl::StrCat("INSERT INTO batches (study_id, batch, source, turn_time_s,"
                     " host_suggest_time_s, host_observe_time_s, eval_time_s,"
                     " n_replaced",
                     FigureColumns(), ") VALUES (", values, ")"));
  }();
  ASSIGN_OR_RETURN(auto* ib, Stmt(kInsert->c_str()));
  ib->Bind(1, b.study_id).Bind(2, b.batch).Bind(3, BatchSourceName(b.source));
  ib->Bind(4, b.turn_time_s).Bind(5, b.host_suggest_time_s).Bind(6, b.host_observe_time_s);
  ib->Bind(7, b.eval_time_s).Bind(8, n_replaced);
  BindFigures(*ib, 9, b.figures);
  RETURN_IF_ERROR(ib->Run());
  ASSIGN_OR_RETURN(auto* ie, Stmt("INSERT INTO evaluations (study_id, batch, idx, params_json,"
                                  " value, replaced, eval_time_s, suggested_json, generalization)"
                                  " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"));
  for (size_t i = 0; i < b.evaluations.size(); ++i) {
    const auto& e = b.evaluations[i];
    ie->Bind(1, b.study_id).Bind(2, b.batch).Bind(3, static_cast<int64_t>(i));
    ie->Bind(4, e.params_json).Bind(5, StoredValue(e.value)).Bind(6, e.replaced ? 1 : 0);
    ie->Bind(7, e.eval_time_s);
    if (e.suggested_json.empty()) {
      ie->BindNull(8);
    } else {
      ie->Bind(8, e.suggested_json);
    }
    if (e.generalization) {
      ie->Bind(9, StoredValue(*e.generalization));
    } else {
      ie->BindNull(9);
    }
    RETURN_IF_ERROR(ie->Run());
  }
  ASSIGN_OR_RETURN(auto* er, Stmt("INSERT INTO study_errors (study_id, batch, kind, message)"
                                  " VALUES (?, ?, 'batch', ?)"));
  for (const auto& msg : b.errors) {
    er->Bind(1, b.study_id).Bind(2, b.batch).Bind(3, msg);
    RETURN_IF_ERROR(er->Run());
  }
  ASSIGN_OR_RETURN(auto* us, Stmt("UPDATE studies SET batches_done = ?, optimizer_time_s = ?,"
                                  " best_value = ? WHERE id = ?"));
  us->Bind(1, b.batch + 1).Bind(2, b.optimizer_time_s).Bind(3, StoredValue(b.best_value));
  us->Bind(4, b.study_id);
  return us->Run();
}

absl::Status SqliteStore::RecordStudyError(const StudyErrorRecord& e) {
  absl::MutexLock l(&mu_);
  ASSIGN_OR_RETURN(auto* er, Stmt("INSERT INTO study_errors (study_id, batch, kind, message)"
                                  " VALUES (?, ?, ?, ?)"));
  er->Bind(1, e.study_id).Bind(2, e.batch).Bind(3, e.kind).Bind(4, e.message);
  return er->Run();
}

absl::StatusOr<StudyState> SqliteStore::EndStudy(int64_t study_id, StudyState state,
                                                 const std::string& reason, double ended_at,
                                                 double optimizer_time_s) {
  StudyState out = state;
  RETURN_IF_ERROR(GroupCommit([&]() ABSL_NO_THREAD_SAFETY_ANALYSIS -> absl::Status {
    ASSIGN_OR_RETURN(auto* q, Stmt("SELECT state FROM studies WHERE id = ?"));
    q->Bind(1, study_id);
    ASSIGN_OR_RETURN(bool row, q->Step());
    if (!row) return absl::NotFoundError(absl::StrCat("no study with id ", study_id));
    StudyState current = ParseStudyState(q->Text(0));
    q->Reset();
    if (current != StudyState::kRunning) {
      out = current;
      return absl::OkStatus();
    }
    ASSIGN_OR_RETURN(auto* u, Stmt(R"sql(
UPDATE studies SET state = ?1, end_reason = ?2, ended_at = ?3,
  optimizer_time_s = MAX(optimizer_time_s, ?4),
  final_seq = CASE WHEN ?1 IN ('completed', 'cut_off', 'failed')
                   THEN (SELECT COALESCE(MAX(final_seq), 0) + 1 FROM studies) END
WHERE id = ?5)sql"));
    u->Bind(1, StudyStateName(state)).Bind(2, reason).Bind(3, ended_at).Bind(4, optimizer_time_s);
    u->Bind(5, study_id);
    return u->Run();
  }));
  return out;
}

absl::StatusOr<std::vector<StudyErrorRecord>> SqliteStore::ListStudyErrors(int64_t study_id) {
  absl::MutexLock l(&mu_);
  ASSIGN_OR_RETURN(auto* q, Stmt("SELECT batch, kind, message FROM study_errors WHERE"
                                 " study_id = ? ORDER BY id"));
  q->Bind(1, study_id);
  std::vector<StudyErrorRecord> out;
  RETURN_IF_ERROR(ForEachRow(*q, [&](const sqlite::Statement& r) {
    out.push_back({study_id, static_cast<int>(r.Int(0)), r.Text(1), r.Text(2)});
  }));
  return out;
}

absl::StatusOr<std::vector<std::pair<std::string, StudyErrorRecord>>>
SqliteStore::ListSubmissionErrors(int64_t submission_id, int limit) {
  absl::MutexLock l(&mu_);
  ASSIGN_OR_RETURN(auto* q, Stmt("SELECT s.problem, e.study_id, e.batch, e.kind, e.message FROM"
                                 " study_errors e JOIN studies s ON s.id = e.study_id WHERE"
                                 " s.submission_id = ? ORDER BY e.id LIMIT ?"));
  q->Bind(1, submission_id).Bind(2, limit);
  std::vector<std::pair<std::string, StudyErrorRecord>> out;
  RETURN_IF_ERROR(ForEachRow(*q, [&](const sqlite::Statement& r) {
    out.emplace_back(r.Text(0),
                     StudyErrorRecord{r.Int(1), static_cast<int>(r.Int(2)), r.Text(3), r.Text(4)});
  }));
  return out;
}

absl::StatusOr<int> SqliteStore::CountStudiesWithErrors(int64_t submission_id) {
  absl::MutexLock l(&mu_);
  ASSIGN_OR_RETURN(auto* q, Stmt("SELECT COUNT(DISTINCT e.study_id) FROM study_errors e JOIN"
                                 " studies s ON s.id = e.study_id WHERE s.submission_id = ? AND"
                                 " s.state IN ('completed', 'cut_off', 'failed')"));
  q->Bind(1, submission_id);
  ASSIGN_OR_RETURN(int64_t n, ScalarInt(*q));
  return static_cast<int>(n);
}

absl::StatusOr<std::vector<std::vector<double>>> SqliteStore::StudyValues(int64_t study_id) {
  absl::MutexLock l(&mu_);
  ASSIGN_OR_RETURN(auto* q, Stmt("SELECT batch, value FROM evaluations WHERE study_id = ?"
                                 " ORDER BY batch, idx"));
  q->Bind(1, study_id);
  std::vector<std::vector<double>> out;
  RETURN_IF_ERROR(ForEachRow(*q, [&](const sqlite::Statement& r) {
    size_t b = static_cast<size_t>(r.Int(0));
    if (out.size() <= b) out.resize(b + 1);
    out[b].push_back(r.Double(1));
  }));
  return out;
}

absl::StatusOr<std::vector<std::pair<std::string, std::string>>> SqliteStore::ProblemSignatures() {
  absl::MutexLock l(&mu_);
  ASSIGN_OR_RETURN(auto* q, Stmt("SELECT DISTINCT problem, problem_signature FROM studies"
                                 " WHERE problem_signature IS NOT NULL"
                                 " ORDER BY problem, problem_signature"));
  std::vector<std::pair<std::string, std::string>> out;
  RETURN_IF_ERROR(ForEachRow(*q, [&](const sqlite::Statement& r) {
    out.push_back({r.Text(0), r.Text(1)});
  }));
  return out;
}

absl::StatusOr<std::vector<int64_t>> SqliteStore::ListStudyIds() {
  absl::MutexLock l(&mu_);
  ASSIGN_OR_RETURN(auto* q, Stmt("SELECT id FROM studies ORDER BY id"));
  std::vector<int64_t> out;
  RETURN_IF_ERROR(ForEachRow(*q, [&](const sqlite::Statement& r) { out.push_back(r.Int(0)); }));
  return out;
}

absl::StatusOr<std::vector<std::pair<int, EvaluationRecord>>> SqliteStore::StudyEvaluations(
    int64_t study_id) {
  absl::MutexLock l(&mu_);
  ASSIGN_OR_RETURN(auto* q, Stmt("SELECT batch, params_json, value, replaced, eval_time_s,"
                                 " generalization FROM evaluations WHERE study_id = ?"
                                 " ORDER BY batch, idx"));
  q->Bind(1, study_id);
  std::vector<std::pair<int, EvaluationRecord>> out;
  RETURN_IF_ERROR(ForEachRow(*q, [&](const sqlite::Statement& r) {
    EvaluationRecord e;
    e.params_json = r.Text(1);
    e.value = ValueOrInf(r, 2);
    e.replaced = r.Int(3) != 0;
    e.eval_time_s = r.Double(4);
    if (!r.IsNull(5)) e.generalization = r.Double(5);
    out.push_back({static_cast<int>(r.Int(0)), std::move(e)});
  }));
  return out;
}

}  // namespace bbo
