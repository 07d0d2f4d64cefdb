// SqliteStore: the RaceStore methods.

#include <limits>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "server/store/internal/sqlite_rows.h"
#include "server/store/sqlite_store.h"

namespace bbo {

using store_internal::ForEachRow;
using store_internal::ParseJobState;
using store_internal::ScalarInt;
using store_internal::ValueOrInf;

absl::StatusOr<std::vector<RaceRoundRecord>> SqliteStore::ListRaceRounds(
    const std::string& phase) {
  absl::MutexLock l(&mu_);
  ASSIGN_OR_RETURN(auto* q, Stmt("SELECT phase, round, state_json, stop, note, jobs, created_at"
                                 " FROM race_rounds WHERE phase = ? ORDER BY round"));
  q->Bind(1, phase);
  std::vector<RaceRoundRecord> out;
  RETURN_IF_ERROR(ForEachRow(*q, [&](const sqlite::Statement& r) {
    RaceRoundRecord rec;
    rec.phase = r.Text(0);
    rec.round = static_cast<int>(r.Int(1));
    rec.state_json = r.Text(2);
    rec.stop = r.Int(3) != 0;
    rec.note = r.Text(4);
    rec.jobs = static_cast<int>(r.Int(5));
    rec.created_at = r.Double(6);
    out.push_back(std::move(rec));
  }));
  return out;
}

absl::Status SqliteStore::AddRaceRound(const RaceRoundRecord& round,
                                       const std::vector<RaceJob>& jobs,
                                       const std::vector<std::string>& boards) {
  if (boards.empty() && !jobs.empty()) {
    return absl::InvalidArgumentError("a race round's jobs need at least one board");
  }
  absl::MutexLock l(&mu_);
  sqlite::Transaction tx(db_.get());
  RETURN_IF_ERROR(tx.Begin());
  ASSIGN_OR_RETURN(auto* seen, Stmt("SELECT COUNT(*) FROM race_rounds WHERE phase = ? AND"
                                    " round = ?"));
  seen->Bind(1, round.phase).Bind(2, round.round);
  ASSIGN_OR_RETURN(int64_t before, ScalarInt(*seen));
  if (before > 0) {
    return absl::AlreadyExistsError(absl::StrCat("round ", round.round, " of the race of phase \"",
                                                 round.phase, "\" was already queued"));
  }
  ASSIGN_OR_RETURN(auto* phase_of, Stmt("SELECT COUNT(*) FROM submissions WHERE id = ? AND"
                                        " phase = ? AND is_baseline = 0"));
  ASSIGN_OR_RETURN(auto* job, Stmt("INSERT INTO jobs (submission_id, problem, trial, seed, state,"
                                   " builtin, board, max_batches)"
                                   " VALUES (?, ?, ?, ?, 'queued', 0, ?, ?)"));
  int queued = 0;
  for (const RaceJob& j : jobs) {
    phase_of->Bind(1, j.submission_id).Bind(2, round.phase);
    ASSIGN_OR_RETURN(int64_t n, ScalarInt(*phase_of));
    if (n != 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "submission ", j.submission_id, " is not a submission of phase \"", round.phase, "\""));
    }
    for (const std::string& board : boards) {
      job->Bind(1, j.submission_id)
          .Bind(2, j.problem)
          .Bind(3, j.trial)
          .Bind(4, j.seed & 0x7fffffff)
          .Bind(5, board)
          .Bind(6, j.max_batches);
      RETURN_IF_ERROR(job->Run());
      ++queued;
    }
  }
  ASSIGN_OR_RETURN(auto* ins, Stmt("INSERT INTO race_rounds (phase, round, state_json, stop, note,"
                                   " jobs, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)"));
  ins->Bind(1, round.phase)
      .Bind(2, round.round)
      .Bind(3, round.state_json)
      .Bind(4, round.stop ? 1 : 0)
      .Bind(5, round.note)
      .Bind(6, queued)
      .Bind(7, round.created_at);
  RETURN_IF_ERROR(ins->Run());
  return tx.Commit();
}

absl::StatusOr<std::vector<RaceResultRecord>> SqliteStore::RaceResults(const std::string& phase,
                                                                       const std::string& board) {
  absl::MutexLock l(&mu_);
  // Every job of the phase's submissions on the board, with the batch minima of its latest
  // finished study (no rows of e.* when it has none).
  ASSIGN_OR_RETURN(auto* q, Stmt(R"sql(
SELECT j.id, j.submission_id, j.problem, j.trial, j.max_batches, j.state, s.id, e.batch,
       MIN(e.value), COALESCE(j.last_error, ''),
       (SELECT COUNT(*) FROM evaluations e2 JOIN studies s3 ON s3.id = e2.study_id
        WHERE s3.job_id = j.id)
FROM jobs j
JOIN submissions sub ON sub.id = j.submission_id
LEFT JOIN studies s ON s.id = (SELECT MAX(s2.id) FROM studies s2 WHERE s2.job_id = j.id
                               AND s2.state IN ('completed', 'cut_off', 'failed'))
LEFT JOIN evaluations e ON e.study_id = s.id
WHERE sub.phase = ?1 AND sub.is_baseline = 0 AND j.board = ?2
GROUP BY j.id, e.batch
ORDER BY j.id, e.batch)sql"));
  q->Bind(1, phase).Bind(2, board);
  std::vector<RaceResultRecord> out;
  RETURN_IF_ERROR(ForEachRow(*q, [&](const sqlite::Statement& r) {
    const int64_t job_id = r.Int(0);
    if (out.empty() || out.back().job_id != job_id) {
      RaceResultRecord rec;
      rec.job_id = job_id;
      rec.submission_id = r.Int(1);
      rec.problem = r.Text(2);
      rec.trial = static_cast<int>(r.Int(3));
      rec.max_batches = static_cast<int>(r.Int(4));
      rec.state = ParseJobState(r.Text(5));
      rec.has_final_study = !r.IsNull(6);
      rec.last_error = r.Text(9);
      rec.evaluations = r.Int(10);
      out.push_back(std::move(rec));
    }
    if (!r.IsNull(7)) {
      RaceResultRecord& rec = out.back();
      const size_t bt = static_cast<size_t>(r.Int(7));
      if (rec.batch_min.size() <= bt) {
        rec.batch_min.resize(bt + 1, std::numeric_limits<double>::infinity());
      }
      rec.batch_min[bt] = ValueOrInf(r, 8);
    }
  }));
  return out;
}

}  // namespace bbo
