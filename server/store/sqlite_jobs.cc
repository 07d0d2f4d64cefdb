// SqliteStore: the JobStore methods.

#include <algorithm>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "server/store/internal/sqlite_rows.h"
#include "server/store/sqlite_store.h"

#include <algorithm>

namespace bbo {

using store_internal::ForEachRow;
using store_internal::ParseJobState;
using store_internal::ReadJob;
using store_internal::ScalarInt;
using store_internal::ScalarText;

namespace {

// SQL: the job `job_expr` already has its final study (one in a scored state).
#define BBO_HAS_FINAL_STUDY(job_expr)                          \
  "EXISTS (SELECT 1 FROM studies f WHERE f.job_id = " job_expr \
  " AND f.state IN ('completed', 'cut_off', 'failed'))"

}  // namespace

absl::StatusOr<std::optional<JobRecord>> SqliteStore::LeaseLocked(
    bool builtin, const std::string& owner, double lease_expires_at,
    const std::vector<int64_t>& skip) {
  sqlite::Transaction tx(db_.get());
  RETURN_IF_ERROR(tx.Begin());
  // With jobs to skip (rare: a worker that refused some), the queue is read in order until one
  // that is not skipped.
  ASSIGN_OR_RETURN(auto* q, Stmt(skip.empty()
                                     ? "SELECT id FROM jobs WHERE state = 'queued' AND builtin = ?"
                                       " ORDER BY id LIMIT 1"
                                     : "SELECT id FROM jobs WHERE state = 'queued' AND builtin = ?"
                                       " ORDER BY id"));
  q->Bind(1, builtin ? 1 : 0);
  int64_t id = 0;
  while (true) {
    ASSIGN_OR_RETURN(bool row, q->Step());
    if (!row) break;
    if (std::find(skip.begin(), skip.end(), q->Int(0)) == skip.end()) {
      id = q->Int(0);
      break;
    }
  }
  q->Reset();
  if (id == 0) return std::optional<JobRecord>();
  ASSIGN_OR_RETURN(auto* u, Stmt("UPDATE jobs SET state = 'leased', worker_id = ?,"
                                 " lease_expires_at = ?, attempts = attempts + 1 WHERE id = ?"));
  u->Bind(1, owner).Bind(2, lease_expires_at).Bind(3, id);
  RETURN_IF_ERROR(u->Run());
  RETURN_IF_ERROR(tx.Commit());
  ASSIGN_OR_RETURN(std::optional<JobRecord> j, QueryJob(id));
  if (!j) return absl::InternalError("leased job vanished");
  return j;
}

absl::StatusOr<std::optional<JobRecord>> SqliteStore::QueryJob(int64_t job_id) {
  ASSIGN_OR_RETURN(auto* g, Stmt("SELECT " BBO_JOB_COLUMNS " FROM jobs WHERE id = ?"));
  g->Bind(1, job_id);
  ASSIGN_OR_RETURN(bool row, g->Step());
  std::optional<JobRecord> out;
  if (row) out = ReadJob(*g);
  g->Reset();
  return out;
}

absl::StatusOr<std::optional<JobRecord>> SqliteStore::LeaseJob(const std::string& worker_id,
                                                               double lease_expires_at,
                                                               const std::vector<int64_t>& skip) {
  absl::MutexLock l(&mu_);
  return LeaseLocked(false, worker_id, lease_expires_at, skip);
}

absl::Status SqliteStore::ReleaseLease(int64_t job_id, const std::string& worker_id) {
  absl::MutexLock l(&mu_);
  sqlite::Transaction tx(db_.get());
  RETURN_IF_ERROR(tx.Begin());
  ASSIGN_OR_RETURN(std::optional<JobRecord> job, QueryJob(job_id));
  if (!job) return absl::NotFoundError(absl::StrCat("no job with id ", job_id));
  if (job->state != JobState::kLeased || job->worker_id != worker_id) {
    return absl::FailedPreconditionError(
        absl::StrCat("job ", job_id, " is not leased by worker ", worker_id));
  }
  // A job that already has its final study is done: it never runs twice.
  ASSIGN_OR_RETURN(auto* f, Stmt("SELECT " BBO_HAS_FINAL_STUDY("?")));
  f->Bind(1, job_id);
  ASSIGN_OR_RETURN(bool has_final, ScalarInt(*f));
  ASSIGN_OR_RETURN(auto* u, Stmt("UPDATE jobs SET state = ?, worker_id = NULL,"
                                 " lease_expires_at = NULL, attempts = MAX(attempts - 1, 0)"
                                 " WHERE id = ?"));
  u->Bind(1, has_final ? "done" : "queued").Bind(2, job_id);
  RETURN_IF_ERROR(u->Run());
  ASSIGN_OR_RETURN(auto* a, Stmt("UPDATE studies SET state = 'abandoned', end_reason = ?"
                                 " WHERE job_id = ? AND state = 'running'"));
  a->Bind(1, "lease released by the coordinator").Bind(2, job_id);
  RETURN_IF_ERROR(a->Run());
  return tx.Commit();
}

absl::StatusOr<std::optional<JobRecord>> SqliteStore::LeaseBuiltinJob(const std::string& owner,
                                                                      double lease_expires_at) {
  absl::MutexLock l(&mu_);
  return LeaseLocked(true, owner, lease_expires_at);
}

absl::StatusOr<JobRecord> SqliteStore::GetJob(int64_t job_id) {
  absl::MutexLock l(&mu_);
  ASSIGN_OR_RETURN(std::optional<JobRecord> j, QueryJob(job_id));
  if (!j) return absl::NotFoundError(absl::StrCat("no job with id ", job_id));
  return *j;
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
  ASSIGN_OR_RETURN(auto* q,
                   Stmt("SELECT id, attempts, " BBO_HAS_FINAL_STUDY("jobs.id") ", " BBO_WITHDRAWN_OF_JOB
                        " FROM jobs WHERE state = 'leased' AND lease_expires_at < ? ORDER BY id"));
  q->Bind(1, now);
  struct Expired {
    int64_t id;
    int attempts;
    bool has_final;
    std::string withdrawn;
  };
  std::vector<Expired> expired;
  RETURN_IF_ERROR(ForEachRow(*q, [&](const sqlite::Statement& r) {
    expired.push_back({r.Int(0), static_cast<int>(r.Int(1)), r.Int(2) != 0, r.Text(3)});
  }));
  std::vector<int64_t> requeued;
  ASSIGN_OR_RETURN(auto* u, Stmt("UPDATE jobs SET state = ?, worker_id = NULL,"
                                 " lease_expires_at = NULL, last_error = ? WHERE id = ?"));
  ASSIGN_OR_RETURN(auto* a, Stmt("UPDATE studies SET state = 'abandoned', ended_at = ?,"
                                 " end_reason = 'worker lease expired' WHERE job_id = ? AND"
                                 " state = 'running'"));
  ASSIGN_OR_RETURN(auto* d, Stmt("UPDATE jobs SET state = 'done', worker_id = NULL,"
                                 " lease_expires_at = NULL WHERE id = ?"));
  for (const auto& [id, attempts, has_final, withdrawn] : expired) {
    if (has_final) {
      d->Bind(1, id);
      RETURN_IF_ERROR(d->Run());
      continue;
    }
    // A job of a withdrawn submission is never queued again.
    const bool retry = attempts < max_attempts && withdrawn.empty();
    u->Bind(1, retry ? "queued" : "failed")
        .Bind(2, withdrawn.empty() ? std::string("lease expired") : withdrawn)
        .Bind(3, id);
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
  ASSIGN_OR_RETURN(std::optional<JobRecord> job, QueryJob(job_id));
  if (!job) return absl::NotFoundError(absl::StrCat("no job with id ", job_id));
  if (job->state != JobState::kLeased || job->worker_id != worker_id) {
    return absl::FailedPreconditionError(absl::StrCat("job ", job_id, " is not leased by worker ",
                                                      worker_id, " (its lease expired?)"));
  }
  ASSIGN_OR_RETURN(auto* f, Stmt("SELECT " BBO_HAS_FINAL_STUDY("?")));
  f->Bind(1, job_id);
  ASSIGN_OR_RETURN(bool has_final, ScalarInt(*f));
  ASSIGN_OR_RETURN(auto* w, Stmt("SELECT withdrawn FROM submissions WHERE id = ?"));
  w->Bind(1, job->submission_id);
  ASSIGN_OR_RETURN(std::string withdrawn, ScalarText(*w));
  // A job of a withdrawn submission is never queued again.
  const char* next = error.empty() || has_final
                         ? "done"
                         : (job->attempts < max_attempts && withdrawn.empty() ? "queued" : "failed");
  ASSIGN_OR_RETURN(auto* u, Stmt("UPDATE jobs SET state = ?, worker_id = NULL,"
                                 " lease_expires_at = NULL, last_error = ? WHERE id = ?"));
  u->Bind(1, next);
  if (error.empty()) {
    u->BindNull(2);
  } else {
    // A job of a withdrawn submission that ends without its study is withdrawn, not lost.
    u->Bind(2, std::string(next) == "failed" && !withdrawn.empty() ? withdrawn : error);
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

absl::StatusOr<std::vector<FailedJob>> SqliteStore::ListFailedJobs() {
  absl::MutexLock l(&mu_);
  ASSIGN_OR_RETURN(auto* q, Stmt("SELECT j.id, s.name, COALESCE(j.last_error, '') FROM jobs j"
                                 " JOIN submissions s ON s.id = j.submission_id"
                                 " WHERE j.state = 'failed' ORDER BY j.id"));
  std::vector<std::tuple<int64_t, std::string, std::string>> rows;
  RETURN_IF_ERROR(ForEachRow(
      *q, [&](const sqlite::Statement& r) { rows.emplace_back(r.Int(0), r.Text(1), r.Text(2)); }));
  std::vector<FailedJob> out;
  for (auto& [id, name, error] : rows) {
    ASSIGN_OR_RETURN(std::optional<JobRecord> j, QueryJob(id));
    if (j) out.push_back({*j, name, error});
  }
  return out;
}

absl::Status SqliteStore::RequeueFailedJob(int64_t job_id) {
  absl::MutexLock l(&mu_);
  ASSIGN_OR_RETURN(std::optional<JobRecord> j, QueryJob(job_id));
  if (!j) return absl::NotFoundError(absl::StrCat("no job with id ", job_id));
  if (j->state != JobState::kFailed) {
    return absl::FailedPreconditionError(absl::StrCat("job ", job_id, " has not failed"));
  }
  ASSIGN_OR_RETURN(auto* w, Stmt("SELECT withdrawn FROM submissions WHERE id = ?"));
  w->Bind(1, j->submission_id);
  ASSIGN_OR_RETURN(std::string withdrawn, ScalarText(*w));
  if (!withdrawn.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "job ", job_id, " belongs to submission ", j->submission_id, ", ", withdrawn,
        ": the jobs of a withdrawn submission stay withdrawn (its team may submit again)"));
  }
  ASSIGN_OR_RETURN(auto* u, Stmt("UPDATE jobs SET state = 'queued', attempts = 0 WHERE"
                                 " state = 'failed' AND id = ?"));
  u->Bind(1, job_id);
  return u->Run();
}

absl::StatusOr<int64_t> SqliteStore::BeginEpoch(double now) {
  absl::MutexLock l(&mu_);
  ASSIGN_OR_RETURN(auto* u, Stmt("INSERT INTO coordinator_epochs (started_at) VALUES (?)"));
  u->Bind(1, now);
  RETURN_IF_ERROR(u->Run());
  return db_->LastInsertId();
}

absl::StatusOr<RecoveryCounts> SqliteStore::RecoverAfterRestart(double now) {
  absl::MutexLock l(&mu_);
  sqlite::Transaction tx(db_.get());
  RETURN_IF_ERROR(tx.Begin());
  RecoveryCounts out;
  ASSIGN_OR_RETURN(auto* a, Stmt("UPDATE studies SET state = 'abandoned', ended_at = ?,"
                                 " end_reason = 'coordinator restarted' WHERE state = 'running'"));
  a->Bind(1, now);
  RETURN_IF_ERROR(a->Run());
  out.studies_abandoned = db_->Changes();
  ASSIGN_OR_RETURN(
      auto* d,
      Stmt("UPDATE jobs SET state = 'done', worker_id = NULL,"
           " lease_expires_at = NULL WHERE state = 'leased' AND " BBO_HAS_FINAL_STUDY("jobs.id")));
  RETURN_IF_ERROR(d->Run());
  out.jobs_done = db_->Changes();
  // A job of a withdrawn submission is never queued again: it fails with the withdrawal.
  ASSIGN_OR_RETURN(auto* w, Stmt("UPDATE jobs SET state = 'failed', worker_id = NULL,"
                                 " lease_expires_at = NULL, last_error = " BBO_WITHDRAWN_OF_JOB
                                 " WHERE state = 'leased' AND " BBO_WITHDRAWN_OF_JOB " != ''"));
  RETURN_IF_ERROR(w->Run());
  ASSIGN_OR_RETURN(auto* q, Stmt("UPDATE jobs SET state = 'queued', worker_id = NULL,"
                                 " lease_expires_at = NULL, attempts = MAX(attempts - 1, 0),"
                                 " last_error = 'coordinator restarted' WHERE state = 'leased'"));
  RETURN_IF_ERROR(q->Run());
  out.jobs_requeued = db_->Changes();
  RETURN_IF_ERROR(tx.Commit());
  return out;
}

absl::StatusOr<int> SqliteStore::CancelQueuedJobs(int64_t submission_id,
                                                  const std::string& reason) {
  absl::MutexLock l(&mu_);
  sqlite::Transaction tx(db_.get());
  RETURN_IF_ERROR(tx.Begin());
  ASSIGN_OR_RETURN(auto* u, Stmt("UPDATE jobs SET state = 'failed', last_error = ?"
                                 " WHERE submission_id = ? AND state = 'queued'"));
  u->Bind(1, reason).Bind(2, submission_id);
  RETURN_IF_ERROR(u->Run());
  const int cancelled = db_->Changes();
  ASSIGN_OR_RETURN(auto* m, Stmt("UPDATE submissions SET withdrawn = ?"
                                 " WHERE id = ? AND withdrawn = ''"));
  m->Bind(1, reason).Bind(2, submission_id);
  RETURN_IF_ERROR(m->Run());
  RETURN_IF_ERROR(tx.Commit());
  return cancelled;
}

absl::StatusOr<int> SqliteStore::CountLeases(const std::string& worker_id) {
  absl::MutexLock l(&mu_);
  ASSIGN_OR_RETURN(auto* q, Stmt("SELECT COUNT(*) FROM jobs WHERE state = 'leased' AND worker_id = ?"));
  q->Bind(1, worker_id);
  ASSIGN_OR_RETURN(bool row, q->Step());
  const int n = row ? static_cast<int>(q->Int(0)) : 0;
  q->Reset();
  return n;
}

absl::StatusOr<JobCounts> SqliteStore::CountJobs(int64_t submission_id) {
  absl::MutexLock l(&mu_);
  ASSIGN_OR_RETURN(auto* q, Stmt("SELECT state, COUNT(*), SUM(last_error LIKE 'withdrawn%')"
                                 " FROM jobs WHERE submission_id = ? GROUP BY state"));
  q->Bind(1, submission_id);
  JobCounts c;
  RETURN_IF_ERROR(ForEachRow(*q, [&](const sqlite::Statement& r) {
    int n = static_cast<int>(r.Int(1));
    c.total += n;
    switch (ParseJobState(r.Text(0))) {
      case JobState::kQueued:
        c.queued += n;
        break;
      case JobState::kLeased:
        c.leased += n;
        break;
      case JobState::kDone:
        c.done += n;
        break;
      case JobState::kFailed:
        c.failed += n;
        c.withdrawn += static_cast<int>(r.Int(2));
        break;
    }
  }));
  return c;
}

absl::StatusOr<std::vector<std::string>> SqliteStore::ListBoards() {
  absl::MutexLock l(&mu_);
  ASSIGN_OR_RETURN(auto* q, Stmt("SELECT DISTINCT board FROM jobs ORDER BY board"));
  std::vector<std::string> out;
  RETURN_IF_ERROR(ForEachRow(*q, [&](const sqlite::Statement& r) { out.push_back(r.Text(0)); }));
  return out;
}

}  // namespace bbo
