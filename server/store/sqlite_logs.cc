// SqliteStore: what a submission's log lists (its studies and how they ended).

#include "common/status_macros.h"
#include "server/store/internal/sqlite_rows.h"
#include "server/store/sqlite_store.h"

namespace bbo {

using store_internal::ForEachRow;
using store_internal::ParseStudyState;

absl::StatusOr<std::vector<StudySummary>> SqliteStore::ListSubmissionStudies(
    int64_t submission_id) {
  absl::MutexLock l(&mu_);
  ASSIGN_OR_RETURN(auto* q, Stmt("SELECT id, job_id, problem, trial, board, state, batches_done,"
                                 " n_batches, end_reason FROM studies WHERE submission_id = ?"
                                 " ORDER BY id"));
  q->Bind(1, submission_id);
  std::vector<StudySummary> out;
  RETURN_IF_ERROR(ForEachRow(*q, [&](const sqlite::Statement& r) {
    StudySummary s;
    s.study_id = r.Int(0);
    s.job_id = r.IsNull(1) ? 0 : r.Int(1);
    s.problem = r.Text(2);
    s.trial = static_cast<int>(r.Int(3));
    s.board = r.Text(4);
    s.state = ParseStudyState(r.Text(5));
    s.batches_done = static_cast<int>(r.Int(6));
    s.n_batches = static_cast<int>(r.Int(7));
    s.end_reason = r.IsNull(8) ? "" : r.Text(8);
    out.push_back(std::move(s));
  }));
  return out;
}

}  // namespace bbo
