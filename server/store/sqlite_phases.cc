// SqliteStore: the PhaseStore methods.

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "server/store/internal/job_plan.h"
#include "server/store/internal/sqlite_rows.h"
#include "server/store/sqlite_store.h"

namespace bbo {

using store_internal::ForEachRow;
using store_internal::PlanJobs;
using store_internal::ScalarInt;

absl::StatusOr<std::optional<PhaseRecord>> SqliteStore::GetPhase(const std::string& name) {
  absl::MutexLock l(&mu_);
  ASSIGN_OR_RETURN(auto* q, Stmt("SELECT name, fingerprint, spec, recorded_at FROM phases"
                                 " WHERE name = ?"));
  q->Bind(1, name);
  ASSIGN_OR_RETURN(bool row, q->Step());
  std::optional<PhaseRecord> out;
  if (row) out = PhaseRecord{q->Text(0), q->Text(1), q->Text(2), q->Double(3)};
  q->Reset();
  return out;
}

absl::Status SqliteStore::PutPhase(const PhaseRecord& p) {
  absl::MutexLock l(&mu_);
  ASSIGN_OR_RETURN(auto* u, Stmt("INSERT OR REPLACE INTO phases (name, fingerprint, spec,"
                                 " recorded_at) VALUES (?, ?, ?, ?)"));
  u->Bind(1, p.name).Bind(2, p.fingerprint).Bind(3, p.spec).Bind(4, p.recorded_at);
  return u->Run();
}

absl::Status SqliteStore::SetChoice(const std::string& phase, const std::string& team,
                                    int64_t submission_id, double at) {
  absl::MutexLock l(&mu_);
  sqlite::Transaction tx(db_.get());
  RETURN_IF_ERROR(tx.Begin());
  ASSIGN_OR_RETURN(auto* q, Stmt("SELECT phase, team, is_baseline FROM submissions WHERE id = ?"));
  q->Bind(1, submission_id);
  ASSIGN_OR_RETURN(bool row, q->Step());
  if (!row) return absl::NotFoundError(absl::StrCat("no submission with id ", submission_id));
  const bool mine = q->Text(0) == phase && q->Text(1) == team && q->Int(2) == 0;
  q->Reset();
  if (!mine) {
    return absl::InvalidArgumentError(absl::StrCat("submission ", submission_id,
                                                   " is not one of team \"", team,
                                                   "\" in phase \"", phase, "\""));
  }
  ASSIGN_OR_RETURN(auto* u, Stmt("INSERT OR REPLACE INTO final_choices (phase, team,"
                                 " submission_id, chosen_at) VALUES (?, ?, ?, ?)"));
  u->Bind(1, phase).Bind(2, team).Bind(3, submission_id).Bind(4, at);
  RETURN_IF_ERROR(u->Run());
  return tx.Commit();
}

absl::StatusOr<std::map<std::string, int64_t>> SqliteStore::Choices(const std::string& phase) {
  absl::MutexLock l(&mu_);
  ASSIGN_OR_RETURN(auto* q, Stmt("SELECT team, submission_id FROM final_choices WHERE phase = ?"));
  q->Bind(1, phase);
  std::map<std::string, int64_t> out;
  RETURN_IF_ERROR(
      ForEachRow(*q, [&](const sqlite::Statement& r) { out[r.Text(0)] = r.Int(1); }));
  return out;
}

absl::StatusOr<int64_t> SqliteStore::RecordPhaseEvent(const PhaseEvent& e) {
  if (!IsRecordablePhaseEvent(e.kind)) {
    return absl::InvalidArgumentError(absl::StrCat("phase event kind \"", e.kind,
                                                   "\" cannot be recorded"));
  }
  absl::MutexLock l(&mu_);
  return InsertPhaseEventLocked(e);
}

absl::StatusOr<int64_t> SqliteStore::InsertPhaseEventLocked(const PhaseEvent& e) {
  ASSIGN_OR_RETURN(auto* u, Stmt("INSERT INTO phase_events (phase, kind, at, who, detail, team,"
                                 " submission_id) VALUES (?, ?, ?, ?, ?, ?, ?)"));
  u->Bind(1, e.phase).Bind(2, e.kind).Bind(3, e.at).Bind(4, e.who).Bind(5, e.detail).Bind(6, e.team);
  if (e.submission_id == 0) {
    u->BindNull(7);
  } else {
    u->Bind(7, e.submission_id);
  }
  RETURN_IF_ERROR(u->Run());
  return db_->LastInsertId();
}

absl::StatusOr<std::vector<PhaseEvent>> SqliteStore::PhaseEvents(const std::string& phase) {
  absl::MutexLock l(&mu_);
  ASSIGN_OR_RETURN(auto* q, Stmt("SELECT id, phase, kind, at, who, detail, team,"
                                 " COALESCE(submission_id, 0) FROM phase_events"
                                 " WHERE phase = ? ORDER BY id"));
  q->Bind(1, phase);
  std::vector<PhaseEvent> out;
  RETURN_IF_ERROR(ForEachRow(*q, [&](const sqlite::Statement& r) {
    out.push_back(PhaseEvent{r.Int(0), r.Text(1), r.Text(2), r.Double(3), r.Text(4), r.Text(5),
                             r.Text(6), r.Int(7)});
  }));
  return out;
}

absl::StatusOr<std::vector<int64_t>> SqliteStore::MigrateInto(
    const std::string& phase, const std::vector<Migration>& sources,
    const std::vector<std::string>& problems, int64_t seed_base,
    const std::vector<std::string>& boards, double at, const std::string& detail) {
  if (boards.empty()) return absl::InvalidArgumentError("a migration needs at least one board");
  absl::MutexLock l(&mu_);
  sqlite::Transaction tx(db_.get());
  RETURN_IF_ERROR(tx.Begin());
  ASSIGN_OR_RETURN(auto* done, Stmt("SELECT COUNT(*) FROM phase_events WHERE phase = ? AND"
                                    " kind = 'migrated'"));
  done->Bind(1, phase);
  ASSIGN_OR_RETURN(int64_t before, ScalarInt(*done));
  if (before > 0) {
    return absl::AlreadyExistsError(
        absl::StrCat("submissions were already migrated into phase \"", phase, "\""));
  }
  std::vector<int64_t> out;
  for (const Migration& m : sources) {
    ASSIGN_OR_RETURN(int64_t id, CopySubmissionLocked(phase, m, problems, seed_base, boards, at));
    out.push_back(id);
  }
  ASSIGN_OR_RETURN(auto* ev, Stmt("INSERT INTO phase_events (phase, kind, at, who, detail)"
                                  " VALUES (?, 'migrated', ?, 'coordinator', ?)"));
  ev->Bind(1, phase).Bind(2, at).Bind(3, detail);
  RETURN_IF_ERROR(ev->Run());
  RETURN_IF_ERROR(tx.Commit());
  return out;
}

absl::StatusOr<int64_t> SqliteStore::CopySubmissionLocked(const std::string& phase,
                                                         const Migration& m,
                                                         const std::vector<std::string>& problems,
                                                         int64_t seed_base,
                                                         const std::vector<std::string>& boards,
                                                         double at) {
  ASSIGN_OR_RETURN(auto* copy, Stmt("INSERT INTO submissions (name, kind, archive, digest, trials,"
                                    " is_baseline, created_at, team, phase, migrated_from)"
                                    " SELECT name, kind, archive, digest, ?, 0, ?, team, ?, id"
                                    " FROM submissions WHERE id = ? AND is_baseline = 0"));
  ASSIGN_OR_RETURN(auto* job, Stmt("INSERT INTO jobs (submission_id, problem, trial, seed, state,"
                                   " builtin, board) VALUES (?, ?, ?, ?, 'queued', 0, ?)"));
  copy->Bind(1, m.trials).Bind(2, at).Bind(3, phase).Bind(4, m.source_submission_id);
  absl::Status inserted = copy->Run();
  if (absl::IsAlreadyExists(inserted)) {
    return absl::AlreadyExistsError(absl::StrCat(
        "phase \"", phase, "\" already has a submission of the name of submission ",
        m.source_submission_id));
  }
  RETURN_IF_ERROR(inserted);
  if (db_->Changes() != 1) {
    return absl::NotFoundError(
        absl::StrCat("no submission with id ", m.source_submission_id, " to migrate"));
  }
  const int64_t id = db_->LastInsertId();
  for (const auto& j : PlanJobs(id, m.trials, problems, seed_base, boards)) {
    job->Bind(1, id).Bind(2, j.problem).Bind(3, j.trial).Bind(4, j.seed).Bind(5, j.board);
    RETURN_IF_ERROR(job->Run());
  }
  return id;
}

absl::StatusOr<int64_t> SqliteStore::MigrateOne(const std::string& phase,
                                                const Migration& source,
                                                const std::vector<std::string>& problems,
                                                int64_t seed_base,
                                                const std::vector<std::string>& boards,
                                                const PhaseEvent& event) {
  if (boards.empty()) return absl::InvalidArgumentError("a migration needs at least one board");
  if (!IsRecordablePhaseEvent(event.kind)) {
    return absl::InvalidArgumentError(absl::StrCat("phase event kind \"", event.kind,
                                                   "\" cannot be recorded"));
  }
  absl::MutexLock l(&mu_);
  sqlite::Transaction tx(db_.get());
  RETURN_IF_ERROR(tx.Begin());
  ASSIGN_OR_RETURN(int64_t id,
                   CopySubmissionLocked(phase, source, problems, seed_base, boards, event.at));
  PhaseEvent e = event;
  e.submission_id = id;
  RETURN_IF_ERROR(InsertPhaseEventLocked(e).status());
  RETURN_IF_ERROR(tx.Commit());
  return id;
}

}  // namespace bbo
