// SqliteStore: the SubmissionStore methods.

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "server/store/internal/job_plan.h"
#include "server/store/internal/sqlite_rows.h"
#include "server/store/sqlite_store.h"

namespace bbo {

using store_internal::PlanJobs;
using store_internal::ReadSubmission;
using store_internal::ReadSubmissions;
using store_internal::ScalarInt;

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
                        " is_baseline, created_at, team, phase, migrated_from)"
                        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"));
  ins->Bind(1, s.name).Bind(2, static_cast<int64_t>(s.kind)).BindBlob(3, archive);
  ins->Bind(4, s.digest).Bind(5, s.trials).Bind(6, s.is_baseline ? 1 : 0).Bind(7, s.created_at);
  ins->Bind(8, s.team).Bind(9, s.phase);
  if (s.migrated_from > 0) {
    ins->Bind(10, s.migrated_from);
  } else {
    ins->BindNull(10);
  }
  if (absl::Status st = ins->Run(); !st.ok()) {
    if (absl::IsAlreadyExists(st)) {
      return absl::AlreadyExistsError(
          absl::StrCat("a submission named \"", s.name, "\" already exists",
                       s.phase.empty() ? "" : absl::StrCat(" in phase \"", s.phase, "\""),
                       "; choose another name"));
    }
    return st;
  }
  int64_t id = db_->LastInsertId();
  ASSIGN_OR_RETURN(auto* job, Stmt("INSERT INTO jobs (submission_id, problem, trial, seed, state,"
                                   " builtin, board) VALUES (?, ?, ?, ?, 'queued', ?, ?)"));
  for (const auto& j : PlanJobs(id, s.trials, problems, seed_base, boards)) {
    job->Bind(1, id).Bind(2, j.problem).Bind(3, j.trial).Bind(4, j.seed);
    job->Bind(5, s.kind == SubmissionKind::kBuiltin ? 1 : 0).Bind(6, j.board);
    RETURN_IF_ERROR(job->Run());
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
  ASSIGN_OR_RETURN(
      std::optional<SubmissionRecord> s,
      QuerySubmission("SELECT " BBO_SUBMISSION_COLUMNS " FROM submissions WHERE id = ?", id));
  if (!s) return absl::NotFoundError(absl::StrCat("no submission with id ", id));
  return *s;
}

absl::StatusOr<std::optional<SubmissionRecord>> SqliteStore::FindSubmission(
    const std::string& name, const std::string& phase) {
  absl::MutexLock l(&mu_);
  ASSIGN_OR_RETURN(auto* q, Stmt("SELECT " BBO_SUBMISSION_COLUMNS " FROM submissions"
                                 " WHERE name = ? AND phase = ?"));
  q->Bind(1, name).Bind(2, phase);
  ASSIGN_OR_RETURN(bool row, q->Step());
  std::optional<SubmissionRecord> out;
  if (row) out = ReadSubmission(*q);
  q->Reset();
  return out;
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
  ASSIGN_OR_RETURN(auto* q, Stmt("SELECT " BBO_SUBMISSION_COLUMNS " FROM submissions ORDER BY id"));
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

absl::StatusOr<int> SqliteStore::CountChargedSubmissions(const std::string& team,
                                                         double created_since,
                                                         const std::string& phase) {
  absl::MutexLock l(&mu_);
  ASSIGN_OR_RETURN(
      auto* q,
      Stmt("SELECT COUNT(*) FROM submissions s WHERE s.team = ? AND s.created_at >= ?"
           " AND s.phase = ? AND ("
           " NOT EXISTS (SELECT 1 FROM jobs j WHERE j.submission_id = s.id)"
           " OR EXISTS (SELECT 1 FROM jobs j WHERE j.submission_id = s.id AND j.state != 'failed')"
           " OR EXISTS (SELECT 1 FROM studies t WHERE t.submission_id = s.id AND t.state IN"
           " ('completed', 'cut_off', 'failed')))"));
  q->Bind(1, team).Bind(2, created_since).Bind(3, phase);
  ASSIGN_OR_RETURN(int64_t n, ScalarInt(*q));
  return static_cast<int>(n);
}

absl::StatusOr<bool> SqliteStore::SetHidden(int64_t submission_id, const std::string& reason) {
  absl::MutexLock l(&mu_);
  sqlite::Transaction tx(db_.get());
  RETURN_IF_ERROR(tx.Begin());
  ASSIGN_OR_RETURN(auto* q, Stmt("SELECT hidden FROM submissions WHERE id = ? AND is_baseline = 0"));
  q->Bind(1, submission_id);
  ASSIGN_OR_RETURN(bool row, q->Step());
  if (!row) {
    q->Reset();
    return absl::NotFoundError(absl::StrCat("no submission with id ", submission_id));
  }
  const std::string before = q->Text(0);
  q->Reset();
  if (before == reason) return false;
  ASSIGN_OR_RETURN(auto* u, Stmt("UPDATE submissions SET hidden = ? WHERE id = ?"));
  u->Bind(1, reason).Bind(2, submission_id);
  RETURN_IF_ERROR(u->Run());
  RETURN_IF_ERROR(MarkScoringChanged(submission_id));
  RETURN_IF_ERROR(tx.Commit());
  return true;
}

}  // namespace bbo
