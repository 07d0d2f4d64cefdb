#include "server/store/sqlite_store.h"

#include <cmath>
#include <limits>
#include <cstdio>
#include <map>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"

namespace bbo {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

const char* JobStateName(JobState s) {
  switch (s) {
    case JobState::kQueued: return "queued";
    case JobState::kLeased: return "leased";
    case JobState::kDone: return "done";
    case JobState::kFailed: return "failed";
  }
  return "queued";
}

JobState ParseJobState(const std::string& s) {
  if (s == "leased") return JobState::kLeased;
  if (s == "done") return JobState::kDone;
  if (s == "failed") return JobState::kFailed;
  return JobState::kQueued;
}

StudyState ParseStudyState(const std::string& s) {
  if (s == "completed") return StudyState::kCompleted;
  if (s == "cut_off") return StudyState::kCutOff;
  if (s == "failed") return StudyState::kFailed;
  if (s == "abandoned") return StudyState::kAbandoned;
  return StudyState::kRunning;
}

const char* BatchSourceName(BatchSource s) {
  switch (s) {
    case BatchSource::kOptimizer: return "optimizer";
    case BatchSource::kRandomFill: return "random_fill";
    case BatchSource::kBaseline: return "baseline";
  }
  return "optimizer";
}

// SQLite turns NaN into NULL; the coordinator maps NaN to +inf before storing, and this keeps
// the column NOT NULL even if a caller forgets.
double Storable(double v) { return std::isnan(v) ? kInf : v; }


JobRecord ReadJob(const sqlite::Statement& q) {
  JobRecord j;
  j.id = q.Int(0);
  j.submission_id = q.Int(1);
  j.problem = q.Text(2);
  j.trial = static_cast<int>(q.Int(3));
  j.seed = q.Int(4);
  j.state = ParseJobState(q.Text(5));
  j.worker_id = q.Text(6);
  j.lease_expires_at = q.Double(7);
  j.attempts = static_cast<int>(q.Int(8));
  j.board = q.Text(9);
  return j;
}

// The columns ReadSubmission reads, in order.
#define BBO_SUBMISSION_COLUMNS "id, name, kind, digest, trials, is_baseline, created_at, team"

SubmissionRecord ReadSubmission(const sqlite::Statement& q) {
  SubmissionRecord s;
  s.id = q.Int(0);
  s.name = q.Text(1);
  s.kind = static_cast<SubmissionKind>(q.Int(2));
  s.digest = q.Text(3);
  s.trials = static_cast<int>(q.Int(4));
  s.is_baseline = q.Int(5) != 0;
  s.created_at = q.Double(6);
  s.team = q.Text(7);
  return s;
}

// Every row of a query of BBO_SUBMISSION_COLUMNS; resets the statement.
absl::StatusOr<std::vector<SubmissionRecord>> ReadSubmissions(sqlite::Statement& q) {
  std::vector<SubmissionRecord> out;
  while (true) {
    ASSIGN_OR_RETURN(bool row, q.Step());
    if (!row) break;
    out.push_back(ReadSubmission(q));
  }
  q.Reset();
  return out;
}


}  // namespace

const char* StudyStateName(StudyState s) {
  switch (s) {
    case StudyState::kRunning: return "running";
    case StudyState::kCompleted: return "completed";
    case StudyState::kCutOff: return "cut_off";
    case StudyState::kFailed: return "failed";
    case StudyState::kAbandoned: return "abandoned";
  }
  return "running";
}

absl::StatusOr<std::unique_ptr<SqliteStore>> SqliteStore::Open(const std::string& path) {
  ASSIGN_OR_RETURN(auto db, sqlite::Database::Open(path));
  RETURN_IF_ERROR(Migrate(db.get()));
  return std::unique_ptr<SqliteStore>(new SqliteStore(std::move(db)));
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
  ASSIGN_OR_RETURN(bool row, q->Step());
  int v = row ? static_cast<int>(q->Int(0)) : 0;
  q->Reset();
  return v;
}

absl::Status SqliteStore::ExecForTesting(const std::string& sql) {
  absl::MutexLock l(&mu_);
  return db_->Exec(sql);
}

absl::StatusOr<int64_t> SqliteStore::AddSubmission(const SubmissionRecord& s,
                                                   const std::string& archive,
                                                   const std::vector<std::string>& problems,
                                                   int64_t seed_base,
                                                   const std::vector<std::string>& boards) {
  if (boards.empty()) return absl::InvalidArgumentError("a submission needs at least one board");
  absl::MutexLock l(&mu_);
  sqlite::Transaction tx(db_.get());
  RETURN_IF_ERROR(tx.Begin());
  ASSIGN_OR_RETURN(auto* ins,
                   Stmt("INSERT INTO submissions (name, kind, archive, digest, trials,"
                        " is_baseline, created_at, team) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"));
  ins->Bind(1, s.name).Bind(2, static_cast<int64_t>(s.kind)).BindBlob(3, archive);
  ins->Bind(4, s.digest).Bind(5, s.trials).Bind(6, s.is_baseline ? 1 : 0).Bind(7, s.created_at);
  ins->Bind(8, s.team);
  if (absl::Status st = ins->Run(); !st.ok()) {
    if (absl::IsAlreadyExists(st)) {
      return absl::AlreadyExistsError(absl::StrCat("a submission named \"", s.name,
                                                   "\" already exists; choose another name"));
    }
    return st;
  }
  int64_t id = db_->LastInsertId();
  ASSIGN_OR_RETURN(auto* job, Stmt("INSERT INTO jobs (submission_id, problem, trial, seed, state,"
                                   " builtin, board) VALUES (?, ?, ?, ?, 'queued', ?, ?)"));
  // Jobs are queued board by board, trial-major, so that partial results cover every problem
  // early and the phase's own board finishes first.
  for (const std::string& board : boards) {
    for (int t = 0; t < s.trials; ++t) {
      for (size_t p = 0; p < problems.size(); ++p) {
        int64_t seed = seed_base * 1000003 + id * 7919 + t * 104729 + static_cast<int64_t>(p);
        job->Bind(1, id).Bind(2, problems[p]).Bind(3, t).Bind(4, seed & 0x7fffffff);
        job->Bind(5, s.kind == SubmissionKind::kBuiltin ? 1 : 0).Bind(6, board);
        RETURN_IF_ERROR(job->Run());
      }
    }
  }
  RETURN_IF_ERROR(tx.Commit());
  return id;
}

template <typename Key>
absl::StatusOr<std::optional<SubmissionRecord>> SqliteStore::QuerySubmission(const char* sql,
                                                                            const Key& key) {
  ASSIGN_OR_RETURN(auto* q, Stmt(sql));
  q->Bind(1, key);
  ASSIGN_OR_RETURN(bool row, q->Step());
  std::optional<SubmissionRecord> out;
  if (row) out = ReadSubmission(*q);
  q->Reset();
  return out;
}

absl::StatusOr<SubmissionRecord> SqliteStore::GetSubmission(int64_t id) {
  absl::MutexLock l(&mu_);
  ASSIGN_OR_RETURN(std::optional<SubmissionRecord> s,
                   QuerySubmission("SELECT " BBO_SUBMISSION_COLUMNS
                                   " FROM submissions WHERE id = ?",
                                   id));
  if (!s) return absl::NotFoundError(absl::StrCat("no submission with id ", id));
  return *s;
}

absl::StatusOr<std::optional<SubmissionRecord>> SqliteStore::FindSubmission(
    const std::string& name) {
  absl::MutexLock l(&mu_);
  return QuerySubmission("SELECT " BBO_SUBMISSION_COLUMNS " FROM submissions WHERE name = ?",
                         name);
}

absl::StatusOr<std::string> SqliteStore::GetSubmissionArchive(int64_t id) {
  absl::MutexLock l(&mu_);
  ASSIGN_OR_RETURN(auto* q, Stmt("SELECT archive FROM submissions WHERE id = ?"));
  q->Bind(1, id);
  ASSIGN_OR_RETURN(bool row, q->Step());
  if (!row) return absl::NotFoundError(absl::StrCat("no submission with id ", id));
  std::string blob = q->Blob(0);
  q->Reset();
  return blob;
}

absl::StatusOr<std::vector<SubmissionRecord>> SqliteStore::ListSubmissions() {
  absl::MutexLock l(&mu_);
  ASSIGN_OR_RETURN(auto* q,
                   Stmt("SELECT " BBO_SUBMISSION_COLUMNS " FROM submissions ORDER BY id"));
  return ReadSubmissions(*q);
}

absl::StatusOr<std::vector<SubmissionRecord>> SqliteStore::FindSubmissionsByDigest(
    const std::string& digest) {
  absl::MutexLock l(&mu_);
  ASSIGN_OR_RETURN(auto* q, Stmt("SELECT " BBO_SUBMISSION_COLUMNS " FROM submissions"
                                 " WHERE digest = ? AND is_baseline = 0 ORDER BY id"));
  q->Bind(1, digest);
  return ReadSubmissions(*q);
}

absl::StatusOr<int> SqliteStore::CountTeamSubmissions(const std::string& team) {
  absl::MutexLock l(&mu_);
  ASSIGN_OR_RETURN(auto* q, Stmt("SELECT COUNT(*) FROM submissions WHERE team = ?"));
  q->Bind(1, team);
  ASSIGN_OR_RETURN(bool row, q->Step());
  int n = row ? static_cast<int>(q->Int(0)) : 0;
  q->Reset();
  return n;
}

absl::StatusOr<std::vector<std::string>> SqliteStore::ListBoards() {
  absl::MutexLock l(&mu_);
  ASSIGN_OR_RETURN(auto* q, Stmt("SELECT DISTINCT board FROM jobs ORDER BY board"));
  std::vector<std::string> out;
  while (true) {
    ASSIGN_OR_RETURN(bool row, q->Step());
    if (!row) break;
    out.push_back(q->Text(0));
  }
  q->Reset();
  return out;
}

absl::StatusOr<JobCounts> SqliteStore::CountJobs(int64_t submission_id) {
  absl::MutexLock l(&mu_);
  ASSIGN_OR_RETURN(auto* q, Stmt("SELECT state, COUNT(*) FROM jobs WHERE submission_id = ?"
                                 " GROUP BY state"));
  q->Bind(1, submission_id);
  JobCounts c;
  while (true) {
    ASSIGN_OR_RETURN(bool row, q->Step());
    if (!row) break;
    int n = static_cast<int>(q->Int(1));
    c.total += n;
    switch (ParseJobState(q->Text(0))) {
      case JobState::kQueued: c.queued += n; break;
      case JobState::kLeased: c.leased += n; break;
      case JobState::kDone: c.done += n; break;
      case JobState::kFailed: c.failed += n; break;
    }
  }
  q->Reset();
  return c;
}

absl::StatusOr<int> SqliteStore::CountStudiesWithErrors(int64_t submission_id) {
  absl::MutexLock l(&mu_);
  ASSIGN_OR_RETURN(auto* q, Stmt("SELECT COUNT(DISTINCT e.study_id) FROM study_errors e JOIN"
                                 " studies s ON s.id = e.study_id WHERE s.submission_id = ?"));
  q->Bind(1, submission_id);
  ASSIGN_OR_RETURN(bool row, q->Step());
  int n = row ? static_cast<int>(q->Int(0)) : 0;
  q->Reset();
  return n;
}

absl::StatusOr<std::optional<JobRecord>> SqliteStore::LeaseLocked(bool builtin,
                                                                  const std::string& owner,
                                                                  double lease_expires_at) {
  sqlite::Transaction tx(db_.get());
  RETURN_IF_ERROR(tx.Begin());
  ASSIGN_OR_RETURN(auto* q, Stmt("SELECT id FROM jobs WHERE state = 'queued' AND builtin = ?"
                                 " ORDER BY id LIMIT 1"));
  q->Bind(1, builtin ? 1 : 0);
  ASSIGN_OR_RETURN(bool row, q->Step());
  if (!row) {
    q->Reset();
    return std::optional<JobRecord>();
  }
  int64_t id = q->Int(0);
  q->Reset();
  ASSIGN_OR_RETURN(auto* u, Stmt("UPDATE jobs SET state = 'leased', worker_id = ?,"
                                 " lease_expires_at = ?, attempts = attempts + 1 WHERE id = ?"));
  u->Bind(1, owner).Bind(2, lease_expires_at).Bind(3, id);
  RETURN_IF_ERROR(u->Run());
  RETURN_IF_ERROR(tx.Commit());
  ASSIGN_OR_RETURN(auto* g, Stmt(
      "SELECT id, submission_id, problem, trial, seed, state, COALESCE(worker_id, ''),"
      " COALESCE(lease_expires_at, 0), attempts, board FROM jobs WHERE id = ?"));
  g->Bind(1, id);
  ASSIGN_OR_RETURN(bool grow, g->Step());
  if (!grow) return absl::InternalError("leased job vanished");
  JobRecord j = ReadJob(*g);
  g->Reset();
  return std::optional<JobRecord>(j);
}

absl::StatusOr<std::optional<JobRecord>> SqliteStore::LeaseJob(const std::string& worker_id,
                                                               double lease_expires_at) {
  absl::MutexLock l(&mu_);
  return LeaseLocked(false, worker_id, lease_expires_at);
}

absl::StatusOr<std::optional<JobRecord>> SqliteStore::LeaseBuiltinJob(const std::string& owner,
                                                                      double lease_expires_at) {
  absl::MutexLock l(&mu_);
  return LeaseLocked(true, owner, lease_expires_at);
}

absl::StatusOr<JobRecord> SqliteStore::GetJob(int64_t job_id) {
  absl::MutexLock l(&mu_);
  ASSIGN_OR_RETURN(auto* g, Stmt(
      "SELECT id, submission_id, problem, trial, seed, state, COALESCE(worker_id, ''),"
      " COALESCE(lease_expires_at, 0), attempts, board FROM jobs WHERE id = ?"));
  g->Bind(1, job_id);
  ASSIGN_OR_RETURN(bool row, g->Step());
  if (!row) return absl::NotFoundError(absl::StrCat("no job with id ", job_id));
  JobRecord j = ReadJob(*g);
  g->Reset();
  return j;
}

absl::Status SqliteStore::RenewLeases(const std::string& worker_id, double lease_expires_at) {
  absl::MutexLock l(&mu_);
  ASSIGN_OR_RETURN(auto* u, Stmt("UPDATE jobs SET lease_expires_at = ? WHERE state = 'leased'"
                                 " AND worker_id = ?"));
  u->Bind(1, lease_expires_at).Bind(2, worker_id);
  return u->Run();
}

absl::StatusOr<std::vector<int64_t>> SqliteStore::ExpireLeases(double now, int max_attempts) {
  absl::MutexLock l(&mu_);
  sqlite::Transaction tx(db_.get());
  RETURN_IF_ERROR(tx.Begin());
  ASSIGN_OR_RETURN(auto* q, Stmt("SELECT id, attempts FROM jobs WHERE state = 'leased' AND"
                                 " lease_expires_at < ?"));
  q->Bind(1, now);
  std::vector<std::pair<int64_t, int>> expired;
  while (true) {
    ASSIGN_OR_RETURN(bool row, q->Step());
    if (!row) break;
    expired.emplace_back(q->Int(0), static_cast<int>(q->Int(1)));
  }
  q->Reset();
  std::vector<int64_t> requeued;
  ASSIGN_OR_RETURN(auto* u, Stmt("UPDATE jobs SET state = ?, worker_id = NULL,"
                                 " lease_expires_at = NULL, last_error = 'lease expired'"
                                 " WHERE id = ?"));
  ASSIGN_OR_RETURN(auto* a, Stmt("UPDATE studies SET state = 'abandoned', ended_at = ?,"
                                 " end_reason = 'worker lease expired' WHERE job_id = ? AND"
                                 " state = 'running'"));
  for (auto [id, attempts] : expired) {
    bool retry = attempts < max_attempts;
    u->Bind(1, retry ? "queued" : "failed").Bind(2, id);
    RETURN_IF_ERROR(u->Run());
    a->Bind(1, now).Bind(2, id);
    RETURN_IF_ERROR(a->Run());
    if (retry) requeued.push_back(id);
  }
  RETURN_IF_ERROR(tx.Commit());
  return requeued;
}

absl::Status SqliteStore::FinishJob(int64_t job_id, const std::string& worker_id,
                                    const std::string& error, int max_attempts) {
  absl::MutexLock l(&mu_);
  sqlite::Transaction tx(db_.get());
  RETURN_IF_ERROR(tx.Begin());
  ASSIGN_OR_RETURN(auto* q, Stmt("SELECT state, COALESCE(worker_id, ''), attempts FROM jobs"
                                 " WHERE id = ?"));
  q->Bind(1, job_id);
  ASSIGN_OR_RETURN(bool row, q->Step());
  if (!row) return absl::NotFoundError(absl::StrCat("no job with id ", job_id));
  std::string state = q->Text(0), holder = q->Text(1);
  int attempts = static_cast<int>(q->Int(2));
  q->Reset();
  if (state != "leased" || holder != worker_id) {
    return absl::FailedPreconditionError(absl::StrCat(
        "job ", job_id, " is not leased by worker ", worker_id, " (its lease expired?)"));
  }
  const char* next = error.empty() ? "done" : (attempts < max_attempts ? "queued" : "failed");
  ASSIGN_OR_RETURN(auto* u, Stmt("UPDATE jobs SET state = ?, worker_id = NULL,"
                                 " lease_expires_at = NULL, last_error = ? WHERE id = ?"));
  u->Bind(1, next);
  if (error.empty()) {
    u->BindNull(2);
  } else {
    u->Bind(2, error);
  }
  u->Bind(3, job_id);
  RETURN_IF_ERROR(u->Run());
  if (!error.empty()) {
    ASSIGN_OR_RETURN(auto* a, Stmt("UPDATE studies SET state = 'abandoned', end_reason = ?"
                                   " WHERE job_id = ? AND state = 'running'"));
    a->Bind(1, error).Bind(2, job_id);
    RETURN_IF_ERROR(a->Run());
  }
  return tx.Commit();
}

absl::Status SqliteStore::RegisterWorker(const std::string& worker_id,
                                         const std::string& hostname, int slots, double now) {
  absl::MutexLock l(&mu_);
  ASSIGN_OR_RETURN(auto* u, Stmt("INSERT INTO workers (id, hostname, slots, registered_at,"
                                 " last_heartbeat) VALUES (?, ?, ?, ?, ?)"));
  u->Bind(1, worker_id).Bind(2, hostname).Bind(3, slots).Bind(4, now).Bind(5, now);
  return u->Run();
}

absl::Status SqliteStore::TouchWorker(const std::string& worker_id, double now) {
  absl::MutexLock l(&mu_);
  ASSIGN_OR_RETURN(auto* u, Stmt("UPDATE workers SET last_heartbeat = ? WHERE id = ?"));
  u->Bind(1, now).Bind(2, worker_id);
  RETURN_IF_ERROR(u->Run());
  if (db_->Changes() == 0) {
    return absl::NotFoundError(absl::StrCat("unknown worker ", worker_id, "; register again"));
  }
  return absl::OkStatus();
}

absl::StatusOr<int64_t> SqliteStore::CreateStudy(const StudyRecord& s) {
  absl::MutexLock l(&mu_);
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
  u->Bind(6, s.budget.n_batches).Bind(7, s.budget.suggest_budget_s).Bind(8, s.budget.study_budget_s);
  u->Bind(9, s.started_at);
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

absl::Status SqliteStore::RecordBatch(const BatchRecord& b) {
  absl::MutexLock l(&mu_);
  sqlite::Transaction tx(db_.get());
  RETURN_IF_ERROR(tx.Begin());
  int n_replaced = 0;
  for (const auto& e : b.evaluations) n_replaced += e.replaced ? 1 : 0;
  ASSIGN_OR_RETURN(auto* ib, Stmt("INSERT INTO batches (study_id, batch, source, turn_time_s,"
                                  " host_suggest_time_s, host_observe_time_s, eval_time_s,"
                                  " n_replaced) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"));
  ib->Bind(1, b.study_id).Bind(2, b.batch).Bind(3, BatchSourceName(b.source));
  ib->Bind(4, b.turn_time_s).Bind(5, b.host_suggest_time_s).Bind(6, b.host_observe_time_s);
  ib->Bind(7, b.eval_time_s).Bind(8, n_replaced);
  RETURN_IF_ERROR(ib->Run());
  ASSIGN_OR_RETURN(auto* ie, Stmt("INSERT INTO evaluations (study_id, batch, idx, params_json,"
                                  " value, replaced, eval_time_s, suggested_json, generalization)"
                                  " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"));
  for (size_t i = 0; i < b.evaluations.size(); ++i) {
    const auto& e = b.evaluations[i];
    ie->Bind(1, b.study_id).Bind(2, b.batch).Bind(3, static_cast<int64_t>(i));
    ie->Bind(4, e.params_json).Bind(5, Storable(e.value)).Bind(6, e.replaced ? 1 : 0);
    ie->Bind(7, e.eval_time_s);
    if (e.suggested_json.empty()) {
      ie->BindNull(8);
    } else {
      ie->Bind(8, e.suggested_json);
    }
    if (e.generalization) {
      ie->Bind(9, Storable(*e.generalization));
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
  us->Bind(1, b.batch + 1).Bind(2, b.optimizer_time_s).Bind(3, Storable(b.best_value));
  us->Bind(4, b.study_id);
  RETURN_IF_ERROR(us->Run());
  return tx.Commit();
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
  absl::MutexLock l(&mu_);
  sqlite::Transaction tx(db_.get());
  RETURN_IF_ERROR(tx.Begin());
  ASSIGN_OR_RETURN(auto* q, Stmt("SELECT state FROM studies WHERE id = ?"));
  q->Bind(1, study_id);
  ASSIGN_OR_RETURN(bool row, q->Step());
  if (!row) return absl::NotFoundError(absl::StrCat("no study with id ", study_id));
  StudyState current = ParseStudyState(q->Text(0));
  q->Reset();
  if (current != StudyState::kRunning) return current;
  ASSIGN_OR_RETURN(auto* u, Stmt(R"sql(
UPDATE studies SET state = ?1, end_reason = ?2, ended_at = ?3,
  optimizer_time_s = MAX(optimizer_time_s, ?4),
  final_seq = CASE WHEN ?1 IN ('completed', 'cut_off', 'failed')
                   THEN (SELECT COALESCE(MAX(final_seq), 0) + 1 FROM studies) END
WHERE id = ?5)sql"));
  u->Bind(1, StudyStateName(state)).Bind(2, reason).Bind(3, ended_at).Bind(4, optimizer_time_s);
  u->Bind(5, study_id);
  RETURN_IF_ERROR(u->Run());
  RETURN_IF_ERROR(tx.Commit());
  return state;
}

absl::StatusOr<std::vector<StudyErrorRecord>> SqliteStore::ListStudyErrors(int64_t study_id) {
  absl::MutexLock l(&mu_);
  ASSIGN_OR_RETURN(auto* q, Stmt("SELECT batch, kind, message FROM study_errors WHERE"
                                 " study_id = ? ORDER BY id"));
  q->Bind(1, study_id);
  std::vector<StudyErrorRecord> out;
  while (true) {
    ASSIGN_OR_RETURN(bool row, q->Step());
    if (!row) break;
    out.push_back({study_id, static_cast<int>(q->Int(0)), q->Text(1), q->Text(2)});
  }
  q->Reset();
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
  while (true) {
    ASSIGN_OR_RETURN(bool row, q->Step());
    if (!row) break;
    out.emplace_back(q->Text(0), StudyErrorRecord{q->Int(1), static_cast<int>(q->Int(2)),
                                                  q->Text(3), q->Text(4)});
  }
  q->Reset();
  return out;
}

absl::StatusOr<std::vector<std::vector<double>>> SqliteStore::StudyValues(int64_t study_id) {
  absl::MutexLock l(&mu_);
  ASSIGN_OR_RETURN(auto* q, Stmt("SELECT batch, value FROM evaluations WHERE study_id = ?"
                                 " ORDER BY batch, idx"));
  q->Bind(1, study_id);
  std::vector<std::vector<double>> out;
  while (true) {
    ASSIGN_OR_RETURN(bool row, q->Step());
    if (!row) break;
    size_t b = static_cast<size_t>(q->Int(0));
    if (out.size() <= b) out.resize(b + 1);
    out[b].push_back(q->Double(1));
  }
  q->Reset();
  return out;
}

absl::StatusOr<ScoringData> SqliteStore::LoadScoringData(const std::vector<std::string>& problems,
                                                         const std::string& board) {
  absl::MutexLock l(&mu_);
  ScoringData data;
  // With a filter, the same statements run once per problem (?1 = the problem; unfiltered,
  // ?1 IS NULL matches everything).
  std::vector<std::optional<std::string>> filters;
  if (problems.empty()) {
    filters.push_back(std::nullopt);
  } else {
    for (const std::string& p : problems) filters.push_back(p);
  }
  // Batch minima of the latest finished study of every job of non-baseline submissions.
  ASSIGN_OR_RETURN(auto* q, Stmt(R"sql(
SELECT sub.name, s.problem, s.id, s.trial, e.batch, MIN(e.value)
FROM studies s
JOIN submissions sub ON sub.id = s.submission_id
LEFT JOIN evaluations e ON e.study_id = s.id
WHERE sub.is_baseline = 0
  AND (?1 IS NULL OR s.problem = ?1)
  AND s.board = ?2
  AND s.state IN ('completed', 'cut_off', 'failed')
  AND s.id = (SELECT MAX(s2.id) FROM studies s2
              WHERE s2.job_id = s.job_id AND s2.state IN ('completed', 'cut_off', 'failed'))
GROUP BY s.id, e.batch
ORDER BY sub.name, s.problem, s.id, e.batch)sql"));
  ASSIGN_OR_RETURN(auto* b, Stmt(R"sql(
SELECT s.problem, e.value FROM evaluations e
JOIN studies s ON s.id = e.study_id
JOIN submissions sub ON sub.id = s.submission_id
WHERE sub.is_baseline = 1 AND s.state = 'completed' AND (?1 IS NULL OR s.problem = ?1))sql"));
  for (const auto& filter : filters) {
    if (filter) {
      q->Bind(1, *filter);
      b->Bind(1, *filter);
    } else {
      q->BindNull(1);
      b->BindNull(1);
    }
    q->Bind(2, board);
    std::map<int64_t, StudyCurve*> by_study;
    while (true) {
      ASSIGN_OR_RETURN(bool row, q->Step());
      if (!row) break;
      std::string name = q->Text(0), problem = q->Text(1);
      int64_t study_id = q->Int(2);
      StudyCurve*& curve = by_study[study_id];
      if (curve == nullptr) {
        auto& v = data.methods[name][problem];
        v.push_back(StudyCurve{study_id, static_cast<int>(q->Int(3)), {}});
        curve = &v.back();
      }
      if (!q->IsNull(4)) {
        size_t bt = static_cast<size_t>(q->Int(4));
        if (curve->batch_min.size() <= bt) curve->batch_min.resize(bt + 1, kInf);
        curve->batch_min[bt] = q->IsNull(5) ? kInf : q->Double(5);
      }
      // Re-point every curve of this (method, problem) after a possible reallocation.
      for (auto& c : data.methods[name][problem]) by_study[c.study_id] = &c;
    }
    q->Reset();
    while (true) {
      ASSIGN_OR_RETURN(bool row, b->Step());
      if (!row) break;
      data.baseline_evals[b->Text(0)].push_back(b->IsNull(1) ? kInf : b->Double(1));
    }
    b->Reset();
  }
  return data;
}

absl::StatusOr<std::vector<std::pair<std::string, std::string>>>
SqliteStore::ProblemSignatures() {
  absl::MutexLock l(&mu_);
  ASSIGN_OR_RETURN(auto* q, Stmt("SELECT DISTINCT problem, problem_signature FROM studies"
                                 " WHERE problem_signature IS NOT NULL ORDER BY problem"));
  std::vector<std::pair<std::string, std::string>> out;
  while (true) {
    ASSIGN_OR_RETURN(bool row, q->Step());
    if (!row) break;
    out.push_back({q->Text(0), q->Text(1)});
  }
  q->Reset();
  return out;
}

absl::StatusOr<std::vector<int64_t>> SqliteStore::ListStudyIds() {
  absl::MutexLock l(&mu_);
  ASSIGN_OR_RETURN(auto* q, Stmt("SELECT id FROM studies ORDER BY id"));
  std::vector<int64_t> out;
  while (true) {
    ASSIGN_OR_RETURN(bool row, q->Step());
    if (!row) break;
    out.push_back(q->Int(0));
  }
  q->Reset();
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
  while (true) {
    ASSIGN_OR_RETURN(bool row, q->Step());
    if (!row) break;
    EvaluationRecord e;
    e.params_json = q->Text(1);
    e.value = q->IsNull(2) ? kInf : q->Double(2);
    e.replaced = q->Int(3) != 0;
    e.eval_time_s = q->Double(4);
    if (!q->IsNull(5)) e.generalization = q->Double(5);
    out.push_back({static_cast<int>(q->Int(0)), std::move(e)});
  }
  q->Reset();
  return out;
}

absl::StatusOr<ScoringChanges> SqliteStore::ScoringChangesSince(int64_t after_seq) {
  absl::MutexLock l(&mu_);
  ScoringChanges out;
  ASSIGN_OR_RETURN(auto* m, Stmt("SELECT COALESCE(MAX(final_seq), 0) FROM studies"));
  ASSIGN_OR_RETURN(bool row, m->Step());
  out.seq = row ? m->Int(0) : 0;
  m->Reset();
  if (out.seq <= after_seq) return out;
  ASSIGN_OR_RETURN(auto* q, Stmt("SELECT DISTINCT problem FROM studies WHERE final_seq > ?"
                                 " ORDER BY problem"));
  q->Bind(1, after_seq);
  while (true) {
    ASSIGN_OR_RETURN(bool r, q->Step());
    if (!r) break;
    out.problems.push_back(q->Text(0));
  }
  q->Reset();
  return out;
}

absl::Status SqliteStore::ExportResultsCsv(std::ostream& out, const std::string& board) {
  absl::MutexLock l(&mu_);
  // The same studies LoadScoringData scores: the latest finished study of each job (for the
  // baseline: its completed studies).
  ASSIGN_OR_RETURN(auto* q, Stmt(R"sql(
SELECT s.problem, sub.name, s.trial, e.batch, e.idx, e.value, e.generalization
FROM studies s
JOIN submissions sub ON sub.id = s.submission_id
LEFT JOIN evaluations e ON e.study_id = s.id
WHERE ((sub.is_baseline = 0 AND s.board = ?1 AND s.state IN ('completed', 'cut_off', 'failed')
        AND s.id = (SELECT MAX(s2.id) FROM studies s2
                    WHERE s2.job_id = s.job_id AND s2.state IN ('completed', 'cut_off', 'failed')))
       OR (sub.is_baseline = 1 AND s.state = 'completed'))
ORDER BY s.problem, sub.name, s.trial, e.batch, e.idx)sql"));
  q->Bind(1, board);
  auto write_number = [&out](double v) {
    if (std::isinf(v)) {
      out << (v > 0 ? "inf" : "-inf");
    } else {
      char buf[64];
      std::snprintf(buf, sizeof(buf), "%.17g", v);
      out << buf;
    }
  };
  out << "problem,method,trial,batch,suggestion,value,generalization\n";
  while (true) {
    ASSIGN_OR_RETURN(bool row, q->Step());
    if (!row) break;
    out << q->Text(0) << ',' << q->Text(1) << ',' << q->Int(2) << ',';
    if (q->IsNull(3)) {
      out << "0,0,inf,inf\n";
      continue;
    }
    double v = q->IsNull(5) ? kInf : q->Double(5);
    out << q->Int(3) << ',' << q->Int(4) << ',';
    write_number(v);
    out << ',';
    write_number(q->IsNull(6) ? v : q->Double(6));
    out << '\n';
  }
  q->Reset();
  if (!out) return absl::UnavailableError("cannot write the results CSV");
  return absl::OkStatus();
}

}  // namespace bbo
